/**
 * The repository's own workflow (.github/workflows/prompt-gate.yml) and its composite action
 * (action.yml) run step by step as GitHub Actions runs them on a pull request, against a bare
 * "origin" repository: actions/checkout's one-commit-deep fetch of the merge commit, so the base is
 * not in the clone; the gate fetches it, runs both revisions on the bundled simulated endpoint until
 * the decision is known, appends the decision and its table to the job summary, and leaves the
 * JUnit XML and the HTML report for the artifact upload. The CLI is the built one (dist/cli.js).
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, realpathSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { XMLParser, XMLValidator } from 'fast-xml-parser';
import MarkdownIt from 'markdown-it';
import { describe, expect, it } from 'vitest';
import { TestRepo } from '../fixtures/gitRepo';
import { HOMES_WITH_RULE, HOMES_WITHOUT_RULE } from '../fixtures/homesRepo';
import { runWorkflowJob, type WorkflowRun } from '../fixtures/actionsWorkflow';

const HOMES = 'examples/homes';
/** The homes tests with an adherence SLO the fix clearly meets, so the decision arrives in a few batches. */
const TESTS = readFileSync(`${HOMES}/homes.tests.yaml`, 'utf8').replace(/^scenario: decision\n/m, 'scenario: decision\nslo:\n  adherence: { min: 0.5 }\n');

/** A bare origin with main (revision A) and a pull request (revision B), and GitHub's merge commit for it. */
function pullRequestOrigin(head: string): { originUrl: string; baseSha: string; mergeSha: string } {
  const work = new TestRepo();
  const baseSha = work.commit('Homes assistant', { [`${HOMES}/homes.prompty`]: HOMES_WITHOUT_RULE, [`${HOMES}/homes.tests.yaml`]: TESTS, [`${HOMES}/homes.sim.yaml`]: readFileSync(`${HOMES}/homes.sim.yaml`, 'utf8') });
  work.git('checkout', '-q', '-b', 'pr');
  const prSha = work.commit('Define "homes" as single-family houses', { [`${HOMES}/homes.prompty`]: head });
  work.git('checkout', '-q', '--detach', baseSha);
  work.git('merge', '-q', '--no-ff', '-m', `Merge ${prSha} into ${baseSha}`, prSha);
  const mergeSha = work.git('rev-parse', 'HEAD').trim();
  const origin = join(realpathSync(mkdtempSync(join(tmpdir(), 'pi-origin-'))), 'origin.git');
  execFileSync('git', ['clone', '-q', '--bare', work.root, origin]);
  execFileSync('git', ['-C', origin, 'update-ref', 'refs/pull/1/head', prSha]);
  execFileSync('git', ['-C', origin, 'update-ref', 'refs/pull/1/merge', mergeSha]);
  return { originUrl: `file://${origin}`, baseSha, mergeSha };
}

function runGate(head: string): { run: WorkflowRun; workspace: string; runnerTemp: string; baseSha: string } {
  const { originUrl, baseSha, mergeSha } = pullRequestOrigin(head);
  const root = realpathSync(mkdtempSync(join(tmpdir(), 'pi-runner-')));
  const workspace = join(root, 'work');
  const runnerTemp = join(root, 'temp');
  const run = runWorkflowJob('.github/workflows/prompt-gate.yml', 'gate', { pullRequest: { number: 1, baseSha, mergeSha, originUrl }, workspace, runnerTemp, actionPath: resolve('.') });
  return { run, workspace, runnerTemp, baseSha };
}

const failures = (run: WorkflowRun) => run.steps.filter((s) => s.code !== 0).map((s) => `${s.name}: exit ${s.code}\n${s.stdout}\n${s.stderr}`).join('\n');

describe('the prompt gate workflow on a pull request, as GitHub Actions runs it', () => {
  it('one commit checked out, the base fetched by the gate, SHIP decided, the job summary and the report written', { timeout: 300_000 }, () => {
    const { run, workspace, runnerTemp, baseSha } = runGate(HOMES_WITH_RULE);
    expect(failures(run)).toBe('');
    expect(run.success).toBe(true);
    // The checkout was one commit deep: the base came in through the gate's own fetch.
    expect(execFileSync('git', ['rev-parse', '--is-shallow-repository'], { cwd: workspace, encoding: 'utf8' }).trim()).toBe('true');
    expect(readFileSync(join(workspace, '.git/shallow'), 'utf8')).toContain(baseSha);

    const summary = readFileSync(run.summaryFile, 'utf8');
    expect(summary).toMatch(/^### Prompt gate: ✅ SHIP — `examples\/homes\/homes\.prompty` \(homes-assistant\)/m);
    expect(summary).toContain('| revision | adherence | TTFT p50 | TTFT p90 | E2E p50 | E2E p90 | prompt tokens | runs |');
    expect(summary).toMatch(new RegExp(`\\| \`${baseSha.slice(0, 7)}\` base — Homes assistant \\| \\d+/\\d+ \\d+%`));
    // The gate stops once the head's case is settled; the base's own SLO may still be open then
    // (compare shuffles the runs, so the simulator's seeded answers fall in a different order each time).
    expect(summary).toMatch(/\| adherence ≥ 50% \| (broken|unclear) \d+% \[\d+%–\d+%\] \(n = \d+\) \| met \d+% \[\d+%–\d+%\] \(n = \d+\) \|/);
    // GitHub renders it: the table is a table.
    const html = new MarkdownIt().render(summary);
    expect(html).toMatch(/<table>[\s\S]*<th>revision<\/th>[\s\S]*<td><code>[0-9a-f]{7}<\/code> base/);

    const [artifact] = run.artifacts;
    expect(artifact).toEqual({ name: 'prompt-gate-report', path: join(runnerTemp, 'prompt-gate') });
    const files = readdirSync(artifact!.path).sort();
    expect(files).toEqual(expect.arrayContaining(['examples_homes_homes.prompty.html', 'examples_homes_homes.prompty.junit.xml', 'examples_homes_homes.prompty.txt', 'runs.jsonl']));
    const junit = readFileSync(join(artifact!.path, 'examples_homes_homes.prompty.junit.xml'), 'utf8');
    expect(XMLValidator.validate(junit)).toBe(true);
    const suite = new XMLParser({ ignoreAttributes: false }).parse(junit).testsuites;
    expect(suite['@_failures']).toBe('0');
    expect(suite.testsuite.properties.property).toEqual(expect.arrayContaining([{ '@_name': 'decision', '@_value': 'ship' }]));
    // The simulated endpoint was stopped by the action's last step.
    expect(existsSync(join(runnerTemp, 'prompt-gate-sim.pid'))).toBe(false);
  });

  it('a pull request that drops the rule is held: the job fails and the summary says why', { timeout: 300_000 }, () => {
    const { run } = runGate(HOMES_WITHOUT_RULE.replace('You are a real-estate assistant', 'You are a real estate assistant'));
    expect(run.success).toBe(false);
    const gate = run.steps.find((s) => s.name === 'Prompt gate' && s.code !== 0);
    expect(gate?.code).toBe(1);
    expect(gate?.stdout).toMatch(/::error file=examples\/homes\/homes\.prompty::prompt gate: examples\/homes\/homes\.prompty did not pass/);
    const summary = readFileSync(run.summaryFile, 'utf8');
    expect(summary).toMatch(/^### Prompt gate: (❌ HOLD|⚠️ INSUFFICIENT EVIDENCE)/m);
    expect(summary).toContain('**Why**');
  });
});
