/** Requests in flight, counted from the runs' start and end: a request that never answered held its place until its stream ended. */
import { describe, expect, it } from 'vitest';
import type { RunRecord } from '../../../src/core/metrics/runRecord';
import { maxInFlight } from '../../../src/core/load/loadPointFigures';

const run = (start: number, e2eMs: number | null, streamEndMs: number) => ({ start, record: { e2eMs, streamEndMs } as RunRecord });

describe('requests in flight', () => {
  it('eight overlapping 10 s timeouts are eight in flight (they counted as taking no time: one)', () => {
    expect(maxInFlight(Array.from({ length: 8 }, (_, i) => run(i * 100, null, 10_000)))).toBe(8);
  });
  it('answered requests end at their last token; back-to-back ones are one at a time', () => {
    expect(maxInFlight([run(0, 500, 520), run(500, 500, 520), run(1000, 500, 520)])).toBe(1);
    expect(maxInFlight([run(0, 500, 520), run(100, 500, 520), run(200, null, 0)])).toBe(2);
  });
});
