/**
 * Trust cards against a real judge endpoint: the bundled simulator, whose homes scenario answers the
 * GitHub `llm` evaluator of examples/homes/homes.prompt.yml ("yes" unless the listing names another
 * property type), over HTTP on loopback. People's labels are the truth; two of them are wrong on
 * purpose, and the card lists exactly those as disagreements (issue 40, point 3).
 */
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import type { Label } from '../../../src/core/adherence/labelsFile';
import type { Assertion } from '../../../src/core/adherence/testCases';
import { trustCardOf } from '../../../src/core/adherence/trustCard';
import { httpTransport } from '../../../src/core/endpoint/transport';
import { transportJudge } from '../../../src/core/run/transportJudge';
import { parseScenario } from '../../../src/core/sim/scenario';
import { startSim, type RunningSim } from '../../../src/core/sim/simServer';

let sim: RunningSim;
beforeAll(async () => {
  sim = await startSim({ ttftBaseMs: 1, decodeMsPerToken: 0, jitterMs: 0, scenario: parseScenario(readFileSync('examples/homes/homes.sim.yaml', 'utf8')) } as Parameters<typeof startSim>[0]);
});
afterAll(async () => sim.close());

// The evaluator as homes.prompt.yml declares it.
const evaluator = (parse(readFileSync('examples/homes/homes.prompt.yml', 'utf8')) as { evaluators: { name: string; llm?: { prompt: string; choices: { choice: string; score: number }[] } }[] }).evaluators.find((e) => e.llm)!;
const assertion: Assertion = { type: 'llm-choice', negate: false, weight: 1, label: evaluator.name, judge: { prompt: evaluator.llm!.prompt, choices: evaluator.llm!.choices } };

const HOUSES = '1. Single-family house · $1,150,000 · 14820 NE 8th St, Bellevue\n2. Single-family house · $985,000 · 12021 SE 60th St, Bellevue';
const MIXED = ['1. Apartment · $620,000 · 10650 NE 9th Pl #1204, Bellevue', '1. Condo · $575,000 · 989 112th Ave NE #1802, Bellevue', '1. Townhouse · $845,000 · 2207 140th Ave NE #42, Bellevue'];

function labels(): Label[] {
  const out: Label[] = [];
  const add = (answer: string, label: 'pass' | 'fail', source: Label['source'] = 'HUMAN') =>
    out.push({ check: evaluator.name, vars: { city: 'Bellevue, WA', n: out.length }, answer: `${answer}\n(listing ${out.length})`, label, source, author: 'Ada <ada@example.com>', time: '2026-12-06T21:04:05Z', line: out.length + 1 });
  for (let i = 0; i < 35; i++) add(HOUSES, 'pass');
  for (let i = 0; i < 35; i++) add(MIXED[i % 3]!, 'fail');
  // Two people's mistakes: a townhouse passed. And labels that are not the truth here: a judge's own, another check's.
  add(MIXED[2]!, 'pass');
  add(MIXED[2]!, 'pass');
  add(MIXED[0]!, 'pass', 'LLM');
  out.push({ ...out[0]!, check: 'Mentions single-family houses', line: out.length + 1 });
  return out;
}

describe('a trust card for a judged check', () => {
  it('asks the judge about every answer people labelled for the check, and sets its verdicts against theirs', async () => {
    const judge = transportJudge(httpTransport({ name: 'sim', provider: 'openai', baseUrl: sim.url, simulated: true }, undefined), 'sim', 10_000);
    const served = sim.served();
    const card = await trustCardOf(assertion, labels(), judge);
    // 72 HUMAN labels of this check: the LLM's label and the other check's are not asked about.
    expect(sim.served() - served).toBe(72);
    expect(card.agreement).toMatchObject({ n: 72, fails: 35, passes: 37, disagreements: 2, tpr: { successes: 35, trials: 35 }, tnr: { successes: 35, trials: 37 } });
    expect(card.disagreements.map((d) => [d.line, d.human, d.judge])).toEqual([[71, 'pass', 'fail'], [72, 'pass', 'fail']]);
    expect(card.disagreements[0]!.reason).toBe("the judge chose 'no' (score 0, pass at 0.5)");
    // TNR 35/37 has a Wilson lower bound of 82%: over the 80% bar, with 35 fails and 37 passes labelled.
    expect(card.trusted).toBe(true);
    expect(card.why).toBe('TPR ≥ 90%, TNR ≥ 82% on 72 labels (35 fail, 37 pass): both at or above 80% (95% lower bounds)');
    expect(card.undecided).toEqual({ count: 0 });
  });

  it('a judge endpoint that does not answer decides nothing: every label undecided, and the judge is not trusted', async () => {
    const gone = transportJudge(httpTransport({ name: 'gone', provider: 'openai', baseUrl: 'http://127.0.0.1:9/v1', simulated: false }, undefined), 'sim', 2_000);
    const card = await trustCardOf(assertion, labels().slice(0, 4), gone);
    expect(card.agreement.n).toBe(0);
    expect(card.undecided.count).toBe(4);
    expect(card.undecided.firstReason).toMatch(/^the judge failed: /);
    expect(card).toMatchObject({ trusted: false, why: 'TPR ≥ 0%, TNR ≥ 0% on 0 labels (0 fail, 0 pass): too few labels — 30 labelled passes and 30 fails are needed' });
  });
});

describe('agreement between people', () => {
  it("gives the κ of the two reviewers who labelled the most answers in common (a reviewer's later label wins)", async () => {
    const { reviewerAgreement } = await import('../../../src/core/adherence/trustCard');
    const out: Label[] = [];
    const add = (author: string, n: number, label: 'pass' | 'fail') => out.push({ check: 'c', vars: { n }, answer: `answer ${n}`, label, source: 'HUMAN', author, time: '2026-12-07T01:00:00Z', line: out.length + 1 });
    // Ada and Bo on 20 answers: both fail 6, both pass 11, Ada fail / Bo pass 2, Ada pass / Bo fail 1.
    const plan: ['fail' | 'pass', 'fail' | 'pass', number][] = [['fail', 'fail', 6], ['pass', 'pass', 11], ['fail', 'pass', 2], ['pass', 'fail', 1]];
    let n = 0;
    for (const [ada, bo, count] of plan) for (let i = 0; i < count; i++, n++) {
      add('Ada', n, ada);
      add('Bo', n, bo);
    }
    // Cy shares three answers with Ada; Ada first said "pass" on answer 0, then "fail" (the later label wins).
    for (let i = 0; i < 3; i++) add('Cy', i, 'fail');
    out.unshift({ ...out[0]!, label: 'pass', line: 0 });
    const agreement = reviewerAgreement(out, 'c')!;
    expect(agreement.authors).toEqual(['Ada', 'Bo']);
    expect(agreement.shared).toBe(20);
    expect(agreement.agreement).toBeCloseTo(0.85, 12);
    // κ = (pₒ − pₑ)/(1 − pₑ), pₑ = (8·7 + 12·13)/400 = 0.53.
    expect(agreement.kappa).toBeCloseTo((0.85 - 0.53) / (1 - 0.53), 12);
    expect(reviewerAgreement(out.filter((l) => l.author === 'Ada'), 'c')).toBeUndefined();
  });
});
