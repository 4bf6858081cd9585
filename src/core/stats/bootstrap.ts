/**
 * Percentile bootstrap for the difference of medians (head − base), seeded so a comparison is
 * reproducible: the 95% interval, and a two-sided bootstrap p-value (twice the smaller share of
 * resampled differences on either side of zero).
 */
import { quickselect } from 'simple-statistics';
import { percentile } from './percentile';
import { seededRandom } from './random';

export interface MedianDifference {
  difference: number;
  ci95: [number, number];
  pValue: number;
  resamples: number;
}

export function bootstrapMedianDifference(base: readonly number[], head: readonly number[], options: { resamples?: number; seed?: number } = {}): MedianDifference {
  const resamples = options.resamples ?? 2000;
  const random = seededRandom(options.seed ?? 20261202);
  const sortedMedian = (values: readonly number[]): number => percentile([...values].sort((a, b) => a - b), 0.5);
  const difference = sortedMedian(head) - sortedMedian(base);
  const differences = new Float64Array(resamples);
  const a = new Float64Array(base.length);
  const b = new Float64Array(head.length);
  for (let r = 0; r < resamples; r++) {
    for (let i = 0; i < a.length; i++) a[i] = base[Math.floor(random() * base.length)]!;
    for (let i = 0; i < b.length; i++) b[i] = head[Math.floor(random() * head.length)]!;
    differences[r] = selectMedian(b) - selectMedian(a);
  }
  const sorted = Array.from(differences).sort((x, y) => x - y);
  let below = 0;
  let above = 0;
  for (const d of sorted) {
    if (d <= 0) below++;
    if (d >= 0) above++;
  }
  return { difference, ci95: [percentile(sorted, 0.025), percentile(sorted, 0.975)], pValue: Math.min(1, (2 * Math.min(below, above)) / resamples), resamples };
}

/**
 * The median of a resample by selection rather than a sort (Floyd–Rivest, linear on average): the same
 * value a sort gives, so results are unchanged, at a fraction of the time on a production week's ~10⁵ calls.
 */
export function selectMedian(values: Float64Array): number {
  const n = values.length;
  const upper = Math.floor(n / 2);
  quickselect(values as unknown as number[], upper);
  if (n % 2 === 1) return values[upper]!;
  // Even length: the lower middle is the largest of the part selection left below the upper one.
  let lower = -Infinity;
  for (let i = 0; i < upper; i++) if (values[i]! > lower) lower = values[i]!;
  return (lower + values[upper]!) / 2;
}
