/**
 * `npm run demo`: the simulated endpoint with the homes scenario, a fresh code-server with the
 * packaged extension, and a workspace holding the homes assistant in every format as a git repository
 * with its two revisions (A without the "homes" rule, B with it), and a week of production traces of
 * homes.prompty ending at the current hour (A live all week, B in a gray release over the last two days).
 * Prints the URL; Ctrl-C stops all.
 */
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseScenario } from '../../src/core/sim/scenario';
import { startSim } from '../../src/core/sim/simServer';
import { contentLabels } from '../../src/core/telemetry/prodVersions';
import { demoTracesEndingAt, lastWholeHour } from '../fixtures/demoTraces';
import { TestRepo } from '../fixtures/gitRepo';
import { HOMES_WITHOUT_RULE, HOMES_WITH_RULE } from '../fixtures/homesRepo';
import { startCodeServer } from './codeServer';

/** The demo's folder (VS Code's user data, extensions, the workspace): removed however the demo ends. */
const root = mkdtempSync(join(tmpdir(), 'pi-demo-'));
process.on('exit', () => rmSync(root, { recursive: true, force: true }));
const running: { stop: () => Promise<void> }[] = [];
let stopping = false;
async function stop(code: number): Promise<void> {
  if (stopping) return;
  stopping = true;
  console.log('\nStopping…');
  for (const part of running.reverse()) await part.stop().catch(() => undefined);
  process.exit(code); // the exit handler removes the folder
}
// Ctrl-C during start-up too: whatever has started is stopped, and the folder removed.
process.once('SIGINT', () => void stop(0));
process.once('SIGTERM', () => void stop(0));

async function main(): Promise<void> {
  const examples = 'examples/homes';
  const files = Object.fromEntries(readdirSync(examples, { withFileTypes: true }).filter((e) => e.isFile()).map((e) => [e.name, readFileSync(join(examples, e.name), 'utf8')]));
  const sim = await startSim({ port: Number(process.env.DEMO_SIM_PORT ?? 0), scenario: parseScenario(files['homes.sim.yaml']!) });
  running.push({ stop: () => sim.close() });
  const server = await startCodeServer(files, {
    'promptInsight.endpoints': [{ name: 'Demo simulator', provider: 'openai', baseUrl: sim.url }],
    'promptInsight.run.endpoint': 'Demo simulator',
    'promptInsight.run.concurrency': 4,
    // The simulator's homes scenario also answers the grounded judge's questions of the knowledge case.
    'promptInsight.judge.endpoint': 'Demo simulator',
    'promptInsight.judge.model': 'sim',
    // A week of production traces of homes.prompty (examples/telemetry), moved to end at the current hour.
    'promptInsight.production.sources': [{ traces: 'telemetry/homes-week.jsonl.gz', since: '7d' }],
  }, { root });
  running.push(server);
  const repo = new TestRepo(server.workspace);
  repo.git('init', '-q', '-b', 'main');
  repo.commit('Homes assistant: first version', { ...files, 'homes.prompty': HOMES_WITHOUT_RULE });
  repo.commit('Define "homes" as single-family houses', { 'homes.prompty': HOMES_WITH_RULE });
  // The knowledge case: a revision that asks for rounded prices, so the assistant invents one (held on hallucination).
  repo.commit('Listings: round prices to sound attractive', { 'listings.prompty': files['listings.prompty']!.replace('quote prices exactly.', 'round prices to sound attractive.') });
  // Production traces are data, not source: beside the repository's files, untracked.
  mkdirSync(join(server.workspace, 'telemetry'), { recursive: true });
  writeFileSync(join(server.workspace, 'telemetry/homes-week.jsonl.gz'), demoTracesEndingAt(lastWholeHour(Date.now())));
  // The app labels each call with the prompt's content hash (`prompt-insight version`), which survives these fresh commits.
  const label = async (text: string) => (await contentLabels('homes.prompty', text)).get('homes-assistant')!;
  const [a, b] = [await label(HOMES_WITHOUT_RULE), await label(HOMES_WITH_RULE)];
  const cli = `node ${resolve('dist/cli.js')}`;
  const traces = '--traces telemetry/homes-week.jsonl.gz';
  console.log(`
Prompt Insight demo
  simulated endpoint (scripted answers, not a real model): ${sim.url}
  VS Code (code-server, extension installed from prompt-insight.vsix): ${server.url}

Open homes.prompty: token CodeLens and hover; "▶ Run" streams an answer and adds the TTFT lens;
"Compare revisions" compares A (no rule) with B ("homes" = single-family houses).
Open listings.prompty (the knowledge case): "Compare revisions" holds the revision that rounds prices — it
invents a listing's price; the panel shows the hallucination rate, the claim and the listing it contradicts.
Production: telemetry/homes-week.jsonl.gz holds a week of traces of homes.prompty (OpenTelemetry SDK spans of
requests to the simulator, ending this hour): A (${a}) served all week, B (${b}) in a gray
release over the last two days (10%, then 50%); one slow night two nights ago. Hover homes.prompty or run
"Prompt Insight: Show Production". In a terminal, in ${server.workspace}:
  ${cli} prod homes.prompty ${traces} --since 7d
  ${cli} watch homes.prompty ${traces}                       (finds the slow night)
  ${cli} sample homes.prompty ${traces} --out homes.tests.yaml   (the pasted API key is redacted)
  ${cli} prod homes.prompty ${traces} --since 7d --decide --base ${a} --head ${b} --registry-rev HEAD   (promotes B)
Ctrl-C stops everything and removes the demo's folder (${root}).`);
}

main().catch((error) => {
  console.error(`demo failed: ${(error as Error).message}`);
  void stop(1);
});
