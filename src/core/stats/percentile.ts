/** The one percentile definition every summary, interval and verdict uses. */

/** Linear interpolation between closest ranks (numpy's default, Hyndman–Fan type 7) on sorted values. */
export function percentile(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) throw new Error('percentile of no values');
  const rank = p * (sorted.length - 1);
  const lo = Math.floor(rank);
  const hi = Math.ceil(rank);
  return sorted[lo]! + (sorted[hi]! - sorted[lo]!) * (rank - lo);
}

/** The median of values in any order (at least one). */
export function medianOf(values: readonly number[]): number {
  return percentile([...values].sort((a, b) => a - b), 0.5);
}
