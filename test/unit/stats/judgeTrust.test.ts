/**
 * A judge's agreement with people (TPR and TNR for *fail*, Wilson intervals, Cohen's κ), the trust
 * bar, and the pass rate corrected for the judge's measured error — checked against hand-computed
 * tables, a textbook κ, and 1,000 seeded studies whose truth is known (issue 40, points 3–5).
 */
import { describe, expect, it } from 'vitest';
import { correctedPassRate, judgeAgreement, judgeTrusted, type LabelledPair } from '../../../src/core/stats/judgeTrust';
import { seededRandom } from '../../../src/core/stats/random';

const pairs = (rows: [LabelledPair['human'], LabelledPair['judge'], number][]): LabelledPair[] => rows.flatMap(([human, judge, count]) => Array.from({ length: count }, () => ({ human, judge })));

describe('a judge against labelled items', () => {
  it('TPR and TNR for fail, each with its Wilson 95% interval, accuracy and Cohen’s κ', () => {
    // People failed 40 answers (the judge caught 34) and passed 60 (the judge passed 57).
    const agreement = judgeAgreement(pairs([['fail', 'fail', 34], ['fail', 'pass', 6], ['pass', 'pass', 57], ['pass', 'fail', 3]]));
    expect(agreement).toMatchObject({ n: 100, passes: 60, fails: 40, disagreements: 9 });
    expect(agreement.tpr.value).toBeCloseTo(0.85, 12);
    expect(agreement.tpr.ci95![0]).toBeCloseTo(0.709276756335103, 10);
    expect(agreement.tpr.ci95![1]).toBeCloseTo(0.9293881228267964, 10);
    expect(agreement.tnr.value).toBeCloseTo(0.95, 12);
    expect(agreement.tnr.ci95![0]).toBeCloseTo(0.8629948352365147, 10);
    expect(agreement.accuracy).toBeCloseTo(0.91, 12);
    // p_o = 0.91, p_e = 0.4 × 0.37 + 0.6 × 0.63 = 0.526.
    expect(agreement.kappa).toBeCloseTo((0.91 - 0.526) / (1 - 0.526), 12);
  });

  it('κ of the textbook table (20 both yes, 15 both no, 5 and 10 apart) is 0.4', () => {
    expect(judgeAgreement(pairs([['fail', 'fail', 20], ['fail', 'pass', 5], ['pass', 'fail', 10], ['pass', 'pass', 15]])).kappa).toBeCloseTo(0.4, 12);
  });

  it('nothing labelled, or one side saying one thing only: no rate and no κ rather than a number that means nothing', () => {
    expect(judgeAgreement([])).toMatchObject({ n: 0, tpr: { value: null, ci95: null }, tnr: { value: null, ci95: null }, accuracy: null, kappa: null });
    expect(judgeAgreement(pairs([['pass', 'pass', 12]]))).toMatchObject({ tpr: { value: null }, tnr: { value: 1 }, kappa: null });
  });
});

describe('the trust bar', () => {
  const judge = (tp: number, fn: number, tn: number, fp: number) => judgeAgreement(pairs([['fail', 'fail', tp], ['fail', 'pass', fn], ['pass', 'pass', tn], ['pass', 'fail', fp]]));

  it('trusted when both 95% lower bounds reach 80% on at least 30 labelled passes and 30 fails', () => {
    const verdict = judgeTrusted(judge(58, 2, 59, 1));
    expect(verdict.trusted).toBe(true);
    expect(verdict.why).toBe('TPR ≥ 89%, TNR ≥ 91% on 120 labels (60 fail, 60 pass): both at or above 80% (95% lower bounds)');
  });

  it('a perfect judge on 29 labelled fails is not trusted yet, and says how many are needed', () => {
    const verdict = judgeTrusted(judge(29, 0, 40, 0));
    expect(verdict.trusted).toBe(false);
    expect(verdict.why).toMatch(/too few labels — 30 labelled passes and 30 fails are needed$/);
  });

  it('a judge that catches 85% of failures on 40 of each is below the bar (its lower bound is 71%)', () => {
    const verdict = judgeTrusted(judge(34, 6, 40, 0));
    expect(verdict).toEqual({ trusted: false, why: 'TPR ≥ 71%, TNR ≥ 91% on 80 labels (40 fail, 40 pass): TPR under the bar of 80% (95% lower bounds; both must reach it)' });
    expect(judgeTrusted(judge(34, 6, 40, 0), { minLowerBound: 0.7, minEach: 30 }).trusted).toBe(true);
  });
});

describe('the pass rate corrected for the judge’s error (Rogan–Gladen)', () => {
  it('a judge of TPR = TNR = 0.85 that passes 71% of answers: the true rate is 80%', () => {
    // 0.8 × 0.85 + 0.2 × 0.15 = 0.71.
    const agreement = judgeAgreement(pairs([['fail', 'fail', 85], ['fail', 'pass', 15], ['pass', 'pass', 85], ['pass', 'fail', 15]]));
    const rate = correctedPassRate(710, 1000, agreement);
    expect(rate.raw.value).toBeCloseTo(0.71, 12);
    expect(rate.corrected!.value).toBeCloseTo(0.8, 12);
    expect(rate.corrected!.ci95[0]).toBeLessThan(0.8);
    expect(rate.corrected!.ci95[1]).toBeGreaterThan(0.8);
    // The interval carries the labelled set's uncertainty too: wider than the raw one.
    expect(rate.corrected!.ci95[1] - rate.corrected!.ci95[0]).toBeGreaterThan(rate.raw.ci95[1] - rate.raw.ci95[0]);
  });

  it('a judge no better than a coin has no correction', () => {
    const coin = judgeAgreement(pairs([['fail', 'fail', 20], ['fail', 'pass', 20], ['pass', 'pass', 20], ['pass', 'fail', 20]]));
    expect(correctedPassRate(50, 100, coin).corrected).toBeNull();
  });

  it('over 1,000 seeded studies with a judge of sensitivity = specificity = 0.85, the corrected 95% interval covers the truth ≥ 93% of the time', () => {
    const seed = 40;
    const random = seededRandom(seed);
    for (const { labelled, judged } of [{ labelled: 30, judged: 100 }, { labelled: 60, judged: 300 }]) {
      let covered = 0;
      let rawCovered = 0;
      const studies = 1000;
      for (let study = 0; study < studies; study++) {
        const truth = 0.5 + random() * 0.45;
        const labels: LabelledPair[] = [];
        for (let i = 0; i < labelled; i++) labels.push({ human: 'fail', judge: random() < 0.85 ? 'fail' : 'pass' });
        for (let i = 0; i < labelled; i++) labels.push({ human: 'pass', judge: random() < 0.85 ? 'pass' : 'fail' });
        let judgedPasses = 0;
        for (let i = 0; i < judged; i++) {
          const passes = random() < truth;
          if (passes ? random() < 0.85 : random() >= 0.85) judgedPasses++;
        }
        const rate = correctedPassRate(judgedPasses, judged, judgeAgreement(labels));
        if (rate.corrected && rate.corrected.ci95[0] <= truth && truth <= rate.corrected.ci95[1]) covered++;
        if (rate.raw.ci95[0] <= truth && truth <= rate.raw.ci95[1]) rawCovered++;
      }
      const coverage = covered / studies;
      expect(coverage, `seed ${seed}, ${labelled} labels of each, ${judged} judged: coverage ${coverage}`).toBeGreaterThanOrEqual(0.93);
      // The raw interval, which believes the judge, misses the truth far more often.
      expect(rawCovered / studies, `seed ${seed}`).toBeLessThan(0.8);
    }
  });
});
