/**
 * A chart's y-axis fitted to its data, robust to a few extreme points: up to the 99th percentile × 1.2,
 * so one slow hour does not flatten every other line to the floor. Values above it are drawn at the top
 * edge and marked as outliers; when none lies above, the chart fits itself (max undefined).
 */
export interface AxisFit {
  /** The axis maximum, or undefined when every value fits under the robust bound. */
  max: number | undefined;
  /** True when some value lies above `max` (drawn at the edge, marked). */
  clipped: boolean;
}

const HEADROOM = 1.2;

export function fitAxis(values: readonly (number | null | undefined)[]): AxisFit {
  const finite = values.filter((v): v is number => typeof v === 'number' && Number.isFinite(v)).sort((a, b) => a - b);
  if (finite.length === 0) return { max: undefined, clipped: false };
  // Nearest rank: with fewer than 100 values the 99th percentile is the largest but one at most.
  const p99 = finite[Math.max(0, Math.ceil(0.99 * finite.length) - 1)]!;
  const bound = p99 * HEADROOM;
  if (bound <= 0 || finite.at(-1)! <= bound) return { max: undefined, clipped: false };
  return { max: bound, clipped: true };
}

/** The value as drawn: at the top edge when above the axis. */
export function clipToAxis(value: number | null, max: number | undefined): number | null {
  return value === null || max === undefined ? value : Math.min(value, max);
}
