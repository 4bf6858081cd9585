/** `prompt-insight history | compare` on the homes case: a real git repo, the simulator, the CLI as a child process. */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseScenario } from '../../src/core/sim/scenario';
import { startSim, type RunningSim } from '../../src/core/sim/simServer';
import { homesRepo } from '../fixtures/homesRepo';
import type { TestRepo } from '../fixtures/gitRepo';
import { runCli } from '../fixtures/cli';

const cli = (args: string[], cwd: string) => runCli(args, cwd, { maxBuffer: 64 * 1024 * 1024 });

let sim: RunningSim;
let repo: TestRepo;
let a: string;
let b: string;
beforeAll(async () => {
  // A TTFT of 300 ms puts the 5% practical margin (~18 ms of E2E) far above a busy machine's timer noise,
  // so "latency barely moves" holds however loaded the cores are.
  sim = await startSim({ ttftBaseMs: 300, decodeMsPerToken: 1, jitterMs: 3, scenario: parseScenario(readFileSync('examples/homes/homes.sim.yaml', 'utf8')) });
  ({ repo, a, b } = homesRepo());
});
afterAll(async () => sim.close());

describe('prompt-insight history', () => {
  it('lists the revisions as JSON', async () => {
    const { code, stdout } = await cli(['history', 'homes.prompty', '--json'], repo.root);
    expect(code).toBe(0);
    const rows = JSON.parse(stdout);
    expect(rows.map((r: { rev: string }) => r.rev)).toEqual([b, a]);
    expect(rows[0]).toEqual({ rev: b, date: expect.any(String), author: 'Test Author', subject: 'Define "homes" as single-family houses', path: 'homes.prompty' });
  });
});

describe('prompt-insight compare', () => {
  it('the homes case: adherence rises significantly, latency barely moves, no regression; runs are reused', async () => {
    // 40 runs: the fewest that can bound a p90 from above (the decision scenario's E2E SLO); an adherence
    // floor of 50% that ~90% passing clears at that size ("ship" means the head meets every SLO).
    const args = ['compare', 'homes.prompty', '--base', a.slice(0, 8), '--head', 'HEAD', '--runs', '40', '--slo', 'adherence>=0.5', '--endpoint', sim.url, '--json', '--store', 'runs.jsonl', '--report', 'report.html', '--fail-on-regression'];
    const { code, stdout, stderr } = await cli(args, repo.root);
    expect(stderr).toBe('');
    expect(code).toBe(0);
    const json = JSON.parse(stdout);
    const [revA, revB] = json.revisions;
    expect(revA).toMatchObject({ rev: a, path: 'homes.prompty', adherence: { total: 40, unscored: 0 } });
    expect(revB).toMatchObject({ rev: b, adherence: { total: 40, unscored: 0 } });
    expect(revB.adherence.rate).toBeGreaterThan(revA.adherence.rate);
    expect(revB.tokens).toBeGreaterThan(revA.tokens);
    // The interval holds the rate and is not a point (the base may pass 0 of 40, where its lower bound is 0).
    expect(revA.adherence.ci95[0]).toBeLessThanOrEqual(revA.adherence.rate);
    expect(revA.adherence.ci95[1]).toBeGreaterThan(revA.adherence.rate);
    expect(revA.ttftMs).toMatchObject({ n: 40, p99: null });
    const byMetric = Object.fromEntries(json.verdicts.map((v: { metric: string }) => [v.metric, v]));
    expect(byMetric.adherence).toMatchObject({ base: a, head: b, verdict: 'better', test: 'fisher-exact' });
    expect(byMetric.adherence.pValue).toBeLessThan(0.05);
    expect(byMetric.ttftMs.verdict).toBe('no-difference');
    expect(json.noRegression, JSON.stringify(json.verdicts)).toBe(true);
    // Real estate is declared a decision scenario in homes.tests.yaml (at the base revision): the change ships on adherence.
    expect(json.policy).toEqual({ scenario: 'decision', scenarioSource: 'homes.tests.yaml at ' + a.slice(0, 7), slo: ['e2eMs.p90 ≤ 30000', 'adherence ≥ 0.5'], from: 'base', judgedWith: "Judged with the base's tests", retrieval: null, changes: [] });
    expect(json.rollout).toMatchObject({ decision: 'ship', scenario: 'decision', base: a, head: b });
    expect(json.rollout.reasons[0]).toMatch(/^[0-9a-f]{7} meets every SLO of the decision scenario \(E2E latency p90 ≤ 30 s, adherence ≥ 50%\)/);
    // Each case keeps its first runs in detail: the answer and every assertion's outcome and reason.
    const firstRun = revA.perCase[0].runs[0];
    expect(firstRun).toMatchObject({ status: expect.stringMatching(/^(pass|fail)$/), answer: expect.stringContaining('Bellevue') });
    expect(firstRun.assertions.map((x: { outcome: string }) => x.outcome)).toEqual(expect.arrayContaining([expect.stringMatching(/^(pass|fail)$/)]));
    expect(json.rollout.reasons.join('\n')).toMatch(/adherence \+\d+ pts, p [=<] [\d.]+ — better/);
    // Fresh runs of both revisions are interleaved in one time window, not A's then B's.
    const order: string[] = json.timeline.runs.map((r: { revision: string }) => r.revision);
    expect(order).toHaveLength(80);
    expect(order.slice(0, 40)).toContain(a);
    expect(order.slice(0, 40)).toContain(b);
    expect(json.timeline.runs.every((r: { t: number }, i: number, all: { t: number }[]) => i === 0 || r.t >= all[i - 1]!.t)).toBe(true);
    expect(json.simulated).toBe(true);
    expect(existsSync(join(repo.root, 'report.html'))).toBe(true);
    const report = readFileSync(join(repo.root, 'report.html'), 'utf8');
    expect(report).toContain("default-src 'none'");
    expect(report).toContain('"noRegression":true');
    // Same key (content, endpoint, model, parameters): told to, the second comparison reuses every run.
    const served = sim.served();
    const again = JSON.parse((await cli([...args, '--reuse-stored'], repo.root)).stdout);
    expect(sim.served()).toBe(served);
    expect(again.revisions[0].runsReused).toBe(40);
    expect(Date.parse(again.revisions[0].reusedSince)).toBeGreaterThan(Date.now() - 10 * 60_000);
    expect(again.timeline).toBeNull();
    // Stored runs older than the freshness window are measured again.
    const stale = JSON.parse((await cli([...args, '--reuse-stored', '--max-age-hours', '0'], repo.root)).stdout);
    expect(stale.revisions[0]).toMatchObject({ runsReused: 0, runsNew: 40 });
    // A gate (--fail-on-regression) decides on fresh runs unless told otherwise.
    const gate = JSON.parse((await cli(args, repo.root)).stdout);
    expect(gate.revisions[0]).toMatchObject({ runsNew: 40, runsReused: 0 });
    const withoutGate = args.filter((a) => a !== '--fail-on-regression');
    expect(JSON.parse((await cli(withoutGate, repo.root)).stdout).revisions[0].runsReused).toBe(40);
  });

  it('--fail-on-regression exits 1 when head is significantly worse', async () => {
    const { code, stdout } = await cli(['compare', 'homes.prompty', '--base', b, '--head', a, '--runs', '30', '--endpoint', sim.url, '--no-store', '--fail-on-regression'], repo.root);
    expect(stdout).toMatch(/WORSE\s+adherence -\d+ pts, p [=<] /);
    expect(stdout).toMatch(/HOLD: \w+ \(vs \w+\)\n  - adherence -\d+ pts, p [=<] [\d.]+ — significantly worse/);
    expect(code).toBe(1);
  });

  it('--fail-on-regression fails closed: too few runs to decide is exit 1 (insufficient), not a pass', async () => {
    const { code, stdout, stderr } = await cli(['compare', 'homes.prompty', '--base', a, '--head', b, '--runs', '1', '--endpoint', sim.url, '--no-store', '--fail-on-regression'], repo.root);
    expect(stdout).toContain('INSUFFICIENT EVIDENCE');
    expect(stderr).toContain('--fail-on-regression: INSUFFICIENT');
    expect(code).toBe(1);
  });

  it('the scenario decides whether a real latency cost blocks: the rule adds ~20 ms of prefill', async () => {
    // An endpoint where every prompt token costs 1.5 ms of prefill: the head's longer prompt is slower, for real.
    const slow = await startSim({ ttftBaseMs: 150, prefillMsPerInputToken: 1.5, decodeMsPerToken: 1, jitterMs: 2, scenario: parseScenario(readFileSync('examples/homes/homes.sim.yaml', 'utf8')) });
    try {
      const run = async (scenario: string) => {
        const result = await cli(['compare', 'homes.prompty', '--base', a, '--head', b, '--runs', '40', '--slo', 'adherence>=0.5', '--endpoint', slow.url, '--no-store', '--json', '--scenario', scenario, '--fail-on-regression'], repo.root);
        return { code: result.code, json: JSON.parse(result.stdout) };
      };
      const decision = await run('decision');
      const ttft = decision.json.verdicts.find((v: { metric: string }) => v.metric === 'ttftMs');
      expect(ttft.verdict).toBe('worse');
      expect(decision.json.rollout.decision).toBe('ship');
      expect(decision.json.rollout.reasons.join('\n')).toMatch(/TTFT \+\d+ ms \(median\), p [=<] [\d.]+ — worse, not blocking: strict-decision work tolerates latency/);
      expect(decision.code).toBe(0);
      const interactive = await run('interactive');
      expect(interactive.json.policy).toMatchObject({ scenario: 'interactive', scenarioSource: '--scenario' });
      expect(interactive.json.rollout.decision).toBe('hold');
      expect(interactive.json.rollout.reasons[0]).toMatch(/^TTFT \+\d+ ms \(median\), p [=<] [\d.]+ — significantly worse beyond the margin; interactive use gates/);
      expect(interactive.code).toBe(1);
    } finally {
      await slow.close();
    }
  });

  it('a misspelt scenario or SLO is a usage error before any run', async () => {
    const before = sim.served();
    expect(await cli(['compare', 'homes.prompty', '--base', a, '--head', b, '--endpoint', sim.url, '--scenario', 'chat'], repo.root)).toMatchObject({ code: 2, stderr: expect.stringContaining('scenario must be one of interactive, batch, decision') });
    expect(await cli(['compare', 'homes.prompty', '--base', a, '--head', b, '--endpoint', sim.url, '--slo', 'ttft<1000'], repo.root)).toMatchObject({ code: 2, stderr: expect.stringContaining("--slo 'ttft<1000'") });
    expect(await cli(['compare', 'homes.prompty', '--base', a, '--head', b, '--endpoint', sim.url, '--slo', 'ttftMs.p42<=10'], repo.root)).toMatchObject({ code: 2, stderr: expect.stringContaining("unknown percentile 'p42'") });
    expect(sim.served()).toBe(before);
  });

  it('clear errors for bad revisions and missing tests', async () => {
    expect(await cli(['compare', 'homes.prompty', '--base', 'nope', '--head', 'HEAD', '--endpoint', sim.url], repo.root)).toMatchObject({ code: 1, stderr: expect.stringContaining("'nope' is not a commit") });
    expect(await cli(['compare', 'homes.prompty', '--base', '--output=x', '--head', 'HEAD', '--endpoint', sim.url], repo.root)).toMatchObject({ code: 2 });
    expect(await cli(['compare', 'homes.prompty', '--head', 'HEAD', '--endpoint', sim.url], repo.root)).toMatchObject({ code: 2, stderr: expect.stringContaining('--base and --head are required') });
  });
});
