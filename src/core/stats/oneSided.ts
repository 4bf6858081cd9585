/**
 * One-sided exact bounds for a share (Clopper & Pearson 1934): the share of runs above a latency
 * limit, the share of runs that pass. An SLO is a one-sided claim ("p90 ≤ 30 s" is "at most 10% of
 * runs above 30 s"), so it is tested one-sided: the whole 5% of error goes to the side the claim is
 * about. With 0 of n runs above the limit, the upper bound of that share is 1 − 0.05^(1/n), under 10%
 * from n = 29 — whatever the margin. Beta quantiles come from jStat.
 */
import { jStat } from 'jstat';

/** The one-sided upper bound of a share with `k` events in `n` trials: the true share is at most this with the given confidence. */
export function clopperPearsonUpper(k: number, n: number, confidence = 0.95): number {
  if (n <= 0) return 1;
  if (k >= n) return 1;
  return jStat.beta.inv(confidence, k + 1, n - k);
}

/** The one-sided lower bound of a share with `k` events in `n` trials. */
export function clopperPearsonLower(k: number, n: number, confidence = 0.95): number {
  if (n <= 0 || k <= 0) return 0;
  return jStat.beta.inv(1 - confidence, k, n - k + 1);
}

/**
 * Which side of `limit` a share is established on, one-sided at `confidence`: `below` when its upper
 * bound is under the limit, `above` when its lower bound is over it, null when the runs cannot tell.
 */
export function shareSide(k: number, n: number, limit: number, confidence = 0.95): 'below' | 'above' | null {
  if (n <= 0) return null;
  if (clopperPearsonUpper(k, n, confidence) < limit) return 'below';
  if (clopperPearsonLower(k, n, confidence) > limit) return 'above';
  return null;
}
