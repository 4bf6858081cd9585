/**
 * Distribution-free confidence interval for a quantile (e.g. TTFT p90) from n observations: the
 * order statistics x(l) and x(u) chosen so that the number of observations below the true quantile,
 * Binomial(n, p), falls in [l, u) with probability ≥ the confidence (Conover, Practical
 * Nonparametric Statistics, §3.2). With too few runs a side has no order statistic: it is open
 * (null), and a claim that needs it cannot be made.
 */
import { gammaln } from 'simple-statistics';

function binomialPmf(k: number, n: number, p: number): number {
  if (p <= 0) return k === 0 ? 1 : 0;
  if (p >= 1) return k === n ? 1 : 0;
  return Math.exp(gammaln(n + 1) - gammaln(k + 1) - gammaln(n - k + 1) + k * Math.log(p) + (n - k) * Math.log(1 - p));
}

/**
 * The 1-based ranks [l, u] of the order statistics that bound the p-quantile of n observations at
 * the given two-sided confidence; a rank is null when n is too small for that side.
 */
export function quantileRanks(n: number, p: number, confidence = 0.95): [number | null, number | null] {
  if (n <= 0) return [null, null];
  const tail = (1 - confidence) / 2;
  // cdf[k] = P(B ≤ k), B ~ Binomial(n, p)
  const cdf: number[] = [];
  let sum = 0;
  for (let k = 0; k <= n; k++) cdf.push((sum += binomialPmf(k, n, p)));
  // Lower: the largest l with P(B < l) ≤ tail, i.e. cdf[l − 1] ≤ tail.
  let lower: number | null = null;
  for (let l = n; l >= 1; l--) {
    if (cdf[l - 1]! <= tail) {
      lower = l;
      break;
    }
  }
  // Upper: the smallest u with P(B ≥ u) ≤ tail, i.e. 1 − cdf[u − 1] ≤ tail.
  let upper: number | null = null;
  for (let u = 1; u <= n; u++) {
    if (1 - cdf[u - 1]! <= tail) {
      upper = u;
      break;
    }
  }
  return [lower, upper];
}

/** [lower, upper] of the p-quantile at the given two-sided confidence; a side is null when n is too small for it. */
export function quantileInterval(values: readonly number[], p: number, confidence = 0.95): [number | null, number | null] {
  const sorted = values.filter((v) => Number.isFinite(v)).sort((a, b) => a - b);
  const [l, u] = quantileRanks(sorted.length, p, confidence);
  return [l === null ? null : sorted[l - 1]!, u === null ? null : sorted[u - 1]!];
}
