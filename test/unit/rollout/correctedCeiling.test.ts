/**
 * A hallucination ceiling judged on the rate corrected for the judge's measured error: a judge that flags
 * one good answer in five makes the raw rate break a 10% ceiling the true rate keeps; with people's labels
 * measuring it, the decision reads the corrected rate. A judge no better than chance gives no reading.
 * Run-until-decided keeps its anytime-valid raw bounds.
 */
import { describe, expect, it } from 'vitest';
import { objectiveFromText } from '../../../src/core/rollout/slo';
import { judgeObjective, runsToSettle } from '../../../src/core/rollout/sloJudgement';
import { correctedCeiling } from '../../../src/core/rollout/correctedCeiling';
import { correctedPassRate, type JudgeAgreement } from '../../../src/core/stats/judgeTrust';

const rate = (successes: number, trials: number) => ({ value: successes / trials, successes, trials, ci95: [0, 1] as [number, number] });
/** People labelled 200 hallucinating answers and 200 good ones: the judge caught 190 of the first and passed 160 of the second. */
const overEager: Pick<JudgeAgreement, 'tpr' | 'tnr'> = { tpr: rate(190, 200), tnr: rate(160, 200) };
const evidence = (hallucinated: number, total: number, judge?: { check: string; agreement: Pick<JudgeAgreement, 'tpr' | 'tnr'> }) => ({
  ttftMs: [], e2eMs: [], tpotMs: [], adherence: { passed: 0, total: 0 },
  hallucination: { hallucinated, total, ...(judge ? { judge } : {}) },
});

describe('the hallucination ceiling on the corrected rate', () => {
  const ceiling = objectiveFromText('hallucination<=0.1');

  it('an over-eager judge flags 21.5% where 2% hallucinate: raw, the ceiling is broken; corrected, it holds', () => {
    // True rate 2%: the judge flags 0.02 × 0.95 + 0.98 × 0.20 = 21.5% of 1,000 runs.
    expect(judgeObjective(ceiling, evidence(215, 1000)).status).toBe('broken');
    const judged = judgeObjective(ceiling, evidence(215, 1000, { check: 'hallucination', agreement: overEager }));
    expect(judged.status).toBe('met');
    expect(judged.corrected).toBe(true);
    // Rogan–Gladen on the plain counts: pass rate (0.785 + 0.95 − 1) / (0.95 + 0.80 − 1) = 0.98.
    expect(judged.estimate).toBeCloseTo(0.02, 12);
    expect(judged.count).toEqual({ events: 215, trials: 1000 });
    expect(judged.text).toMatch(/^215 of 1000 judged runs hallucinate, 2(\.0)?% corrected for the judge's measured error \(95% interval .+\): hallucination ≤ 10% holds with 95% confidence$/);
    // The bound is the corrected pass rate's one-sided lower bound (z = 1.645), turned around.
    const oneSided = correctedPassRate(785, 1000, overEager, 1.6448536269514722).corrected!;
    expect(1 - oneSided.ci95[0]).toBeLessThanOrEqual(0.1);
    // The labels' uncertainty is in the interval, which more runs alone do not shrink: no run count is suggested.
    expect(runsToSettle(ceiling, evidence(215, 1000, { check: 'hallucination', agreement: overEager }))).toBeNull();
  });

  it('a judge that misses most hallucinations: 6.8% flagged, corrected well over the ceiling — broken', () => {
    const lax = { tpr: rate(60, 200), tnr: rate(198, 200) };
    // True rate 20%: flagged 0.20 × 0.30 + 0.80 × 0.01 = 6.8%.
    expect(judgeObjective(ceiling, evidence(136, 2000)).status).toBe('met');
    const judged = judgeObjective(ceiling, evidence(136, 2000, { check: 'hallucination', agreement: lax }));
    expect(judged.status).toBe('broken');
    expect(judged.estimate!).toBeCloseTo(0.2, 2);
  });

  it('a judge no better than chance gives no corrected reading; run-until-decided keeps the raw anytime bounds', () => {
    const coin = { tpr: rate(50, 100), tnr: rate(50, 100) };
    expect(correctedCeiling(0.1, 30, 100, { check: 'hallucination', agreement: coin })).toMatchObject({ status: 'unclear', estimate: null });
    expect(judgeObjective(ceiling, evidence(30, 100, { check: 'hallucination', agreement: coin })).text).toMatch(/the judge of hallucination is no better than chance on people's labels/);
    const anytime = judgeObjective(ceiling, evidence(215, 1000, { check: 'hallucination', agreement: overEager }), 'anytime');
    expect(anytime.corrected).toBeUndefined();
    expect(anytime.status).toBe('broken');
  });
});
