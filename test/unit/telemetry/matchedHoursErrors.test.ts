/**
 * Matched error counts in a canary: the stable version serves 100 times the canary's traffic, so its share of an
 * hour's matched requests holds a fraction of an error — counted over all hours, not rounded away hour by hour.
 */
import { describe, expect, it } from 'vitest';
import { HOUR_MS, HourlyValues, matchTime } from '../../../src/core/telemetry/matchedHours';
import { errorRateVerdict } from '../../../src/core/telemetry/prodReport';

const T0 = Date.parse('2026-12-01T00:00:00Z');

/** `perHour` requests an hour for 72 hours, every `errorEvery`-th one failed. */
function version(perHour: number, errorEvery: number, seed: number): HourlyValues {
  const values = new HourlyValues(seed);
  let n = 0;
  for (let hour = 0; hour < 72; hour++) {
    for (let i = 0; i < perHour; i++) values.add(T0 + hour * HOUR_MS + (i * HOUR_MS) / perHour, ++n % errorEvery === 0, 200, 900);
  }
  return values;
}

describe('matched hours: error counts', () => {
  it('equal 4% error rates on 1,000 and 10 requests an hour are matched as equal, and no verdict calls either worse', () => {
    const matched = matchTime(version(1000, 25, 1), version(10, 25, 2), 30);
    expect(matched.method).toBe('same-hours');
    expect(matched.base.requests).toBe(720);
    expect(matched.head.requests).toBe(720);
    // 4% of 720 is 28.8: both sides about 29 (rounded per hour the stable side had 0).
    expect(matched.base.errors).toBe(29);
    expect(Math.abs(matched.head.errors - 29)).toBeLessThanOrEqual(1);
    const verdict = errorRateVerdict({ rev: 'stable', errors: matched.base.errors, total: matched.base.requests }, { rev: 'canary', errors: matched.head.errors, total: matched.head.requests });
    expect(verdict.verdict).toBe('no-difference');
  });

  it('a canary that fails twice as often is still seen at the same scale', () => {
    const matched = matchTime(version(1000, 25, 1), version(10, 12, 2), 30);
    expect(matched.base.errors).toBe(29);
    expect(matched.head.errors).toBe(60);
    const verdict = errorRateVerdict({ rev: 'stable', errors: matched.base.errors, total: matched.base.requests }, { rev: 'canary', errors: matched.head.errors, total: matched.head.requests });
    expect(verdict.verdict).toBe('worse');
  });
});
