/**
 * `compare --until-decided [--max-runs N]` through the built CLI on the homes case (a real git repo,
 * the HTTP simulator): the README's CI recipe ships the fix by itself, says each batch's decision and
 * the runs spent, stops at the cap when it cannot decide (and the gate fails closed), and refuses
 * flags that make no sense.
 */
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseScenario } from '../../src/core/sim/scenario';
import { startSim, type RunningSim } from '../../src/core/sim/simServer';
import { runCli } from '../fixtures/cli';
import type { TestRepo } from '../fixtures/gitRepo';
import { homesRepo } from '../fixtures/homesRepo';

let sim: RunningSim;
let repo: TestRepo;
let a: string;
beforeAll(async () => {
  sim = await startSim({ ttftBaseMs: 20, decodeMsPerToken: 1, jitterMs: 3, scenario: parseScenario(readFileSync('examples/homes/homes.sim.yaml', 'utf8')) });
  ({ repo, a } = homesRepo());
});
afterAll(async () => sim.close());

describe('compare --until-decided', () => {
  it("the README's CI recipe: the homes fix ships by itself, each batch's decision and the runs spent on stderr", async () => {
    const { code, stdout, stderr } = await runCli(['compare', 'homes.prompty', '--base', a.slice(0, 8), '--head', 'HEAD', '--until-decided', '--endpoint', sim.url, '--concurrency', '8', '--fail-on-regression'], repo.root);
    expect(stderr).toMatch(/test case\(s\) × 10 runs each, then more until decided \(at most 200\)/);
    expect(stderr).toMatch(/^ {2}batch 1: 10 runs per test case \(20 runs spent\) — insufficient evidence: SLO E2E latency p90 ≤ 30 s not established for [0-9a-f]{7}: 0 of 10 runs above 30\.00 s/m);
    expect(stderr).toMatch(/batch \d+: (\d+) runs per test case \(\d+ runs spent\) — ship: /);
    expect(code, stderr).toBe(0);
    expect(stdout).toMatch(/Run until decided: decided \(ship\) after \d+ runs per test case, \d+ runs spent in \d+ batches; anytime-valid statistics/);
    expect(stdout).toMatch(/SHIP: [0-9a-f]{7}/);
    expect(stdout).toMatch(/0 of \d+ runs above 30\.00 s: E2E latency p90 ≤ 30 s holds with 95% confidence \(anytime-valid\)/);
  });

  it('JSON: the summary, anytime-valid verdicts; a question it cannot settle stops at --max-runs and the gate fails closed', async () => {
    // An E2E p99 SLO with every run far inside it: an anytime-valid bound needs about 300 runs to establish a p99,
    // so at the cap of 34 it is unsettled whatever the answers (a 99% adherence floor could be shown broken by
    // two or three of the fix's ~2% misses, about 1 run in 25). The paired verdict is settled long before:
    // compare shuffles base and head runs (Math.random), so which seeded answer each run gets varies; at 34 runs
    // (the third batch) the fix's ~27 discordant pairs settle 'better' every time (at 16 a busy CI drew no-difference).
    const { code, stdout } = await runCli(['compare', 'homes.prompty', '--base', a.slice(0, 8), '--head', 'HEAD', '--until-decided', '--max-runs', '34', '--slo', 'e2eMs.p99<=30000', '--endpoint', sim.url, '--concurrency', '1', '--json', '--fail-on-regression'], repo.root);
    expect(code).toBe(1);
    const json = JSON.parse(stdout);
    expect(json.statistics).toBe('anytime');
    expect(json.untilDecided).toMatchObject({ runsPerCase: 34, maxRunsPerCase: 34, stoppedBy: 'cap', runsSpent: 68 });
    expect(json.rollout.decision).toBe('insufficient');
    expect(json.rollout.reasons.join('\n')).toMatch(/E2E latency p99 ≤ 30 s not established/);
    expect(json.verdicts.find((v: { metric: string }) => v.metric === 'adherence')).toMatchObject({ test: 'sequential-pairs', verdict: 'better' });
  });

  it('--max-runs without --until-decided, or below --runs, is a usage error', async () => {
    const alone = await runCli(['compare', 'homes.prompty', '--base', a.slice(0, 8), '--head', 'HEAD', '--max-runs', '50', '--endpoint', sim.url], repo.root);
    expect(alone.code).toBe(2);
    expect(alone.stderr).toMatch(/--max-runs caps run-until-decided: give it with --until-decided/);
    const below = await runCli(['compare', 'homes.prompty', '--base', a.slice(0, 8), '--head', 'HEAD', '--until-decided', '--runs', '30', '--max-runs', '20', '--endpoint', sim.url], repo.root);
    expect(below.code).toBe(2);
    expect(below.stderr).toMatch(/--max-runs \(20\) is below --runs \(30\)/);
  });
});
