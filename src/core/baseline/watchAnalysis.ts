/**
 * The `watch` analysis, shared by the CLI's `watch` and the editor's Production view: per metric (TTFT and
 * E2E p99, the error rate, per hour) the current window against its dynamic baseline, every sustained
 * anomaly (judged against the history before a version change for a week after it), what moved with
 * each (anomalyCause.ts), and a slow drift. The caller reads the hourly series (SpanWindows for trace
 * files, promSeries.ts for Prometheus).
 */
import { findAnomalies, findDrift, type Anomaly, type Drift, type VersionChange } from './anomalies';
import { explainAnomaly, type Companion, type Explanation } from './anomalyCause';
import { WATCH_METRICS, type WatchMetric } from './spanWindows';
import { baselineAt, type Band, type SeriesPoint } from '../stats/seasonalBaseline';

/** Rates: a change of less than one percentage point is never an anomaly. */
export const RATE_FLOOR = 0.01;

const DAY_MS = 86_400_000;

export interface MetricWatch {
  metric: WatchMetric;
  /** Hourly windows with enough requests. */
  windows: number;
  /** The newest window against the band of the windows before it. */
  current: { t: number; value: number; band: Band } | null;
  /** Days until the weekly rhythm can be used (0 when it can). */
  needsDays: number;
  anomalies: Anomaly[];
  drift: Drift | null;
  /** Start of the newest window of this metric (an anomaly without end is ongoing only if this is recent). */
  lastWindowMs: number | null;
}

export interface WatchAnalysis {
  versions: VersionChange[];
  metrics: MetricWatch[];
}

/** Every metric's state, anomalies and drift, from its hourly series and the version changes. */
export function analyzeWatch(seriesOf: (metric: WatchMetric) => SeriesPoint[], versions: VersionChange[]): WatchAnalysis {
  const metrics = WATCH_METRICS.map((metric): MetricWatch => {
    const series = seriesOf(metric);
    const options = metric === 'error-rate' ? { minAbsoluteWidth: RATE_FLOOR } : {};
    const last = series.at(-1);
    return {
      metric,
      windows: series.length,
      current: last ? { t: last.t, value: last.value, band: baselineAt(series.slice(0, -1), last.t, options) } : null,
      needsDays: weeklyRhythmNeedsDays(series),
      anomalies: findAnomalies(metric, series, versions, { ...options, changes: versions }),
      drift: findDrift(metric, series, metric === 'error-rate' ? { margin: 0.5 } : {}),
      lastWindowMs: last?.t ?? null,
    };
  });
  return { versions, metrics };
}

/** Each anomaly of every metric with what moved with it. */
export function explainedAnomalies(analysis: WatchAnalysis, companions: Partial<Record<Companion, readonly SeriesPoint[]>>): { anomaly: Anomaly; why: Explanation; lastWindowMs: number | null }[] {
  return analysis.metrics.flatMap((m) => m.anomalies.map((anomaly) => ({ anomaly, why: explainAnomaly(anomaly, companions), lastWindowMs: m.lastWindowMs })));
}

/** Days until the series spans the two weeks the same-hour-of-week baseline needs (0 when it does). */
export function weeklyRhythmNeedsDays(series: readonly SeriesPoint[]): number {
  if (series.length === 0) return 14;
  const span = series.at(-1)!.t - series[0]!.t;
  return Math.max(0, Math.ceil((14 * DAY_MS - span) / DAY_MS));
}
