/** Statistics against published reference values. */
import { describe, expect, it } from 'vitest';
import { adherenceVerdict, latencyVerdict, noRegression } from '../../../src/core/stats/verdicts';
import { bootstrapMedianDifference, selectMedian } from '../../../src/core/stats/bootstrap';
import { seededRandom } from '../../../src/core/stats/random';
import { fisherExactTest, newcombeDifferenceInterval, normalCdf, proportionTest, twoProportionZTest, wilsonInterval } from '../../../src/core/stats/proportions';

describe('Wilson score interval — Newcombe (1998), Stat Med 17:857, Table I, method 3', () => {
  it.each([
    [81, 263, 0.2553, 0.3662],
    [15, 148, 0.0624, 0.1605],
    [0, 20, 0, 0.1611],
    [1, 29, 0.0061, 0.1718],
  ])('%i/%i → %f – %f', (x, n, lo, hi) => {
    const [l, u] = wilsonInterval(x, n);
    expect(l).toBeCloseTo(lo, 4);
    expect(u).toBeCloseTo(hi, 4);
  });
});

describe('difference of proportions — Newcombe (1998), Stat Med 17:873, Table II, method 10', () => {
  it.each([
    [56, 70, 48, 80, 0.0524, 0.3339],
    [9, 10, 3, 10, 0.1705, 0.8090],
    [6, 7, 2, 7, 0.0582, 0.8062],
    [5, 56, 0, 29, -0.0381, 0.1926],
    [10, 10, 0, 20, 0.6791, 1.0],
  ])('%i/%i − %i/%i → %f – %f', (x1, n1, x2, n2, lo, hi) => {
    const [l, u] = newcombeDifferenceInterval(x1, n1, x2, n2);
    expect(l).toBeCloseTo(lo, 3);
    expect(u).toBeCloseTo(hi, 3);
  });
});

describe("Fisher's exact test (two-sided), values from R's fisher.test", () => {
  it('Fisher’s tea-tasting table [[3,1],[1,3]] → 0.4857', () => expect(fisherExactTest(3, 1, 1, 3)).toBeCloseTo(0.4857143, 6));
  it('[[1,9],[11,3]] → 0.002759', () => expect(fisherExactTest(1, 9, 11, 3)).toBeCloseTo(0.002759456, 8));
  it('[[10,0],[0,10]] → 1.083e-05', () => expect(fisherExactTest(10, 0, 0, 10)).toBeCloseTo(1.082509e-5, 10));
  it('a table equal on both sides → 1', () => expect(fisherExactTest(5, 5, 5, 5)).toBeCloseTo(1, 12));
});

describe('two-proportion z-test and the normal CDF', () => {
  it('Φ matches tables', () => {
    expect(normalCdf(1.959963984540054)).toBeCloseTo(0.975, 8);
    expect(normalCdf(-3)).toBeCloseTo(0.0013498980316301, 9);
  });
  it('560/1000 vs 500/1000: z = 2.6881 by hand (pooled p = 0.53), two-sided p = 0.007185', () => {
    expect(twoProportionZTest(560, 1000, 500, 1000)).toBeCloseTo(0.0071855, 6);
    expect(proportionTest(560, 1000, 500, 1000).test).toBe('fisher-exact');
    expect(proportionTest(1200, 2000, 1100, 2000).test).toBe('two-proportion-z');
  });
  it('equal proportions: p is 1, never above (the approximate error function is a hair below 0 at 0)', () => {
    expect(proportionTest(600, 1200, 600, 1200)).toEqual({ pValue: 1, test: 'two-proportion-z' });
  });
});

describe('bootstrap difference of medians', () => {
  it('finds a real shift and none where there is none, reproducibly', () => {
    const base = Array.from({ length: 40 }, (_, i) => 200 + (i % 10));
    const slower = base.map((v) => v + 50);
    const shifted = bootstrapMedianDifference(base, slower);
    expect(shifted.difference).toBe(50);
    expect(shifted.ci95[0]).toBeGreaterThan(40);
    expect(shifted.pValue).toBeLessThan(0.01);
    const same = bootstrapMedianDifference(base, [...base].reverse());
    expect(same.ci95[0]).toBeLessThanOrEqual(0);
    expect(same.ci95[1]).toBeGreaterThanOrEqual(0);
    expect(bootstrapMedianDifference(base, slower)).toEqual(shifted);
  });

  it('the median by selection equals the median of the sorted values: odd and even lengths, ties, one value (seed 11)', () => {
    const random = seededRandom(11);
    for (let trial = 0; trial < 400; trial++) {
      const n = 1 + Math.floor(random() * 300);
      const values = Float64Array.from({ length: n }, () => (trial % 2 ? Math.round(random() * 20) : random() * 1000));
      const sorted = Float64Array.from(values).sort();
      const expected = (sorted[Math.floor((n - 1) / 2)]! + sorted[Math.ceil((n - 1) / 2)]!) / 2;
      expect(selectMedian(values), `seed 11, trial ${trial}`).toBe(expected);
    }
  });
});

describe('verdicts', () => {
  it('the homes case: adherence 12/30 → 28/30 is better; latency within noise is no difference; no regression', () => {
    const adherence = adherenceVerdict({ rev: 'A', passed: 12, total: 30 }, { rev: 'B', passed: 28, total: 30 });
    expect(adherence).toMatchObject({ verdict: 'better', test: 'fisher-exact' });
    expect(adherence.pValue!).toBeLessThan(0.001);
    expect(adherence.summary).toBe('adherence +53 pts, p < 0.001');
    const base = Array.from({ length: 30 }, (_, i) => 300 + ((i * 7) % 11));
    const ttft = latencyVerdict('ttftMs', { rev: 'A', values: base }, { rev: 'B', values: base.map((v) => v + 2) });
    expect(ttft.verdict).toBe('no-difference');
    expect(noRegression([adherence, ttft])).toBe(true);
  });

  it('worse adherence and materially slower E2E are regressions; tiny samples are insufficient', () => {
    expect(adherenceVerdict({ rev: 'A', passed: 29, total: 30 }, { rev: 'B', passed: 15, total: 30 }).verdict).toBe('worse');
    const e2e = latencyVerdict('e2eMs', { rev: 'A', values: Array.from({ length: 20 }, (_, i) => 1000 + i) }, { rev: 'B', values: Array.from({ length: 20 }, (_, i) => 1400 + i) });
    expect(e2e.verdict).toBe('worse');
    expect(noRegression([e2e])).toBe(false);
    expect(adherenceVerdict({ rev: 'A', passed: 1, total: 3 }, { rev: 'B', passed: 3, total: 3 }).verdict).toBe('insufficient');
  });
});
