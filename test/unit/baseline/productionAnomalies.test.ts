/**
 * The Production page's anomalies: `watch`'s analysis of planted hourly traffic (two weeks at the usual
 * TTFT, then a new version whose night runs slow), said in words for the window shown; recurring nights
 * said once; "ongoing" only while the newest hours are recent; the window the page reads; the y-axis fit.
 */
import { describe, expect, it } from 'vitest';
import { SpanWindows } from '../../../src/core/baseline/spanWindows';
import { anomalyViews, isOngoing, promptWatchData, type AnomalyRecord } from '../../../src/core/baseline/productionAnomalies';
import type { ImportedSpan } from '../../../src/core/telemetry/importOtlpSpans';
import type { FileProduction } from '../../../src/core/telemetry/prodForEditor';
import { lastVersionChangeMs, viewSince } from '../../../src/core/telemetry/productionWindow';
import { clipToAxis, fitAxis } from '../../../src/core/metrics/axisFit';

const HOUR = 3_600_000;
const NOW = Date.parse('2026-12-04T12:00:00Z');
const DEPLOY = Date.parse('2026-12-03T21:30:00Z');

function span(startMs: number, version: string, ttftMs: number): ImportedSpan {
  return { promptName: 'greet', promptVersion: version, startMs, endMs: startMs + ttftMs + 500, ttftMs, e2eMs: ttftMs + 500, tpotMs: null, inputTokens: null, errorType: null } as unknown as ImportedSpan;
}

/** 20 requests an hour for 15 days: TTFT 780…819 ms; from 22:00 to 04:00 after the deploy, 1.9 s. */
function plantedWindows(): SpanWindows {
  const windows = new SpanWindows(new Set(['greet']), undefined, undefined, NOW);
  for (let hour = Math.floor((NOW - 15 * 24 * HOUR) / HOUR) * HOUR; hour < NOW; hour += HOUR) {
    const version = hour + HOUR > DEPLOY ? 'bbbbbbb2222' : 'aaaaaaa1111';
    const slow = hour >= Date.parse('2026-12-03T22:00:00Z') && hour < Date.parse('2026-12-04T04:00:00Z');
    for (let i = 0; i < 20; i++) windows.span(span(Math.max(hour + i * 60_000, version === 'bbbbbbb2222' ? DEPLOY : 0), version, slow ? 1900 : 780 + (i * 7) % 40));
  }
  return windows;
}

describe('the Production page’s anomalies', () => {
  const data = promptWatchData(plantedWindows());

  it('finds the slow night after the deploy and says when, what, the version live and the likely cause', () => {
    expect(data.versions.map((v) => v.version)).toEqual(['aaaaaaa1111', 'bbbbbbb2222']);
    const views = anomalyViews(data.anomalies, NOW - 24 * HOUR, NOW, NOW);
    const ttft = views.filter((a) => a.metric === 'ttft.p99');
    expect(ttft).toHaveLength(1);
    expect(ttft[0]!.spans).toEqual([{ startMs: Date.parse('2026-12-03T22:00:00Z'), endMs: expect.any(Number) }]);
    expect(ttft[0]!.ongoing).toBe(false);
    expect(ttft[0]!.causeVersion).toBe('bbbbbbb2222');
    expect(ttft[0]!.sentence).toMatch(/^Dec 3 22:00–Dec 4 0\d:00 UTC: TTFT p99 1\.90 s over the usual 8\d\d ms, while version bbbbbbb was live — likely cause: the new version bbbbbbb, live from Dec 3 21:30 UTC/);
  });

  it('leaves out anomalies outside the window shown', () => {
    expect(anomalyViews(data.anomalies, NOW - 6 * HOUR, NOW, NOW)).toEqual([]);
  });

  it('says anomalies on consecutive nights once, and "ongoing" only while the newest hours are recent', () => {
    const night = (day: number, end: number | null): AnomalyRecord => ({ metric: 'ttft.p99', startMs: Date.parse(`2026-12-0${day}T23:00:00Z`), endMs: end, observed: 1900, usual: 800, upper: 950, version: 'v2', likelyCause: null, movedWith: null, pointsAt: null, lastWindowMs: NOW - HOUR });
    const nights = [night(1, Date.parse('2026-12-02T03:00:00Z')), night(2, Date.parse('2026-12-03T03:00:00Z')), night(3, null)];
    const [said] = anomalyViews(nights, NOW - 7 * 24 * HOUR, NOW, NOW);
    expect(said!.sentence).toBe('Nights of Dec 1–3 (from about 23:00 UTC), still going on: TTFT p99 1.90 s over the usual 800 ms, while version v2 was live — likely cause: no version change just before it — look at the load or the server');
    expect(said!.spans).toHaveLength(3);
    expect(isOngoing(nights[2]!, NOW)).toBe(true);
    expect(isOngoing({ ...nights[2]!, lastWindowMs: NOW - 5 * HOUR }, NOW)).toBe(false);
    expect(isOngoing(nights[0]!, NOW)).toBe(false);
  });
});

describe('the window the page reads', () => {
  const production = (since: string): FileProduction => ({
    file: 'greet.prompt',
    readings: [{ source: { kind: 'traces', traces: 't/*.jsonl', since }, label: 't', report: null, timeline: null, notes: [], watch: { greet: { versions: [{ t: NOW - 20 * 24 * HOUR, version: 'a' }, { t: NOW - 3 * 24 * HOUR, version: 'b' }], anomalies: [] } } }],
    versions: { promptNames: new Set(['greet']), revisions: [] } as unknown as FileProduction['versions'],
    readAtMs: NOW,
  });

  it('since the last version change: from six hours before it, at least 24 h; the default also at least the setting', () => {
    expect(lastVersionChangeMs(production('24h'), 'greet')).toBe(NOW - 3 * 24 * HOUR);
    expect(viewSince(production('24h'), 'greet', 'since-change', NOW)).toBe('78h');
    expect(viewSince(production('24h'), 'greet', undefined, NOW)).toBe('78h');
    expect(viewSince(production('30d'), 'greet', undefined, NOW)).toBeUndefined();
    expect(viewSince(production('30d'), 'greet', 'since-change', NOW)).toBe('78h');
    expect(viewSince(production('24h'), 'greet', '7d', NOW)).toBe('7d');
    expect(viewSince(production('24h'), 'greet', '24h', NOW)).toBeUndefined();
  });
});

describe('the y-axis fit', () => {
  it('a few extreme hours: the axis ends at the 99th percentile × 1.2, they are drawn at its edge', () => {
    const values = [...Array.from({ length: 300 }, (_, i) => 800 + (i % 50)), 9000, 9500, 12_000, null];
    const fit = fitAxis(values);
    expect(fit).toEqual({ max: 849 * 1.2, clipped: true });
    expect(clipToAxis(12_000, fit.max)).toBe(849 * 1.2);
    expect(clipToAxis(810, fit.max)).toBe(810);
  });

  it('values without outliers: the chart fits itself', () => {
    expect(fitAxis([100, 200, 300])).toEqual({ max: undefined, clipped: false });
    expect(fitAxis([])).toEqual({ max: undefined, clipped: false });
  });
});
