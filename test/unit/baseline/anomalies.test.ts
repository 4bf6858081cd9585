/**
 * Dynamic baselines on generated production series of known shape: hourly TTFT p99 with a daily
 * peak, a weekend dip and seeded noise; a single spike; a night-time step regression after a new
 * prompt version; a slow drift. The same series judged by static thresholds, side by side.
 */
import { describe, expect, it } from 'vitest';
import { findAnomalies, findDrift, staticThresholdAlerts } from '../../../src/core/baseline/anomalies';
import { baselineAt } from '../../../src/core/stats/seasonalBaseline';
import { DAY, HOUR, series, SPIKE_AT, STEP_AT, T0, VERSION_CHANGE, workedExample } from '../../fixtures/productionSeries';

describe('dynamic baseline', () => {
  it('uses the same hour of the week when there is history; a rolling day meanwhile; says what it still needs', () => {
    const s = series(3, (_t, v) => v);
    const weekday14 = T0 + 2 * 7 * DAY + 2 * DAY + 14 * HOUR;
    const seasonal = baselineAt(s, weekday14);
    expect(seasonal.method).toBe('same-hour-of-week');
    expect(seasonal.median!).toBeGreaterThan(1300); // the peak is normal at 14:00 on a weekday
    const early = baselineAt(s, T0 + 8 * DAY + 14 * HOUR);
    expect(early).toMatchObject({ method: 'same-hour-of-day', note: expect.stringContaining('the weekly rhythm needs 1 more week of history') });
    expect(early.median!).toBeGreaterThan(1200); // the daily peak is known from the last days at 14:00
    expect(baselineAt(s, T0 + DAY + 14 * HOUR)).toMatchObject({ method: 'rolling-day' });
    expect(baselineAt(s, T0 + DAY + 14 * HOUR).upper!).toBeGreaterThan(1400); // the last day's peak is inside the band
    expect(baselineAt(s, T0 + 5 * HOUR)).toMatchObject({ method: 'none', note: expect.stringMatching(/no baseline yet: .* or 19 more hours for a rolling one/) });
  });

  it('in the first weeks the same hour of the day comes from days of the same kind: the Monday peak after a weekend is the usual', () => {
    // History starts on a Friday: the first Monday's 14:00 has Friday's only as a weekday, then Thursday…
    const fridayStart = T0 - 3 * DAY;
    const s = series(2, (_t, v) => v).map((p) => ({ t: p.t - 3 * DAY, value: p.value }));
    const monday14 = T0 + 14 * HOUR;
    const band = baselineAt(s.filter((p) => p.t < monday14), monday14);
    expect(band.method).not.toBe('same-hour-of-day'); // one weekday (Friday) is not three
    expect(band.upper!).toBeGreaterThan(1400);
    const thursday14 = T0 + 3 * DAY + 14 * HOUR; // Fri, Mon, Tue, Wed before it
    expect(baselineAt(s, thursday14)).toMatchObject({ method: 'same-hour-of-day' });
    expect(baselineAt(s, thursday14).median!).toBeGreaterThan(1300);
    expect(findAnomalies('ttft.p99', s.filter((p) => p.t >= fridayStart), [])).toEqual([]);
  });

  it('catches the night-time step regression after a version change, ignores the daily peak and a single spike', () => {
    const s = workedExample();
    const anomalies = findAnomalies('ttft.p99', s, [{ t: T0, version: 'a1b2c3d' }, VERSION_CHANGE]);
    expect(anomalies.length).toBeGreaterThanOrEqual(1);
    const first = anomalies[0]!;
    expect(first.start).toBe(STEP_AT);
    expect(first.version).toBe('b7e1c2d');
    expect(first.likelyCause).toEqual(VERSION_CHANGE);
    expect(first.observed).toBeGreaterThan(first.band.upper!);
    // Every anomaly is a night of the regression; none at a daytime peak, none at the spike.
    for (const a of anomalies) {
      expect(new Date(a.start).getUTCHours()).toBeLessThan(7);
      expect(a.start).toBeGreaterThanOrEqual(STEP_AT);
    }
  });

  it('the version live when the data begins (first seen minutes into its first hour) is no change: a slow night in its first week is found', () => {
    // One week from a Monday; the slow night is Thursday 01:00–04:00, the three weekdays before it its baseline.
    const s = series(1, (t, v) => (t >= T0 + 3 * DAY + HOUR && t < T0 + 3 * DAY + 4 * HOUR ? v * 5 : v));
    const found = findAnomalies('ttft.p99', s, [{ t: T0 + 8 * 60_000, version: 'a1' }], { changes: [{ t: T0 + 8 * 60_000, version: 'a1' }] });
    expect(found.map((a) => [a.start, a.version])).toEqual([[T0 + 3 * DAY + HOUR, 'a1']]);
  });

  it('a static threshold either fires at every daily peak or misses the night regression; the baseline does neither', () => {
    const s = series(6, (t, v) => (t >= STEP_AT && new Date(t).getUTCHours() < 7 ? v * 1.5 : v));
    const low = staticThresholdAlerts(s, 1100); // catches the 1,200 ms nights …
    const high = staticThresholdAlerts(s, 1500); // … or stays above the 1,400 ms peak
    const daytime = (runs: { start: number }[]) => runs.filter((r) => new Date(r.start).getUTCHours() >= 8).length;
    const nights = (runs: { start: number }[]) => runs.filter((r) => r.start >= STEP_AT && new Date(r.start).getUTCHours() < 7).length;
    expect(daytime(low)).toBeGreaterThanOrEqual(25); // every weekday's peak, for six weeks
    expect(nights(low)).toBeGreaterThanOrEqual(4);
    expect(high).toEqual([]); // the regression is never seen
    const dynamic = findAnomalies('ttft.p99', s, []);
    expect(daytime(dynamic)).toBe(0);
    expect(nights(dynamic)).toBeGreaterThanOrEqual(4);
  });

  it('a slow drift (+2% a day) becomes its own per-window baseline, so it is judged week against week: caught; a stable series or a spike is not drift', () => {
    const drifting = series(6, (t, v) => v * (1 + 0.02 * ((t - T0) / DAY)));
    expect(findAnomalies('ttft.p99', drifting, [])).toEqual([]); // the per-window band moves with it …
    const drift = findDrift('ttft.p99', drifting)!; // … the week-over-month check does not
    expect(drift.change).toBeGreaterThan(0.3);
    expect(findDrift('ttft.p99', series(6, (_t, v) => v))).toBeNull();
    expect(findDrift('ttft.p99', series(6, (t, v) => (t === SPIKE_AT ? v * 3 : v)))).toBeNull(); // one spike moves no weekly median
    expect(findDrift('ttft.p99', series(3, (_t, v) => v))).toBeNull(); // too little history
  });

  it('gaps and too little history are said, not guessed', () => {
    const sparse = series(3, (_t, v) => v).filter((_, i) => i % 5 !== 0);
    expect(() => findAnomalies('ttft.p99', sparse, [])).not.toThrow();
    const short = series(1, (_t, v) => v).slice(0, 10);
    expect(findAnomalies('ttft.p99', short, [])).toEqual([]);
    expect(baselineAt(short, short.at(-1)!.t + HOUR).method).toBe('none');
  });

  it('gaps neither shift nor invent anything: a lost day and every fifth hour missing, the regression is still found where it starts and nothing else', () => {
    const lostDay = STEP_AT - 7 * DAY - 2 * HOUR; // the same Tuesday a week before: one of the weeks the baseline uses
    const gappy = workedExample().filter((p, i) => (p.t < lostDay || p.t >= lostDay + DAY) && (i % 5 !== 0 || p.t >= STEP_AT));
    const anomalies = findAnomalies('ttft.p99', gappy, [VERSION_CHANGE]);
    expect(anomalies[0]).toMatchObject({ start: STEP_AT, likelyCause: VERSION_CHANGE, band: { method: 'same-hour-of-week' } });
    for (const a of anomalies) expect(new Date(a.start).getUTCHours()).toBeLessThan(7);
  });
});

describe('bands of non-negative metrics', () => {
  it('never go below 0 (an error rate of 0.5% ± 3 MADs is not "−1.2% to 2.2%")', () => {
    const week = 7 * 24 * 3_600_000;
    const history = [0.001, 0.02, 0.0, 0.03].map((value, i) => ({ t: 10 * week - (i + 1) * week, value }));
    const band = baselineAt(history, 10 * week);
    expect(band.method).toBe('same-hour-of-week');
    expect(band.lower).toBe(0);
    expect(band.upper!).toBeGreaterThan(band.median!);
  });
});
