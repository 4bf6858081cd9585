/**
 * Repeated runs: warm-up runs first (not kept), then N runs with at most C in flight, either
 * closed-loop (a new run starts when one ends) or open-loop with Poisson arrivals at R per second.
 * Open loop: an arrival while C are in flight waits in a queue (first in, first out; the schedule
 * keeps its times, so its wait shows as dispatch delay from its scheduled time) and, with
 * `maxWaiting`, one arriving when that queue is full is dropped — never sent, counted.
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
  /** Open loop: at most this many arrivals wait for a place in flight; one more is dropped (default: all wait). */
  maxWaiting?: number;
  /** Open loop: called once at the end with how the arrivals fared against the cap on requests in flight. */
  onArrivals?: (arrivals: ArrivalCounts) => void;
  /** The performance.now() the caller's timestamps count from: the duration and an open loop's schedule count from it too, so a point's stamps and its bound share one clock. Ignored after warm-up runs (the measured part starts after them). */
  origin?: number;
}

/** An open loop's arrivals: sent at once, sent after waiting for a place in flight, or dropped; and the most in flight. */
export interface ArrivalCounts {
  arrived: number;
  waited: number;
  dropped: number;
  /** Arrivals still waiting when the batch was cancelled: never sent. */
  unsent: number;
  peakInFlight: number;
  /** The cap on requests in flight the loop ran with. */
  cap: number;
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
    const gap = options.interArrivalMs ?? ((): number => (-Math.log(1 - random()) / options.ratePerSec!) * 1000);
    await openLoop(options, concurrency, origin, stopAt, gap, (index) => runOne(index, false).then(finish(index)), () => next++);
  }
  return results.filter((r): r is T => r !== undefined);
}

/**
 * The open loop: arrivals at their scheduled times; each goes out at once while fewer than `cap` are
 * in flight, else waits (FIFO) for one to end, else — with the wait queue full — is dropped.
 */
async function openLoop(options: BatchOptions, cap: number, origin: number, stopAt: number, gap: () => number, send: (index: number) => Promise<void>, nextIndex: () => number): Promise<void> {
  const { signal } = options;
  const maxWaiting = options.maxWaiting ?? Number.POSITIVE_INFINITY;
  const inFlight = new Set<Promise<void>>();
  const waiting: number[] = [];
  const counts: ArrivalCounts = { arrived: 0, waited: 0, dropped: 0, unsent: 0, peakInFlight: 0, cap };
  const start = (due: number): void => {
    const index = nextIndex();
    options.onDispatchDelay?.(index, performance.now() - due, due - origin);
    const run: Promise<void> = send(index).finally(() => {
      inFlight.delete(run);
      // The place it held goes to the longest-waiting arrival.
      if (waiting.length > 0 && !signal?.aborted) start(waiting.shift()!);
    });
    inFlight.add(run);
    counts.peakInFlight = Math.max(counts.peakInFlight, inFlight.size);
  };
  let due = origin;
  while (counts.arrived < options.runs && !signal?.aborted) {
    due += gap();
    // The schedule bounds an open loop: an arrival due before the end is sent, late if it waited or the client lagged.
    if (due >= stopAt) break;
    await delayUntil(due, signal);
    if (signal?.aborted) break;
    counts.arrived++;
    if (inFlight.size < cap) start(due);
    else if (waiting.length < maxWaiting) {
      waiting.push(due);
      counts.waited++;
    } else counts.dropped++;
  }
  // Those waiting go out as places free up; a request ending starts the next before it leaves the set.
  while (inFlight.size > 0) await Promise.race(inFlight);
  counts.unsent = waiting.length;
  options.onArrivals?.(counts);
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
