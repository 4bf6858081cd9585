/**
 * Where more load stops buying throughput. The knee is the breakpoint of a two-segment least-squares
 * fit of throughput against concurrency (each segment a line through at least two levels, the two
 * sharing the breakpoint), taken when the slope after it is under half the slope before it. It needs
 * five levels at least; otherwise, or when throughput still grows in proportion, there is no knee and
 * the reason says why. Saturation is read from the server itself: the first level at which its
 * waiting queue holds requests on average and TTFT rose from the level before (the queue is not
 * draining), null when the server exports no waiting-requests gauge.
 */
import type { LoadPoint } from './loadPointRecord';

export type Knee = { concurrency: number; slopeBefore: number; slopeAfter: number } | { concurrency: null; reason: string };
export type Saturation = { level: string } | { level: null; reason: string };

const MIN_LEVELS = 5;

function concurrencyOf(p: LoadPoint): number {
  return p.level.kind === 'concurrency' ? p.level.concurrency : Number.NaN;
}

export function throughputKnee(points: readonly LoadPoint[]): Knee {
  const xy = points
    // Only points with a steady rate: a whole-run rate over a few requests is mostly ramp and drain.
    .filter((p) => p.level.kind === 'concurrency' && p.requestsPerSec !== null && p.window.steady !== false)
    .map((p) => ({ x: concurrencyOf(p), y: p.requestsPerSec! }))
    .sort((a, b) => a.x - b.x);
  if (xy.length < MIN_LEVELS) return { concurrency: null, reason: `a knee needs at least ${MIN_LEVELS} concurrency levels with a steady throughput (${xy.length} measured${points.length > xy.length ? `; ${points.length - xy.length} had too few requests for a steady rate` : ''})` };
  let best: { k: number; sse: number; before: number; after: number } | undefined;
  for (let k = 1; k < xy.length - 1; k++) {
    const left = fitLine(xy.slice(0, k + 1));
    const right = fitLine(xy.slice(k));
    const sse = left.sse + right.sse;
    if (!best || sse < best.sse) best = { k, sse, before: left.slope, after: right.slope };
  }
  if (!best || !(best.before > 0) || best.after >= best.before / 2) {
    return { concurrency: null, reason: 'throughput still grows with concurrency across the levels measured: no knee in this range' };
  }
  return { concurrency: xy[best.k]!.x, slopeBefore: best.before, slopeAfter: best.after };
}

/** Least-squares line through the points: its slope and the sum of squared residuals. */
function fitLine(points: readonly { x: number; y: number }[]): { slope: number; sse: number } {
  const n = points.length;
  const mx = points.reduce((s, p) => s + p.x, 0) / n;
  const my = points.reduce((s, p) => s + p.y, 0) / n;
  const sxx = points.reduce((s, p) => s + (p.x - mx) ** 2, 0);
  const slope = sxx === 0 ? 0 : points.reduce((s, p) => s + (p.x - mx) * (p.y - my), 0) / sxx;
  const sse = points.reduce((s, p) => s + (p.y - (my + slope * (p.x - mx))) ** 2, 0);
  return { slope, sse };
}

export function saturation(points: readonly LoadPoint[]): Saturation {
  if (!points.some((p) => p.server?.requestsWaiting)) return { level: null, reason: "the server exports no waiting-requests gauge (its /metrics), so saturation is not read from the server's side" };
  for (let i = 1; i < points.length; i++) {
    const point = points[i]!;
    const before = points[i - 1]!;
    const waiting = point.server?.requestsWaiting?.mean ?? 0;
    if (waiting >= 0.5 && (point.ttftMs.p50 ?? 0) > (before.ttftMs.p50 ?? Number.POSITIVE_INFINITY)) return { level: point.label };
  }
  return { level: null, reason: 'the waiting queue drained at every level measured' };
}
