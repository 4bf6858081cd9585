/**
 * The decision statistics against published values: one-sided Clopper–Pearson bounds (closed forms
 * and the binomial tail they invert), and the beta-binomial mixture confidence sequence against the
 * values in the test suite of `confseq`, the authors' own library (Howard, Ramdas, McAuliffe &
 * Sekhon 2021; gostevehoward/confseq, test/uniform_boundaries_unittest.cpp, "from a reference
 * implementation in R").
 */
import { describe, expect, it } from 'vitest';
import { gammaln } from 'simple-statistics';
import { anytimeShareSide, anytimeTwoSided, bernoulliConfidenceSequence, betaBinomialLogMixture } from '../../../src/core/stats/confidenceSequence';
import { clopperPearsonLower, clopperPearsonUpper, shareSide } from '../../../src/core/stats/oneSided';
import { seededRandom } from '../../../src/core/stats/random';

/** P(Binomial(n, p) ≤ k), summed term by term. */
function binomialCdf(k: number, n: number, p: number): number {
  let sum = 0;
  for (let i = 0; i <= k; i++) sum += Math.exp(gammaln(n + 1) - gammaln(i + 1) - gammaln(n - i + 1) + i * Math.log(p) + (n - i) * Math.log(1 - p));
  return sum;
}

describe('one-sided Clopper–Pearson bounds', () => {
  it('0 of n above the limit: the upper bound is 1 − 0.05^(1/n) — under 10% from n = 29, so p90 is bounded at 29 runs', () => {
    expect(clopperPearsonUpper(0, 30)).toBeCloseTo(1 - 0.05 ** (1 / 30), 10);
    expect(clopperPearsonUpper(0, 30)).toBeCloseTo(0.0950, 4);
    expect(clopperPearsonUpper(0, 28)).toBeGreaterThan(0.1);
    expect(clopperPearsonUpper(0, 29)).toBeLessThan(0.1);
    expect(shareSide(0, 29, 0.1)).toBe('below');
    expect(shareSide(0, 28, 0.1)).toBeNull();
  });

  it('n of n passing: the lower bound is 0.05^(1/n) (30/30 → 90.5%)', () => {
    expect(clopperPearsonLower(30, 30)).toBeCloseTo(0.05 ** (1 / 30), 10);
    expect(clopperPearsonLower(30, 30)).toBeCloseTo(0.905, 3);
  });

  it.each([
    [3, 40],
    [12, 50],
    [27, 30],
    [150, 1000],
  ])('%i of %i: the bounds are where the binomial tail is 5%', (k, n) => {
    const upper = clopperPearsonUpper(k, n);
    const lower = clopperPearsonLower(k, n);
    expect(binomialCdf(k, n, upper)).toBeCloseTo(0.05, 6);
    expect(1 - binomialCdf(k - 1, n, lower)).toBeCloseTo(0.05, 6);
    expect(lower).toBeLessThan(k / n);
    expect(upper).toBeGreaterThan(k / n);
  });

  it('a share above the limit is shown above it: 12 of 40 runs over the limit breaks p90', () => {
    expect(shareSide(12, 40, 0.1)).toBe('above');
    expect(shareSide(5, 40, 0.1)).toBeNull();
  });
});

describe('beta-binomial mixture — confseq’s published values', () => {
  it('log mixture, two-sided and one-sided (s = 10, v = 100, v_opt = 100, g = 0.2, h = 0.8)', () => {
    expect(betaBinomialLogMixture(10, 100, 100, 0.2, 0.8, 0.05, false)).toBeCloseTo(-0.6941012, 5);
    expect(betaBinomialLogMixture(10, 100, 100, 0.2, 0.8)).toBeCloseTo(-0.07134019, 5);
  });

  it.each([
    [700, 1000, 100, 0.651629, 0.745949],
    [15, 50, 50, 0.129556, 0.511896],
    [5, 50, 50, 0.013021, 0.269264],
    [1, 50, 50, 0, 0.13489],
    [1, 2, 50, 0, 1],
    [100, 200, 1, 0.328923, 0.671076],
    [0, 1, 50, 0, 1],
  ])('bernoulli_confidence_interval(%i, %i, 0.05, t_opt = %i) → [%f, %f]', (k, n, tOpt, lo, hi) => {
    const [l, u] = bernoulliConfidenceSequence(k, n, 0.05, { tOpt });
    expect(l).toBeCloseTo(lo, 5);
    expect(u).toBeCloseTo(hi, 5);
  });
});

describe('anytime-valid claims', () => {
  it('cost a few runs over the fixed-n bound: 0 exceedances establish p90 at about 34 runs, not 29', () => {
    const first = (test: (n: number) => boolean): number => {
      for (let n = 1; n < 1000; n++) if (test(n)) return n;
      return -1;
    };
    const anytime = first((n) => anytimeShareSide(0, n, 0.1, 0.05, { tOpt: 30 }) === 'below');
    expect(anytime).toBeGreaterThan(29);
    expect(anytime).toBeLessThanOrEqual(40);
    expect(first((n) => anytimeShareSide(n, n, 0.8, 0.05, { tOpt: 30 }) === 'above')).toBeLessThanOrEqual(20);
  });

  it('looking after every run of a true null, the error stays under α (1,000 seeded paths of 400 runs)', () => {
    const random = seededRandom(31);
    let oneSided = 0;
    let twoSided = 0;
    let fixedPeeked = 0;
    for (let path = 0; path < 1000; path++) {
      let events = 0;
      let [a, b, c] = [false, false, false];
      for (let n = 1; n <= 400; n++) {
        if (random() < 0.1) events++;
        // True share 0.1: "below 0.1" and "above 0.1" are both false claims here.
        a ||= anytimeShareSide(events, n, 0.1) !== null;
        b ||= n % 10 === 0 && anytimeTwoSided(events, n, 0.1).side !== null;
        c ||= n % 10 === 0 && shareSide(events, n, 0.1) !== null;
      }
      if (a) oneSided++;
      if (b) twoSided++;
      if (c) fixedPeeked++;
    }
    // Each one-sided side is at 5%, so either false claim at most 10%; the two-sided test at most 5%.
    expect(oneSided / 1000).toBeLessThan(0.1);
    expect(twoSided / 1000).toBeLessThan(0.05);
    // The fixed-n bound looked at after every 10 runs is wrong far more often: why the sequence exists.
    expect(fixedPeeked / 1000).toBeGreaterThan(0.15);
  });

  it('two-sided: a clear difference is found, its side said', () => {
    expect(anytimeTwoSided(40, 45, 0.5).side).toBe('above');
    expect(anytimeTwoSided(5, 45, 0.5).side).toBe('below');
    expect(anytimeTwoSided(24, 45, 0.5)).toMatchObject({ side: null });
    expect(anytimeTwoSided(24, 45, 0.5).pValue).toBe(1);
  });
});
