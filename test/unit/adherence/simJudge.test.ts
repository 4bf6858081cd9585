/**
 * The simulator's judge of known error rates (a scenario's `judge:` block), over HTTP on loopback, set
 * against a held-out labelled set whose truth the judge's rule defines: the trust card's 95% intervals
 * cover the judge's true sensitivity and specificity (0.85, 0.70); a judge of 0.70 is reported untrusted,
 * a judge of 0.97 trusted. Fixed seeds: the same verdicts every run (the coverage of the intervals over
 * 1,000 seeded studies is test/unit/stats/judgeTrust.test.ts's).
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { Label } from '../../../src/core/adherence/labelsFile';
import type { Assertion } from '../../../src/core/adherence/testCases';
import { trustCardOf } from '../../../src/core/adherence/trustCard';
import { httpTransport } from '../../../src/core/endpoint/transport';
import { transportJudge } from '../../../src/core/run/transportJudge';
import { parseScenario } from '../../../src/core/sim/scenario';
import { startSim, type RunningSim } from '../../../src/core/sim/simServer';

const rubric: Assertion = { type: 'llm-rubric', negate: false, weight: 1, label: 'houses only', value: 'Lists only single-family houses' };

/** 150 answers people failed (they name a condo) and 150 they passed. */
function heldOut(): Label[] {
  const out: Label[] = [];
  for (let i = 0; i < 300; i++) {
    const fails = i % 2 === 0;
    out.push({ check: 'houses only', vars: { n: i }, answer: fails ? `${i}. Condo · $575,000` : `${i}. Single-family house · $1,150,000`, label: fails ? 'fail' : 'pass', source: 'HUMAN', author: 'Ada', time: '2026-12-07T01:00:00Z', line: i + 1 });
  }
  return out;
}

let sim: RunningSim | undefined;
afterEach(async () => sim?.close());

async function cardFor(sensitivity: number, specificity: number, seed: number) {
  const scenario = parseScenario(`judge:\n  failsWhenAnswerContains: [condo]\n  sensitivity: ${sensitivity}\n  specificity: ${specificity}\nanswers: [ok]\n`);
  sim = await startSim({ ttftBaseMs: 1, decodeMsPerToken: 0, jitterMs: 0, seed, scenario } as Parameters<typeof startSim>[0]);
  const judge = transportJudge(httpTransport({ name: 'sim', provider: 'openai', baseUrl: sim.url, simulated: true }, undefined), 'sim', 10_000);
  return trustCardOf(rubric, heldOut(), judge);
}

describe("the simulator's judge of known error rates", () => {
  it.each([0.85, 0.7])('a judge of sensitivity = specificity = %s: both intervals cover it', async (odds) => {
    const card = await cardFor(odds, odds, 1);
    expect(card.agreement).toMatchObject({ n: 300, fails: 150, passes: 150 });
    expect(card.undecided.count).toBe(0);
    for (const r of [card.agreement.tpr, card.agreement.tnr]) {
      expect(r.ci95![0]).toBeLessThanOrEqual(odds);
      expect(r.ci95![1]).toBeGreaterThanOrEqual(odds);
    }
  });

  it('a judge below the bar (0.70) is not trusted; one well above it (0.97) is', async () => {
    const low = await cardFor(0.7, 0.7, 1);
    expect(low.trusted).toBe(false);
    expect(low.why).toMatch(/: both under the bar of 80% \(95% lower bounds; both must reach it\)$/);
    await sim?.close();
    sim = undefined;
    const high = await cardFor(0.97, 0.97, 1);
    expect(high.trusted).toBe(true);
  });

  it('a scenario judge block that is wrong is a clear error', () => {
    expect(() => parseScenario('judge:\n  failsWhenAnswerContains: []\nanswers: [ok]\n')).toThrow('scenario: judge.failsWhenAnswerContains must be a phrase or a list of phrases');
    expect(() => parseScenario('judge:\n  failsWhenAnswerContains: condo\n  sensitivity: 1.5\nanswers: [ok]\n')).toThrow('scenario: judge.sensitivity must be a number from 0 to 1');
  });
});
