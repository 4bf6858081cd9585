/**
 * Decisions that rest on a judge know whether to trust it: `compare` cards every judged check against
 * people's labels as the base revision has them. The homes `.prompt.yml` (its GitHub `llm` evaluator is
 * the judged check), a real git repository, the simulator as model and judge on loopback, the CLI as a
 * child process. A head that changes nothing that matters would ship; without labels (or with labels
 * only the pull request brings) the judge is not trusted and the gate fails closed; with people's
 * labels that the judge agrees with, or with --accept-judge, it ships and says why.
 */
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseScenario } from '../../src/core/sim/scenario';
import { startSim, type RunningSim } from '../../src/core/sim/simServer';
import { TestRepo } from '../fixtures/gitRepo';
import { runCli } from '../fixtures/cli';
import { correctedPassRate, judgeAgreement } from '../../src/core/stats/judgeTrust';

const CHECK = 'Lists only single-family houses';
const PROMPT = readFileSync('examples/homes/homes.prompt.yml', 'utf8');
// The head: one more word in the instructions (the same answers, so nothing regresses).
const HEAD = PROMPT.replace('You are a real-estate assistant', 'Be brief. You are a real-estate assistant');
const HOUSE = '1. Single-family house · $1,150,000 · 14820 NE 8th St, Bellevue';
const MIXED = ['1. Apartment · $620,000 · 10650 NE 9th Pl #1204, Bellevue', '1. Condo · $575,000 · 989 112th Ave NE #1802, Bellevue', '1. Townhouse · $845,000 · 2207 140th Ave NE #42, Bellevue'];

/** People's labels the simulator's judge agrees with: 35 passes and 35 fails (TPR and TNR ≥ 90% lower bounds). */
function labels(): string {
  const lines: string[] = [];
  const add = (answer: string, label: string) => lines.push(JSON.stringify({ check: CHECK, vars: { n: lines.length }, answer: `${answer}\n(listing ${lines.length})`, label, source: 'HUMAN', author: 'Ada <ada@example.com>', time: '2026-12-06T21:04:05Z' }));
  for (let i = 0; i < 35; i++) add(HOUSE, 'pass');
  for (let i = 0; i < 35; i++) add(MIXED[i % 3]!, 'fail');
  return `${lines.join('\n')}\n`;
}

let sim: RunningSim;
beforeAll(async () => {
  sim = await startSim({ ttftBaseMs: 20, decodeMsPerToken: 0, jitterMs: 0, scenario: parseScenario(readFileSync('examples/homes/homes.sim.yaml', 'utf8')) } as Parameters<typeof startSim>[0]);
});
afterAll(async () => sim.close());

const compare = (repo: TestRepo, extra: string[] = []) =>
  runCli(['compare', 'homes.prompt.yml', '--base', 'HEAD', '--head', 'working', '--runs', '20', '--endpoint', sim.url, '--judge-endpoint', sim.url, '--judge-model', 'sim', '--no-store', '--fail-on-regression', '--json', ...extra], repo.root);

describe('a decision that rests on a judge', () => {
  it('without labels the judge is not trusted: the change is not shipped on it, and the gate fails closed', async () => {
    const repo = new TestRepo();
    repo.commit('Homes', { 'homes.prompt.yml': PROMPT });
    repo.write('homes.prompt.yml', HEAD);
    const { code, stdout } = await compare(repo);
    const json = JSON.parse(stdout);
    expect(json.judgeTrust).toEqual([{ check: CHECK, trusted: false, accepted: false, why: 'no labels file beside the prompt' }]);
    expect(json.rollout.decision).toBe('insufficient');
    expect(json.rollout.reasons[0]).toBe(`judge not trusted for ${CHECK} (no labels file beside the prompt): its verdicts do not ship a change — label more of its answers (Review Answers…) or accept it by name (--accept-judge)`);
    expect(code).toBe(1);
  });

  it('run until decided stops after the first batch: more runs cannot make an untrusted judge trusted', async () => {
    const repo = new TestRepo();
    repo.commit('Homes', { 'homes.prompt.yml': PROMPT });
    repo.write('homes.prompt.yml', HEAD);
    const { code, stdout } = await compare(repo, ['--until-decided', '--max-runs', '200']);
    const json = JSON.parse(stdout);
    expect(json.rollout.decision).toBe('insufficient');
    expect(json.untilDecided).toMatchObject({ batches: 1, stoppedBy: 'decided', runsPerCase: 20 });
    expect(code).toBe(1);
  });

  it('labels the pull request brings do not count: the base revision has none', async () => {
    const repo = new TestRepo();
    repo.commit('Homes', { 'homes.prompt.yml': PROMPT });
    repo.write('homes.prompt.yml', HEAD);
    repo.write('homes.labels.jsonl', labels());
    const { code, stdout } = await compare(repo);
    const json = JSON.parse(stdout);
    // Read from the base revision, which has no labels file: the working copy's is not looked at.
    expect(json.judgeTrust[0]).toMatchObject({ trusted: false, why: 'no labels file beside the prompt' });
    expect(json.rollout.decision).toBe('insufficient');
    expect(code).toBe(1);
  });

  it("with people's labels in the base that the judge agrees with, it is trusted and the change ships, saying so", async () => {
    const repo = new TestRepo();
    repo.commit('Homes', { 'homes.prompt.yml': PROMPT, 'homes.labels.jsonl': labels() });
    repo.write('homes.prompt.yml', HEAD);
    const { code, stdout } = await compare(repo);
    const json = JSON.parse(stdout);
    expect(json.judgeTrust).toEqual([{ check: CHECK, trusted: true, accepted: false, why: 'TPR ≥ 90%, TNR ≥ 90% on 70 labels (35 fail, 35 pass): both at or above 80% (95% lower bounds)' }]);
    expect(json.rollout.decision).toBe('ship');
    expect(json.rollout.reasons).toContain(`judge trusted for ${CHECK} (TPR ≥ 90%, TNR ≥ 90% on 70 labels (35 fail, 35 pass): both at or above 80% (95% lower bounds))`);
    expect(code).toBe(0);
    // Each revision's pass rate of the judged check, raw and corrected for the judge's error measured on the 70 labels.
    expect(json.correctedRates.map((r: { label: string }) => r.label)).toEqual([json.revisions[0].label, 'working copy']);
    for (const rate of json.correctedRates) {
      expect(rate.check).toBe(CHECK);
      expect(rate.judged).toBe(40);
      expect(rate.raw.value).toBeCloseTo(rate.passed / 40, 12);
      // The judge agreed with people on all 35 fails and 35 passes.
      const agreement = judgeAgreement([...Array.from({ length: 35 }, () => ({ human: 'fail' as const, judge: 'fail' as const })), ...Array.from({ length: 35 }, () => ({ human: 'pass' as const, judge: 'pass' as const }))]);
      expect(rate.corrected).toEqual(correctedPassRate(rate.passed, 40, agreement).corrected);
      // A judge that errs sometimes makes the corrected interval wider than the raw one.
      expect(rate.corrected.ci95[1] - rate.corrected.ci95[0]).toBeGreaterThan(rate.raw.ci95[1] - rate.raw.ci95[0]);
    }
    const text = await runCli(['compare', 'homes.prompt.yml', '--base', 'HEAD', '--head', 'working', '--runs', '20', '--endpoint', sim.url, '--judge-endpoint', sim.url, '--judge-model', 'sim', '--no-store'], repo.root);
    expect(text.stdout).toMatch(new RegExp(`working copy +${CHECK}: \\d+/40 passed by the judge \\d+% \\[\\d+%–\\d+%\\] · corrected for its error \\d+% \\[\\d+%–\\d+%\\]`));
    // A stricter bar than the labels support: not trusted.
    const strict = await compare(repo, ['--judge-min-labels', '40']);
    expect(JSON.parse(strict.stdout).rollout.decision).toBe('insufficient');
    expect(strict.code).toBe(1);
  });

  it('--accept-judge ships on an untrusted judge and states it; a check that is not judged is a usage error', async () => {
    const repo = new TestRepo();
    repo.commit('Homes', { 'homes.prompt.yml': PROMPT });
    repo.write('homes.prompt.yml', HEAD);
    const { code, stdout } = await compare(repo, ['--accept-judge', CHECK]);
    const json = JSON.parse(stdout);
    expect(json.rollout.decision).toBe('ship');
    expect(json.rollout.reasons).toContain(`judge accepted for ${CHECK} although not trusted (no labels file beside the prompt): accepted by the user, so its verdicts count`);
    expect(code).toBe(0);
    const wrong = await compare(repo, ['--accept-judge', 'Mentions the price']);
    expect(wrong.code).toBe(2);
    expect(wrong.stderr).toContain(`--accept-judge 'Mentions the price': the judging tests have no judged check of that name (${CHECK})`);
  });
});
