/**
 * Regressions against the dynamic baseline: a window departs when it lies beyond the band *and* by
 * more than the practical margin from the baseline's median; an anomaly needs the departure to be
 * sustained — k of the last n windows (default 3 of 4) — so one outlier window never counts. It ends
 * when fewer than k of the last n depart. Each anomaly has its start, end (or ongoing), the observed
 * value (median of its departing windows), the band at its start, the prompt version live then, and
 * — when a version change falls just before it — that change as the likely cause.
 */
import { baselineAt, type Band, type BaselineOptions, type SeriesPoint } from '../stats/seasonalBaseline';

export type Direction = 'higher-is-worse' | 'lower-is-worse';

export interface VersionChange {
  t: number;
  version: string;
}

export interface Anomaly {
  metric: string;
  start: number;
  /** null while it is still going on. */
  end: number | null;
  observed: number;
  band: Band;
  version: string | null;
  /** The version change within the anomaly's first window or the two before it, if any. */
  likelyCause?: VersionChange;
  /** The anomaly is judged against the windows before that change (a step change is not absorbed by the band). */
  judgedAgainst?: 'pre-change';
}

export interface AnomalyOptions extends BaselineOptions {
  direction?: Direction;
  /** A departure must also exceed the median by this share (practical margin); default 0.2. */
  margin?: number;
  /** Sustained: `need` of the last `of` windows depart; default 3 of 4. */
  sustain?: { need: number; of: number };
  /**
   * Version changes: for PRE_CHANGE_DAYS after a change, a window is judged against the windows before it
   * only, so a step change the deploy made is not taken into its own baseline.
   */
  changes?: readonly VersionChange[];
}

/** How long after a version change its windows are judged against the history before it; later it is the new normal. */
const PRE_CHANGE_DAYS = 7;

export interface WindowJudgement {
  t: number;
  value: number;
  band: Band;
  departs: boolean;
  /** Judged against the history before this version change. */
  preChange?: VersionChange;
}

export function judgeWindows(series: readonly SeriesPoint[], options: AnomalyOptions = {}): WindowJudgement[] {
  const direction = options.direction ?? 'higher-is-worse';
  const margin = options.margin ?? 0.2;
  const sorted = [...series].filter((p) => Number.isFinite(p.value)).sort((a, b) => a.t - b.t);
  const windowMs = options.windowMs ?? 3_600_000;
  // A version first seen in the first window was there when the data begins: no change (else every window of
  // the data's first week would be judged against the nothing before it).
  const changes = [...(options.changes ?? [])].filter((c) => c.t >= (sorted[0]?.t ?? Infinity) + windowMs).sort((a, b) => a.t - b.t);
  return sorted.map((point, i) => {
    // The latest change at or before this window's end, if recent: its own windows are no baseline for it.
    const change = [...changes].reverse().find((c) => c.t < point.t + windowMs && point.t - c.t < PRE_CHANGE_DAYS * 86_400_000);
    const cutoff = change ? Math.floor(change.t / windowMs) * windowMs : undefined;
    const history = cutoff === undefined ? sorted.slice(0, i) : sorted.filter((p) => p.t < cutoff);
    const band = baselineAt(history, point.t, cutoff === undefined ? options : { ...options, daysBack: 14, mixDayKinds: true, rollingEndMs: cutoff });
    if (band.median === null || band.upper === null || band.lower === null) return { t: point.t, value: point.value, band, departs: false, ...(change ? { preChange: change } : {}) };
    // Material: beyond the margin relative to the median, and beyond the absolute floor (rates whose median is 0).
    const floor = options.minAbsoluteWidth ?? 0;
    const departs =
      direction === 'higher-is-worse'
        ? point.value > band.upper && point.value > band.median * (1 + margin) && point.value > band.median + floor
        : point.value < band.lower && point.value < band.median * (1 - margin) && point.value < band.median - floor;
    return { t: point.t, value: point.value, band, departs, ...(change ? { preChange: change } : {}) };
  });
}

export function findAnomalies(metric: string, series: readonly SeriesPoint[], versions: readonly VersionChange[], options: AnomalyOptions = {}): Anomaly[] {
  const { need, of } = options.sustain ?? { need: 3, of: 4 };
  const windowMs = options.windowMs ?? 3_600_000;
  const judged = judgeWindows(series, options);
  const anomalies: Anomaly[] = [];
  let open: { startIndex: number } | undefined;
  for (let i = 0; i < judged.length; i++) {
    const recent = judged.slice(Math.max(0, i - of + 1), i + 1);
    const sustained = recent.filter((w) => w.departs).length >= need;
    if (sustained && !open) {
      // The anomaly starts at the first departing window of the run that made it sustained.
      const first = recent.findIndex((w) => w.departs);
      open = { startIndex: i - recent.length + 1 + first };
    } else if (!sustained && open) {
      anomalies.push(close(metric, judged, open.startIndex, i, versions, windowMs));
      open = undefined;
    }
  }
  if (open) anomalies.push(close(metric, judged, open.startIndex, null, versions, windowMs));
  return anomalies;
}

function close(metric: string, judged: readonly WindowJudgement[], startIndex: number, endIndex: number | null, versions: readonly VersionChange[], windowMs: number): Anomaly {
  const start = judged[startIndex]!;
  const within = judged.slice(startIndex, endIndex ?? judged.length).filter((w) => w.departs).map((w) => w.value).sort((a, b) => a - b);
  const observed = within.length % 2 ? within[within.length >> 1]! : (within[(within.length >> 1) - 1]! + within[within.length >> 1]!) / 2;
  // The version live by the end of the first departing window: a deploy at 14:20 makes the 14:00 window depart.
  const live = [...versions].filter((v) => v.t < start.t + windowMs).sort((a, b) => b.t - a.t)[0];
  const cause = [...versions].filter((v) => v.t < start.t + windowMs && v.t >= start.t - 2 * windowMs).sort((a, b) => b.t - a.t)[0];
  return {
    metric,
    start: start.t,
    end: endIndex === null ? null : judged[endIndex]!.t,
    observed,
    band: start.band,
    version: live?.version ?? null,
    ...(cause ? { likelyCause: cause } : {}),
    ...(start.preChange ? { judgedAgainst: 'pre-change' as const } : {}),
  };
}

/** A static threshold on the same series, for comparison: the windows above it, grouped into runs. */
export function staticThresholdAlerts(series: readonly SeriesPoint[], threshold: number): { start: number; end: number }[] {
  const runs: { start: number; end: number }[] = [];
  for (const p of [...series].sort((a, b) => a.t - b.t)) {
    const last = runs.at(-1);
    if (p.value > threshold) {
      if (last && last.end === -1) continue;
      runs.push({ start: p.t, end: -1 });
    } else if (last && last.end === -1) last.end = p.t;
  }
  const last = runs.at(-1);
  if (last && last.end === -1) last.end = Number.POSITIVE_INFINITY;
  return runs;
}

export interface Drift {
  metric: string;
  /** Median of the last week's windows and of the week four weeks before it. */
  recent: number;
  earlier: number;
  change: number;
}

/**
 * A slow drift becomes its own baseline: the per-window band (median and MAD of the same hour over
 * the last weeks) moves with it. So drift is judged apart: the median of the last seven days against
 * the median of the seven days four weeks earlier, beyond the practical margin. Null when the history
 * is shorter than five weeks or the change is inside the margin.
 */
export function findDrift(metric: string, series: readonly SeriesPoint[], options: { margin?: number; direction?: Direction } = {}): Drift | null {
  const margin = options.margin ?? 0.2;
  const week = 7 * 24 * 3_600_000;
  const sorted = [...series].filter((p) => Number.isFinite(p.value)).sort((a, b) => a.t - b.t);
  const last = sorted.at(-1);
  if (!last || last.t - sorted[0]!.t < 5 * week - 3_600_000) return null;
  const medianOf = (from: number, to: number) => {
    const values = sorted.filter((p) => p.t > from && p.t <= to).map((p) => p.value).sort((a, b) => a - b);
    return values.length === 0 ? null : values.length % 2 ? values[values.length >> 1]! : (values[(values.length >> 1) - 1]! + values[values.length >> 1]!) / 2;
  };
  const recent = medianOf(last.t - week, last.t);
  const earlier = medianOf(last.t - 5 * week, last.t - 4 * week);
  if (recent === null || earlier === null || earlier === 0) return null;
  const change = recent / earlier - 1;
  const worse = (options.direction ?? 'higher-is-worse') === 'higher-is-worse' ? change > margin : change < -margin;
  return worse ? { metric, recent, earlier, change } : null;
}
