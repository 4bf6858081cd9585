import { describe, expect, it } from 'vitest';
import { batchRunner } from '../../../src/core/endpoint/batch';
import { seededRandom } from '../../../src/core/stats/random';

const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('repeated runs', () => {
  it('closed loop: never more than C in flight, warm-ups not kept, results in start order', async () => {
    let inFlight = 0;
    let peak = 0;
    const starts: [number, boolean][] = [];
    const results = await batchRunner(async (i, warmup) => {
      starts.push([i, warmup]);
      peak = Math.max(peak, ++inFlight);
      await pause(5 + (i % 3) * 5);
      inFlight--;
      return i;
    }, { runs: 12, concurrency: 3, warmup: 2 });
    expect(results).toEqual([...Array(12).keys()]);
    expect(peak).toBe(3);
    expect(starts.filter(([, w]) => w)).toHaveLength(2);
  });

  it('open loop: Poisson arrivals at the given rate', async () => {
    const startedAt: number[] = [];
    const t0 = performance.now();
    await batchRunner(async () => void startedAt.push(performance.now() - t0), { runs: 40, concurrency: 40, warmup: 0, ratePerSec: 200, random: seededRandom(3) });
    const span = startedAt[startedAt.length - 1]!;
    // 40 arrivals at 200/s take about 200 ms (Gamma(40, 5 ms): ±35% covers > 99%).
    expect(span).toBeGreaterThan(120);
    expect(span).toBeLessThan(400);
    const gaps = startedAt.slice(1).map((t, i) => t - startedAt[i]!);
    expect(Math.max(...gaps) / Math.min(...gaps.map((g) => Math.max(g, 0.05)))).toBeGreaterThan(5); // exponential, not evenly spaced
  });

  it('open loop at its cap: arrivals wait in order up to maxWaiting, later ones are dropped and counted', async () => {
    // Five arrivals all due at once; the runs end only when released, so the order is the schedule's alone.
    const release: (() => void)[] = [];
    const started: number[] = [];
    const delays: [number, number][] = [];
    let counts: unknown;
    const done = batchRunner(
      (i) => {
        started.push(i);
        return new Promise<number>((r) => release.push(() => r(i)));
      },
      { runs: 5, concurrency: 2, warmup: 0, ratePerSec: 1, interArrivalMs: () => 0, maxWaiting: 1, onArrivals: (c) => (counts = c), onDispatchDelay: (i, _d, scheduled) => delays.push([i, scheduled]) },
    );
    while (release.length < 2) await pause(1);
    expect(started).toEqual([0, 1]);
    release.shift()!(); // a place frees: the one waiting goes out
    while (release.length < 2) await pause(1);
    expect(started).toEqual([0, 1, 2]);
    while (release.length > 0) release.shift()!();
    expect(await done).toEqual([0, 1, 2]);
    expect(counts).toEqual({ arrived: 5, waited: 1, dropped: 2, unsent: 0, peakInFlight: 2, cap: 2 });
    // The one that waited keeps its scheduled time (its wait is its dispatch delay).
    expect(delays).toEqual([[0, 0], [1, 0], [2, 0]]);
  });

  it('cancelling stops new starts and keeps every finished run', async () => {
    const controller = new AbortController();
    const finished: number[] = [];
    const results = await batchRunner(async (i) => {
      await pause(20);
      if (i === 2) controller.abort();
      return i;
    }, { runs: 100, concurrency: 2, warmup: 0, signal: controller.signal }, (r) => finished.push(r));
    expect(results.length).toBeGreaterThanOrEqual(3);
    expect(results.length).toBeLessThan(6);
    expect(finished.sort((a, b) => a - b)).toEqual(results);
  });
});
