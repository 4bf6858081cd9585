/**
 * Repeated runs: warm-up runs first (not kept), then N runs with at most C in flight, either
 * closed-loop (a new run starts when one ends) or open-loop with Poisson arrivals at R per second.
 * Cancelling stops new starts; finished runs are kept and returned in start order.
 */
import { getMaxListeners, setMaxListeners } from 'node:events';

export interface BatchOptions {
  runs: number;
  concurrency: number;
  warmup: number;
  /** Arrivals per second (Poisson); absent = closed loop. */
  ratePerSec?: number;
  signal?: AbortSignal;
  random?: () => number;
  /**
   * Open loop: how late each request went out against its scheduled arrival (ms) — a client that cannot keep
   * up shows here — and when it was scheduled, in ms from `origin` (the schedule itself, not a clock reading).
   */
  onDispatchDelay?: (index: number, delayMs: number, scheduledMs: number) => void;
  /** Open loop: the gap before each arrival (ms); absent = exponential (Poisson) at ratePerSec. */
  interArrivalMs?: () => number;
  /** Closed loop: no new request starts after this long (ms from the first); open loop: none is scheduled after it. Those in flight finish. */
  durationMs?: number;
  /** The performance.now() the caller's timestamps count from: the duration and an open loop's schedule count from it too, so a point's stamps and its bound share one clock. Ignored after warm-up runs (the measured part starts after them). */
  origin?: number;
}

export async function batchRunner<T>(runOne: (index: number, warmup: boolean) => Promise<T>, options: BatchOptions, onDone?: (result: T, index: number) => void): Promise<T[]> {
  const { signal } = options;
  // Every request in flight listens for the cancel on this one signal (and lets go when it ends): as
  // many listeners as requests at once is expected, not a leak — so Node is told, instead of warning at 11.
  if (signal) setMaxListeners(Math.max(getMaxListeners(signal), 2 * Math.min(options.runs, options.concurrency) + 10), signal);
  for (let i = 0; i < options.warmup && !signal?.aborted; i++) await runOne(i, true);
  const results: (T | undefined)[] = new Array(options.runs);
  const concurrency = Math.max(1, Math.min(options.concurrency, options.runs));
  let next = 0;
  const origin = options.origin !== undefined && options.warmup === 0 ? options.origin : performance.now();
  const stopAt = options.durationMs !== undefined ? origin + options.durationMs : Number.POSITIVE_INFINITY;
  const timeLeft = (): boolean => performance.now() < stopAt;
  const finish = (index: number) => (result: T) => {
    results[index] = result;
    onDone?.(result, index);
  };
  if (options.ratePerSec === undefined) {
    const worker = async (): Promise<void> => {
      while (next < options.runs && !signal?.aborted && timeLeft()) {
        const index = next++;
        finish(index)(await runOne(index, false));
      }
    };
    await Promise.all(Array.from({ length: concurrency }, worker));
  } else {
    const random = options.random ?? Math.random;
    const inFlight = new Set<Promise<void>>();
    let due = origin;
    const gap = options.interArrivalMs ?? ((): number => (-Math.log(1 - random()) / options.ratePerSec!) * 1000);
    while (next < options.runs && !signal?.aborted) {
      due += gap();
      if (due >= stopAt) break;
      await delayUntil(due, signal);
      while (inFlight.size >= concurrency) await Promise.race(inFlight);
      // The schedule bounds an open loop: a request due before the end goes out, late if the client lagged.
      if (signal?.aborted) break;
      const index = next++;
      options.onDispatchDelay?.(index, performance.now() - due, due - origin);
      const run: Promise<void> = runOne(index, false).then(finish(index)).finally(() => inFlight.delete(run));
      inFlight.add(run);
    }
    await Promise.all(inFlight);
  }
  return results.filter((r): r is T => r !== undefined);
}

function delayUntil(due: number, signal: AbortSignal | undefined): Promise<void> {
  const wait = due - performance.now();
  if (wait <= 0) return Promise.resolve();
  return new Promise((resolve) => {
    const timer = setTimeout(done, wait);
    function done(): void {
      clearTimeout(timer);
      signal?.removeEventListener('abort', done);
      resolve();
    }
    signal?.addEventListener('abort', done, { once: true });
  });
}
