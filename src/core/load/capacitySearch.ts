/**
 * The largest concurrency whose SLO attainment reaches the target: concurrency doubled from 1 while
 * the level attains (its share ≥ target), then bisected between the last level that attained and
 * the first that did not. Each level says whether its Wilson interval settled it (resolved) — a
 * capacity whose neighbours are unresolved needs more requests per level, and the result says so.
 */
import type { LoadPoint } from './loadPointRecord';

export interface CapacityResult {
  /** The largest concurrency that attained; 0 when even one request at a time did not. */
  maxConcurrency: number;
  /** The limit was reached while still attaining: capacity is at least this. */
  atLimit: boolean;
  /** Both the answer and the first level above it are settled by their intervals. */
  resolved: boolean;
  /** When not resolved: about how many requests per level would resolve the levels around the answer. */
  requestsToResolve: number | null;
  points: LoadPoint[];
}

/**
 * `requests`: per level. No level beyond it is tried — a closed-loop level of C with fewer than C
 * requests never has C in flight — so the highest level claimed is one measured at that concurrency.
 */
export async function searchMaxConcurrency(measure: (concurrency: number) => Promise<LoadPoint>, options: { limit: number; requests?: number; signal?: AbortSignal }): Promise<CapacityResult> {
  const limit = Math.max(1, Math.min(options.limit, options.requests ?? options.limit));
  const points: LoadPoint[] = [];
  const byConcurrency = new Map<number, LoadPoint>();
  const attains = async (c: number): Promise<boolean> => {
    let point = byConcurrency.get(c);
    if (!point) {
      point = await measure(c);
      points.push(point);
      byConcurrency.set(c, point);
    }
    return point.attainment.attains;
  };
  let good = 0;
  let bad: number | undefined;
  for (let c = 1; ; c = Math.min(limit, c * 2)) {
    if (options.signal?.aborted) break;
    if (await attains(c)) good = c;
    else {
      bad = c;
      break;
    }
    if (c >= limit) break;
  }
  while (bad !== undefined && bad - good > 1 && !options.signal?.aborted) {
    const mid = Math.floor((good + bad) / 2);
    if (await attains(mid)) good = mid;
    else bad = mid;
  }
  const settled = (c: number | undefined) => c === undefined || c === 0 || byConcurrency.get(c)?.attainment.resolved !== null;
  const needs = [good, bad].map((c) => (c === undefined || c === 0 ? 0 : (byConcurrency.get(c)?.attainment.requestsToResolve ?? 0)));
  const resolved = settled(good) && settled(bad);
  return { maxConcurrency: good, atLimit: bad === undefined && good >= limit, resolved, requestsToResolve: resolved ? null : Math.max(...needs) || null, points: points.sort((a, b) => concurrencyOf(a) - concurrencyOf(b)) };
}

function concurrencyOf(point: LoadPoint): number {
  return point.level.kind === 'concurrency' ? point.level.concurrency : point.level.maxConcurrency;
}
