/**
 * Statistics of pass rates: Wilson score intervals, Newcombe's hybrid score interval for a
 * difference, Fisher's exact test (two-sided, as R's fisher.test), and the pooled two-proportion
 * z-test for large samples. Distribution functions come from simple-statistics.
 */
import { errorFunction, gammaln } from 'simple-statistics';

/** z for a two-sided 95% interval. */
export const Z95 = 1.959963984540054;

export function normalCdf(z: number): number {
  return 0.5 * (1 + errorFunction(z / Math.SQRT2));
}

/** Wilson score interval for x successes out of n (Wilson 1927; Newcombe 1998, method 3). */
export function wilsonInterval(x: number, n: number, z = Z95): [number, number] {
  if (n === 0) return [0, 1];
  const p = x / n;
  const z2 = z * z;
  const denominator = 1 + z2 / n;
  const center = (p + z2 / (2 * n)) / denominator;
  const half = (z * Math.sqrt((p * (1 - p)) / n + z2 / (4 * n * n))) / denominator;
  return [Math.max(0, center - half), Math.min(1, center + half)];
}

/** 95% interval for p1 − p2 from the two Wilson intervals (Newcombe 1998, method 10). */
export function newcombeDifferenceInterval(x1: number, n1: number, x2: number, n2: number): [number, number] {
  const p1 = x1 / n1;
  const p2 = x2 / n2;
  const [l1, u1] = wilsonInterval(x1, n1);
  const [l2, u2] = wilsonInterval(x2, n2);
  const d = p1 - p2;
  return [d - Math.sqrt((p1 - l1) ** 2 + (u2 - p2) ** 2), d + Math.sqrt((u1 - p1) ** 2 + (p2 - l2) ** 2)];
}

function logChoose(n: number, k: number): number {
  return gammaln(n + 1) - gammaln(k + 1) - gammaln(n - k + 1);
}

/**
 * Two-sided Fisher exact test on [[a, b], [c, d]]: the sum of the probabilities of all tables with
 * the same margins that are no more likely than the observed one (relative tolerance 1e-7, as R).
 */
export function fisherExactTest(a: number, b: number, c: number, d: number): number {
  const row1 = a + b;
  const col1 = a + c;
  const n = a + b + c + d;
  if (n === 0) return 1;
  const lo = Math.max(0, col1 - (n - row1));
  const hi = Math.min(row1, col1);
  const logDenominator = logChoose(n, col1);
  const logP = (x: number): number => logChoose(row1, x) + logChoose(n - row1, col1 - x) - logDenominator;
  const observed = logP(a);
  let p = 0;
  for (let x = lo; x <= hi; x++) {
    const lp = logP(x);
    if (lp <= observed + Math.log1p(1e-7)) p += Math.exp(lp);
  }
  return Math.min(1, p);
}

/** Pooled two-proportion z-test, two-sided. */
export function twoProportionZTest(x1: number, n1: number, x2: number, n2: number): number {
  const pooled = (x1 + x2) / (n1 + n2);
  const se = Math.sqrt(pooled * (1 - pooled) * (1 / n1 + 1 / n2));
  if (se === 0) return 1;
  const z = (x1 / n1 - x2 / n2) / se;
  // The error function is approximated (|error| ~1e-7): erf(0) is a hair below 0, and p must stay a probability.
  return Math.min(1, 2 * (1 - normalCdf(Math.abs(z))));
}

/** Above this many runs in total the z-test replaces Fisher's (exact but O(n) per table). */
export const EXACT_TEST_LIMIT = 2000;

export function proportionTest(x1: number, n1: number, x2: number, n2: number): { pValue: number; test: 'fisher-exact' | 'two-proportion-z' } {
  if (n1 + n2 <= EXACT_TEST_LIMIT) return { pValue: fisherExactTest(x1, n1 - x1, x2, n2 - x2), test: 'fisher-exact' };
  return { pValue: twoProportionZTest(x1, n1, x2, n2), test: 'two-proportion-z' };
}
