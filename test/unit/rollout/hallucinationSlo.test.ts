/**
 * The hallucination rate in the rollout decision (issue 25): `slo: hallucination<=0.02` judged with
 * its Wilson interval like adherence, and a change that raises the rate significantly is held in
 * every scenario — even when adherence and latency do not move.
 */
import { describe, expect, it } from 'vitest';
import { adherenceVerdict, latencyVerdict } from '../../../src/core/stats/verdicts';
import { decideRollout, type RolloutSide } from '../../../src/core/rollout/decision';
import { resolvePolicy } from '../../../src/core/rollout/scenario';
import { objectiveFromText, objectivesFromBlock, objectiveText, SloError } from '../../../src/core/rollout/slo';
import { judgeObjective, runsToSettle } from '../../../src/core/rollout/sloJudgement';
import { wilsonInterval } from '../../../src/core/stats/proportions';

const evidence = (hallucinated: number, total: number) => ({ ttftMs: [], e2eMs: [], tpotMs: [], adherence: { passed: 0, total: 0 }, hallucination: { hallucinated, total } });

describe('slo: hallucination', () => {
  it('is written hallucination<=0.02 or hallucination: { max: 0.02 }; anything else is refused with how to write it', () => {
    expect(objectiveFromText('hallucination<=0.02')).toEqual({ metric: 'hallucination', max: 0.02 });
    expect(objectivesFromBlock({ hallucination: { max: 0.05 } }, 'homes.tests.yaml')).toEqual([{ metric: 'hallucination', max: 0.05 }]);
    expect(objectiveText({ metric: 'hallucination', max: 0.02 })).toBe('hallucination ≤ 0.02');
    expect(() => objectiveFromText('hallucination>=0.02')).toThrow(/hallucination takes a ceiling on the rate: hallucination<=0\.02/);
    expect(() => objectiveFromText('hallucination<=2')).toThrow(/must be a rate from 0 to 1/);
    expect(() => objectivesFromBlock({ hallucination: { min: 0.1 } }, 'f')).toThrow(SloError);
    // The tests file's ceiling replaces none of the scenario's defaults and is kept beside them.
    expect(resolvePolicy({ tests: { where: 't', slo: { hallucination: { max: 0.02 } } }, cliSlo: ['hallucination<=0.01'] }).objectives.filter((o) => o.metric === 'hallucination')).toEqual([{ metric: 'hallucination', max: 0.01 }]);
  });

  it('met only when the one-sided upper bound is under the ceiling; broken when the lower bound is above; unclear between, with runs to settle', () => {
    const o = objectiveFromText('hallucination<=0.02');
    // 0 of 200: one-sided upper bound 1 − 0.05^(1/200) = 0.0149 < 0.02 → met (the interval shown stays Wilson's).
    expect(judgeObjective(o, evidence(0, 200))).toMatchObject({ status: 'met', estimate: 0, n: 200, ci95: wilsonInterval(0, 200), text: '0 of 200 judged runs hallucinate: hallucination ≤ 2% holds with 95% confidence' });
    // 0 of 40: upper 0.072 — not yet established; 0 of 149 bounds it (1 − 0.05^(1/149) = 0.0199).
    const early = judgeObjective(o, evidence(0, 40));
    expect(early.status).toBe('unclear');
    expect(runsToSettle(o, evidence(0, 40))).toEqual({ runs: 149, side: 'met' });
    expect(judgeObjective(o, evidence(10, 100))).toMatchObject({ status: 'broken', estimate: 0.1 });
    expect(judgeObjective(o, { ...evidence(0, 0), hallucination: undefined })).toMatchObject({ status: 'unclear', estimate: null, n: 0 });
  });
});

describe('the decision holds a change that raises hallucination significantly', () => {
  const flat = (v: number, n = 40) => Array.from({ length: n }, (_, i) => v + (i % 5));
  const side = (rev: string, hallucinated: number, total = 40): RolloutSide => ({ rev, label: rev, ttftMs: flat(300), e2eMs: flat(1300), tpotMs: [], adherence: { passed: 38, total: 40 }, tokensPerSec: flat(50), hallucination: { hallucinated, total } });
  const decide = (base: RolloutSide, head: RolloutSide, cliSlo: string[] = []) =>
    decideRollout({
      policy: resolvePolicy({ cliScenario: 'decision', cliSlo }), base, head, evidence: { sufficient: true, reasons: [] },
      verdicts: [adherenceVerdict({ rev: base.rev, ...base.adherence }, { rev: head.rev, ...head.adherence }), latencyVerdict('ttftMs', { rev: base.rev, values: base.ttftMs }, { rev: head.rev, values: head.ttftMs }), latencyVerdict('e2eMs', { rev: base.rev, values: base.e2eMs }, { rev: head.rev, values: head.e2eMs })],
    });

  it('0/40 → 9/40 with adherence and latency unchanged: hold, citing the counts and the test', () => {
    const decision = decide(side('A', 0), side('B', 9));
    expect(decision.decision).toBe('hold');
    expect(decision.reasons[0]).toMatch(/^hallucination \+23 pts \(A 0\/40, B 9\/40 runs\), p = 0\.00\d+ — significantly more hallucination$/);
    // Without the hallucination counts the same change ships.
    const { hallucination: _b, ...base } = side('A', 0);
    const { hallucination: _h, ...head } = side('B', 9);
    expect(decide(base, head).decision).toBe('ship');
  });

  it('0/40 → 1/40 is no significant difference: not held for that (said), still short of a 2% SLO', () => {
    const decision = decide(side('A', 0), side('B', 1));
    expect(decision.reasons.join('\n')).toMatch(/hallucination \+3 pts \(A 0\/40, B 1\/40 runs\), no significant difference \(p = 1\.0+\)/);
    expect(decision.decision).toBe('ship');
    const withSlo = decide(side('A', 0), side('B', 1), ['hallucination<=0.02']);
    expect(withSlo.decision).toBe('insufficient');
    expect(withSlo.reasons[0]).toMatch(/^SLO hallucination ≤ 2% not established for B: 1 of 40 judged runs hallucinate: not yet enough to tell whether hallucination ≤ 2% holds — about \d+ runs would show hallucination above 2%/);
  });

  it('a head that breaks hallucination<=0.02 is held by the SLO', () => {
    const decision = decide(side('A', 0, 200), side('B', 12, 200), ['hallucination<=0.02']);
    expect(decision.decision).toBe('hold');
    expect(decision.reasons.join('\n')).toMatch(/B breaks SLO hallucination ≤ 2%: 12 of 200 judged runs hallucinate: hallucination ≤ 2% is broken with 95% confidence; A: 0 of 200 judged runs hallucinate/);
  });
});
