/**
 * A sweep (GuideLLM's idea): a synchronous point (one request at a time) gives the lowest useful
 * rate, a saturating point (every request in flight at once, up to the limit) the highest; then
 * N − 2 open-loop rates evenly between them. The sweep stops early once the server is
 * over-saturated — its waiting queue holds requests and TTFT rose across the point — since higher
 * rates would only measure the backlog.
 */
import type { LoadLevel, LoadPoint } from './loadPointRecord';

export interface SweepResult {
  points: LoadPoint[];
  /** Why it stopped before the last planned rate, if it did. */
  stoppedEarly?: string;
}

export async function sweep(levels: number, limit: number, requests: number, measure: (level: LoadLevel) => Promise<LoadPoint>, signal?: AbortSignal): Promise<SweepResult> {
  const points: LoadPoint[] = [];
  const synchronous = await measure({ kind: 'concurrency', concurrency: 1 });
  points.push(synchronous);
  if (signal?.aborted) return { points };
  const saturating = await measure({ kind: 'concurrency', concurrency: Math.max(1, Math.min(limit, requests)) });
  points.push(saturating);
  const low = synchronous.requestsPerSec;
  const high = saturating.requestsPerSec;
  if (low === null || high === null || !(high > low)) return { points, stoppedEarly: 'the saturating point is no faster than one request at a time: no rates between them to sweep' };
  const between = Math.max(0, levels - 2);
  let previous = synchronous;
  for (let i = 1; i <= between && !signal?.aborted; i++) {
    const rate = Math.round((low + ((high - low) * i) / (between + 1)) * 1000) / 1000;
    const point = await measure({ kind: 'rate', ratePerSec: rate, maxConcurrency: limit });
    points.push(point);
    if (point.sent > 0 && point.failed === point.sent) return { points, stoppedEarly: `the endpoint stopped answering at ${point.label}; the points before it are kept` };
    const waiting = point.server?.requestsWaiting?.mean ?? 0;
    if (waiting >= 0.5 && (point.ttftMs.p50 ?? 0) > (previous.ttftMs.p50 ?? Number.POSITIVE_INFINITY)) {
      if (i < between) return { points, stoppedEarly: `over-saturated at ${point.label}: the server's waiting queue holds ${waiting.toFixed(1)} requests on average and TTFT rose; higher rates would measure the backlog` };
    }
    previous = point;
  }
  return { points };
}
