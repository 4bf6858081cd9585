/**
 * The Production chart as the page draws it: no legend entry for the band's lower edge, a y-axis fitted
 * to the hours (one extreme hour drawn at the edge as ▲, its tooltip the real value), few time labels, and
 * the anomaly's hours shaded at their slots, and version changes marked inside the chart rather than in
 * the axis's labels (where they collided with the hours beside them).
 */
import { describe, expect, it } from 'vitest';
import type { ProductionSourceView } from '../../../src/core/telemetry/productionView';
import { anomalyRanges, productionChartConfiguration, shortVersion } from '../../../webview/production';

const HOUR = 3_600_000;
const T0 = Date.parse('2026-12-01T00:00:00Z');
const hours = Array.from({ length: 120 }, (_, i) => T0 + i * HOUR);

const source: ProductionSourceView = {
  label: 'traces t/*.jsonl',
  since: '7d',
  kind: 'traces',
  error: null,
  notes: [],
  versions: [],
  baseline: 'dynamic baseline',
  timeline: {
    source: 'traces',
    hourMs: HOUR,
    sinceMs: T0,
    untilMs: T0 + 120 * HOUR,
    // TTFT p50 400…449 ms and p99 800…849 ms; one hour's p99 at 30 s.
    versions: [{ version: 'v1', points: hours.map((t, i) => ({ t, requests: 50, errors: 0, ttftP50Ms: 400 + (i % 50), ttftP99Ms: i === 60 ? 30_000 : 800 + (i % 50) })) }],
    changes: [],
    band: { metric: 'ttftP99Ms', method: 'same-hour-of-day', note: null, points: hours.map((t) => ({ t, lower: 700, upper: 900, median: 820 })) },
  },
  anomalies: [{ metric: 'ttft.p99', label: 'TTFT p99', spans: [{ startMs: T0 + 60 * HOUR, endMs: T0 + 64 * HOUR }], ongoing: false, version: 'v1', causeVersion: null, sentence: '…' }],
};

describe('the Production chart', () => {
  const config = productionChartConfiguration(source, '#000', '#ccc', 'light') as unknown as {
    data: { datasets: { label: string; data: (number | null)[]; pointStyle?: string[]; actual?: (number | null)[] }[] };
    options: { plugins: { legend: { labels: { filter: (item: { text: string }) => boolean } }; tooltip: { callbacks: { label: (item: unknown) => string } }; anomalySpans: { ranges: unknown[] } }; scales: { x: { ticks: { maxTicksLimit: number; autoSkip: boolean } }; y: { max?: number } } };
  };

  it('has no legend entry for the band’s lower edge', () => {
    const legend = config.data.datasets.map((d) => ({ text: d.label })).filter(config.options.plugins.legend.labels.filter).map((i) => i.text);
    expect(legend).toEqual(['baseline band (p99)', 'v1 TTFT p50', 'v1 TTFT p99', 'v1 requests']);
    expect(legend.some((l) => /low/.test(l))).toBe(false);
  });

  it('fits the TTFT axis to the hours: the 30 s hour at the top edge as ▲, its tooltip the real value', () => {
    const max = config.options.scales.y.max;
    expect(max).toBeCloseTo(849 * 1.2);
    const p99 = config.data.datasets.find((d) => d.label === 'v1 TTFT p99')!;
    expect(p99.data[60]).toBeCloseTo(849 * 1.2);
    expect(p99.pointStyle![60]).toBe('triangle');
    expect(p99.pointStyle![59]).toBe('circle');
    expect(config.options.plugins.tooltip.callbacks.label({ dataset: p99, dataIndex: 60, formattedValue: String(p99.data[60]) })).toBe('v1 TTFT p99: 30.00 s (above the axis)');
    expect(config.options.scales.x.ticks).toMatchObject({ autoSkip: true, maxTicksLimit: 12 });
  });

  it('shades the anomaly’s hours at their slots', () => {
    expect(config.options.plugins.anomalySpans.ranges).toEqual([{ from: 60, to: 63, selected: false }]);
    expect(anomalyRanges(hours, source.anomalies!, 0)).toEqual([{ from: 60, to: 63, selected: true }]);
  });

  it('marks a version change inside the chart, not in the axis labels; the hour\'s tooltip names it', () => {
    const version = 'sha256:17f66f0edf5d780b';
    const changed = { ...source, timeline: { ...source.timeline!, changes: [{ t: T0 + 30 * HOUR + 1_234, version, previous: 'v1', before: null, after: null }] } };
    const withChange = productionChartConfiguration(changed, '#000', '#ccc', 'light') as unknown as {
      data: { labels: string[] };
      options: { plugins: { versionChanges: { changes: { index: number; version: string }[] }; tooltip: { callbacks: { title: (items: { dataIndex: number }[]) => string } } } };
    };
    expect(withChange.data.labels.every((l) => !l.includes('◆') && l.length <= 9)).toBe(true);
    expect(withChange.options.plugins.versionChanges.changes).toEqual([{ index: 30, version }]);
    expect(withChange.options.plugins.tooltip.callbacks.title([{ dataIndex: 30 }])).toBe(`${withChange.data.labels[30]} · version change to ${version}`);
    expect(withChange.options.plugins.tooltip.callbacks.title([{ dataIndex: 31 }])).toBe(withChange.data.labels[31]);
    expect(shortVersion(version)).toBe('sha256:17f66f0edf…');
    expect(shortVersion('v-night')).toBe('v-night');
  });
});
