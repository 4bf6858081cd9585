/**
 * The demo workspace, as `npm run demo` makes it and the loop's end-to-end test drives it: the homes
 * assistant in every format (examples/homes) as a git repository with its two revisions (A without the
 * "homes" rule, B with it) and the knowledge case's revision that rounds prices; the simulator as endpoint
 * and judge; and a week of production traces of homes.prompty ending at the current hour.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { demoTracesEndingAt, lastWholeHour } from '../fixtures/demoTraces';
import { TestRepo } from '../fixtures/gitRepo';
import { HOMES_WITHOUT_RULE, HOMES_WITH_RULE } from '../fixtures/homesRepo';

const EXAMPLES = 'examples/homes';
export const DEMO_TRACES = 'telemetry/homes-week.jsonl.gz';

/** The files of examples/homes, by name. */
export function demoFiles(): Record<string, string> {
  return Object.fromEntries(readdirSync(EXAMPLES, { withFileTypes: true }).filter((e) => e.isFile()).map((e) => [e.name, readFileSync(join(EXAMPLES, e.name), 'utf8')]));
}

/** The demo's user settings, with the simulator at `simUrl`. */
export function demoSettings(simUrl: string): Record<string, unknown> {
  return {
    'promptInsight.endpoints': [{ name: 'Demo simulator', provider: 'openai', baseUrl: simUrl }],
    'promptInsight.run.endpoint': 'Demo simulator',
    'promptInsight.run.concurrency': 4,
    // The simulator's homes scenario also answers the grounded judge's questions of the knowledge case.
    'promptInsight.judge.endpoint': 'Demo simulator',
    'promptInsight.judge.model': 'sim',
    // A week of production traces of homes.prompty (examples/telemetry), moved to end at the current hour.
    'promptInsight.production.sources': [{ traces: DEMO_TRACES, since: '7d' }],
  };
}

/** The workspace folder made a repository with the demo's revisions, and the week of traces beside them. */
export function prepareDemoRepo(workspace: string, files: Record<string, string>): void {
  const repo = new TestRepo(workspace);
  repo.git('init', '-q', '-b', 'main');
  repo.commit('Homes assistant: first version', { ...files, 'homes.prompty': HOMES_WITHOUT_RULE });
  repo.commit('Define "homes" as single-family houses', { 'homes.prompty': HOMES_WITH_RULE });
  // The knowledge case: a revision that asks for rounded prices, so the assistant invents one (held on hallucination).
  repo.commit('Listings: round prices to sound attractive', { 'listings.prompty': files['listings.prompty']!.replace('quote prices exactly.', 'round prices to sound attractive.') });
  // Production traces are data, not source: beside the repository's files, untracked.
  repo.write(DEMO_TRACES, demoTracesEndingAt(lastWholeHour(Date.now())));
}
