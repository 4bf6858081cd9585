/**
 * `prompt-insight judge-check`: the built CLI, the bundled simulator as the judge over HTTP, and a
 * labels file beside a copy of examples/homes/homes.prompt.yml (its GitHub `llm` evaluator is the
 * judged check). People labelled 72 answers; two of their labels are wrong on purpose (issue 40, point 3).
 */
import { copyFileSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseScenario } from '../../src/core/sim/scenario';
import { startSim, type RunningSim } from '../../src/core/sim/simServer';
import { runCli } from '../fixtures/cli';

const CHECK = 'Lists only single-family houses';
const HOUSES = '1. Single-family house · $1,150,000 · 14820 NE 8th St, Bellevue';
const MIXED = ['1. Apartment · $620,000 · 10650 NE 9th Pl #1204, Bellevue', '1. Condo · $575,000 · 989 112th Ave NE #1802, Bellevue', '1. Townhouse · $845,000 · 2207 140th Ave NE #42, Bellevue'];

let sim: RunningSim;
let dir: string;
beforeAll(async () => {
  sim = await startSim({ ttftBaseMs: 1, decodeMsPerToken: 0, jitterMs: 0, scenario: parseScenario(readFileSync('examples/homes/homes.sim.yaml', 'utf8')) } as Parameters<typeof startSim>[0]);
  dir = mkdtempSync(join(tmpdir(), 'judge-check-'));
  copyFileSync(resolve('examples/homes/homes.prompt.yml'), join(dir, 'homes.prompt.yml'));
  const lines: string[] = [];
  const add = (answer: string, label: string) => lines.push(JSON.stringify({ check: CHECK, vars: { n: lines.length }, answer: `${answer}\n(listing ${lines.length})`, label, source: 'HUMAN', author: 'Ada <ada@example.com>', time: '2026-12-06T21:04:05Z' }));
  for (let i = 0; i < 35; i++) add(HOUSES, 'pass');
  for (let i = 0; i < 35; i++) add(MIXED[i % 3]!, 'fail');
  add(MIXED[2]!, 'pass');
  add(MIXED[2]!, 'pass');
  lines.push('{"check": "broken"');
  writeFileSync(join(dir, 'homes.labels.jsonl'), `${lines.join('\n')}\n`);
});
afterAll(async () => sim.close());

describe('prompt-insight judge-check', () => {
  it('gives the trust card of the judged check: TPR and TNR with intervals, κ, trusted, the two disagreements', async () => {
    const { code, stdout, stderr } = await runCli(['judge-check', 'homes.prompt.yml', '--judge-endpoint', sim.url, '--judge-model', 'sim', '--json'], dir);
    expect(code).toBe(0);
    // The broken last line is said (its wording after "not JSON" is Node's) and left out.
    expect(stderr).toMatch(/^warning: homes\.labels\.jsonl:73: not JSON \(.+\); left out\n/);
    // The judge's verdicts are kept in the project's state folder, which is made on first use and kept out of git.
    expect(stderr).toContain('created .prompt-insight/');
    expect(readFileSync(join(dir, '.prompt-insight', 'judge-verdicts.jsonl'), 'utf8').trim().split('\n')).toHaveLength(72);
    const json = JSON.parse(stdout);
    expect(json).toMatchObject({ prompt: expect.any(String), judge: { model: 'sim', endpoint: sim.url }, bar: { minLowerBound: 0.8, minEach: 30 } });
    expect(json.checks).toHaveLength(1);
    const [card] = json.checks;
    expect(card).toMatchObject({ check: CHECK, n: 72, fails: 35, passes: 37, tpr: { value: 1, of: 35 }, tnr: { of: 37 }, trusted: true, undecided: { count: 0 } });
    expect(card.tnr.value).toBeCloseTo(35 / 37, 12);
    expect(card.tpr.ci95[0]).toBeGreaterThan(0.8);
    expect(card.kappa).toBeGreaterThan(0.9);
    expect(card.disagreements.map((d: { line: number }) => d.line)).toEqual([71, 72]);
  });

  it('in words: trusted or not, what the judge catches and passes, and where it disagrees with people', async () => {
    const { code, stdout } = await runCli(['judge-check', 'homes.prompt.yml', '--judge-endpoint', sim.url, '--judge-model', 'sim', '--min-lower-bound', '0.9', '--no-store'], dir);
    expect(code).toBe(0);
    // TNR 35/37 has a lower bound of 82%: under a 90% bar the judge is not trusted.
    expect(stdout).toContain(`✗ not trusted — ${CHECK}`);
    expect(stdout).toMatch(/catches failures \(TPR\): 100\.0% \[90\.\d%–100\.0%\] · passes good answers \(TNR\): 94\.6% \[82\.\d%–98\.\d%\]/);
    expect(stdout).toContain("line 71: people said pass, the judge fail — the judge chose 'no' (score 0, pass at 0.5)");
    expect(stdout).toContain(`Judge: sim at ${sim.url}`);
  });

  it("keeps the judge's verdicts: a re-run asks only about new labels; a verdict file that came from elsewhere is not used", async () => {
    const store = join(dir, 'verdicts.jsonl');
    const judgeCheck = () => runCli(['judge-check', 'homes.prompt.yml', '--judge-endpoint', sim.url, '--judge-model', 'sim', '--store', store, '--json'], dir);
    let served = sim.served();
    const first = await judgeCheck();
    expect(first.code).toBe(0);
    expect(sim.served() - served).toBe(72);
    expect(JSON.parse(first.stdout).checks[0].asked).toBe(72);

    served = sim.served();
    const again = await judgeCheck();
    expect(sim.served() - served).toBe(0);
    const card = JSON.parse(again.stdout).checks[0];
    // The same card from the kept verdicts.
    expect(card).toMatchObject({ asked: 0, n: 72, trusted: true, tpr: JSON.parse(first.stdout).checks[0].tpr, tnr: JSON.parse(first.stdout).checks[0].tnr });
    expect(card.disagreements.map((d: { line: number; reason: string }) => [d.line, d.reason])).toEqual([[71, 'the judge said fail when asked earlier (kept verdict)'], [72, 'the judge said fail when asked earlier (kept verdict)']]);

    // One more label: one more question.
    const labels = join(dir, 'homes.labels.jsonl');
    const before = readFileSync(labels, 'utf8');
    writeFileSync(labels, `${before}${JSON.stringify({ check: CHECK, vars: { n: 99 }, answer: MIXED[0], label: 'fail', source: 'HUMAN', author: 'Bo <bo@example.com>', time: '2026-12-07T01:00:00Z' })}\n`);
    try {
      served = sim.served();
      const more = await judgeCheck();
      expect(sim.served() - served).toBe(1);
      expect(JSON.parse(more.stdout).checks[0]).toMatchObject({ asked: 1, n: 73 });
    } finally {
      writeFileSync(labels, before);
    }

    // A verdict file a repository could bring (lines not sealed on this machine) is not trusted: the judge is asked.
    const brought = join(dir, 'brought.jsonl');
    const forged = readFileSync(store, 'utf8').split('\n').filter(Boolean).map((line) => JSON.stringify({ ...JSON.parse(line), seal: '0'.repeat(64) }));
    writeFileSync(brought, `${forged.join('\n')}\n`);
    served = sim.served();
    const foreign = await runCli(['judge-check', 'homes.prompt.yml', '--judge-endpoint', sim.url, '--judge-model', 'sim', '--store', brought, '--json'], dir);
    expect(foreign.code).toBe(0);
    expect(sim.served() - served).toBe(72);
    expect(foreign.stderr).toMatch(/warning: .*Judge verdict store/);
  });

  it('clear errors: no judge is a usage error; no labels file says how to make one', async () => {
    const noJudge = await runCli(['judge-check', 'homes.prompt.yml'], dir);
    expect(noJudge.code).toBe(2);
    expect(noJudge.stderr).toMatch(/--judge-endpoint URL is required/);
    const noLabels = await runCli(['judge-check', 'homes.prompt.yml', '--judge-endpoint', sim.url, '--judge-model', 'sim', '--labels', 'none.labels.jsonl'], dir);
    expect(noLabels.code).toBe(1);
    expect(noLabels.stderr).toMatch(/no labels file none\.labels\.jsonl: label answers first/);
  });
});
