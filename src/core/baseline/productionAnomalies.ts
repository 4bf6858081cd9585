/**
 * The Production view's anomalies: `watch`'s analysis (core/baseline/watchAnalysis.ts) of a prompt's
 * spans, kept as plain data beside the source's reading (it crosses the worker thread and the LSP), then
 * said in plain words for the time the view shows — when, which metric, how far over the usual, the
 * version live and the likely cause. Anomalies of the same metric and version at about the same hour on
 * consecutive days are said once ("Nights of Dec 1–3").
 */
import { SpanWindows, type WatchMetric } from './spanWindows';
import { analyzeWatch, explainedAnomalies } from './watchAnalysis';
import { watchSeriesFromPrometheus, WATCH_PROMETHEUS_SINCE } from './promSeries';
import type { VersionChange } from './anomalies';
import type { Companion } from './anomalyCause';
import type { SeriesPoint } from '../stats/seasonalBaseline';
import { formatMs } from '../metrics/format';
import { fanOut } from '../telemetry/prodWindows';
import { readFileProduction, sinceToMs, type EditorProductionOptions, type FileProduction, type PrometheusWatchCall, type WatchSinks } from '../telemetry/prodForEditor';
import type { ProductionSource } from '../telemetry/productionSettings';
import type { AnomalyRecord, ProductionAnomaly, PromptWatchData } from '../telemetry/productionAnomalyData';

export type { AnomalyRecord, ProductionAnomaly, PromptWatchData } from '../telemetry/productionAnomalyData';

/** The editor's read of a file's sources with `watch`'s series per prompt in the same pass (trace sources). */
export function readFileProductionWatched(file: string, sources: readonly ProductionSource[], options: EditorProductionOptions): Promise<FileProduction> {
  return readFileProduction(file, sources, { ...options, watch: watchSinks, watchPrometheus: prometheusWatchData });
}

/** `watch --prometheus`'s analysis per prompt name, over its five weeks (the same hour of the week needs four). */
export async function prometheusWatchData(url: string, promptNames: ReadonlySet<string>, call: PrometheusWatchCall): Promise<Record<string, PromptWatchData>> {
  const out: Record<string, PromptWatchData> = {};
  for (const name of promptNames) {
    const read = await watchSeriesFromPrometheus(url, [name], { sinceMs: call.nowMs - sinceToMs(WATCH_PROMETHEUS_SINCE), untilMs: call.nowMs, timeoutMs: call.timeoutMs, maxBytes: call.maxBytes, ...(call.signal ? { signal: call.signal } : {}) });
    out[name] = watchDataOf(read.versions, (metric) => read.series[metric], read.companions);
  }
  return out;
}

/** One SpanWindows per prompt name: the anomalies need every span the files hold, the weeks before the window too. */
export function watchSinks(promptNames: ReadonlySet<string>, nowMs: number): WatchSinks {
  const windows = [...promptNames].map((name) => [name, new SpanWindows(new Set([name]), undefined, undefined, nowMs, false)] as const);
  return { sink: fanOut(...windows.map(([, w]) => w)), data: () => Object.fromEntries(windows.map(([name, w]) => [name, promptWatchData(w)])) };
}

export function promptWatchData(windows: SpanWindows): PromptWatchData {
  return watchDataOf(windows.versionChanges(), (metric) => windows.series(metric), windows.companions());
}

/** The anomalies of a prompt's hourly series, however they were read (spans, or Prometheus's histograms). */
function watchDataOf(versions: VersionChange[], seriesOf: (metric: WatchMetric) => SeriesPoint[], companions: Partial<Record<Companion, SeriesPoint[]>>): PromptWatchData {
  const analysis = analyzeWatch(seriesOf, versions);
  const anomalies = explainedAnomalies(analysis, companions).map(({ anomaly: a, why, lastWindowMs }): AnomalyRecord => ({
    metric: a.metric as WatchMetric,
    startMs: a.start,
    endMs: a.end,
    observed: a.observed,
    usual: a.band.median,
    upper: a.band.upper,
    version: a.version,
    likelyCause: a.likelyCause ?? null,
    movedWith: why.summary,
    pointsAt: why.pointsAt,
    lastWindowMs,
  }));
  return { versions, anomalies };
}

export const METRIC_LABEL: Record<WatchMetric, string> = { 'ttft.p99': 'TTFT p99', 'e2e.p99': 'E2E latency p99', 'error-rate': 'error rate' };
const HOUR_MS = 3_600_000;
const DAY_MS = 86_400_000;
/** An open anomaly whose newest window is older than this is not "ongoing" (the traces stopped). */
export const ONGOING_WITHIN_MS = 2 * HOUR_MS;
const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];

const day = (ms: number) => `${MONTHS[new Date(ms).getUTCMonth()]} ${new Date(ms).getUTCDate()}`;
const clock = (ms: number) => new Date(ms).toISOString().slice(11, 16);
const value = (metric: WatchMetric, v: number | null) => (v === null ? 'n/a' : metric === 'error-rate' ? `${(v * 100).toFixed(1)}%` : formatMs(v));
export const shortVersionLabel = (v: string) => (/^[0-9a-f]{8,64}$/i.test(v) ? v.slice(0, 7) : v.length > 24 ? `${v.slice(0, 23)}…` : v);

export function isOngoing(a: AnomalyRecord, nowMs: number): boolean {
  return a.endMs === null && a.lastWindowMs !== null && nowMs - a.lastWindowMs <= ONGOING_WITHIN_MS;
}

/** The anomalies overlapping [fromMs, untilMs], grouped and said in words, oldest first. */
export function anomalyViews(records: readonly AnomalyRecord[], fromMs: number, untilMs: number, nowMs: number): ProductionAnomaly[] {
  const shown = records.filter((a) => a.startMs < untilMs && (a.endMs ?? Infinity) > fromMs).sort((a, b) => a.startMs - b.startMs);
  const groups: AnomalyRecord[][] = [];
  for (const a of shown) {
    const group = groups.find((g) => recursWith(g.at(-1)!, a));
    if (group) group.push(a);
    else groups.push([a]);
  }
  return groups.map((g) => describe(g, nowMs));
}

/** The same metric, version and cause, starting about the same hour (±3 h) one day after the last. */
function recursWith(last: AnomalyRecord, next: AnomalyRecord): boolean {
  const apart = next.startMs - last.startMs;
  return last.metric === next.metric && last.version === next.version && last.likelyCause?.version === next.likelyCause?.version && Math.abs(apart - DAY_MS) <= 3 * HOUR_MS;
}

function describe(group: AnomalyRecord[], nowMs: number): ProductionAnomaly {
  const first = group[0]!;
  const last = group.at(-1)!;
  const ongoing = isOngoing(last, nowMs);
  const label = METRIC_LABEL[first.metric];
  const observed = Math.max(...group.map((a) => a.observed));
  const version = first.version === null ? null : shortVersionLabel(first.version);
  const causeVersion = first.likelyCause ? shortVersionLabel(first.likelyCause.version) : null;
  const what = `${label} ${value(first.metric, observed)} over the usual ${value(first.metric, first.usual)}`;
  const live = version ? `, while version ${version} was live` : '';
  return {
    metric: first.metric,
    label,
    spans: group.map((a) => ({ startMs: a.startMs, endMs: a.endMs })),
    ongoing,
    version: first.version,
    causeVersion: first.likelyCause?.version ?? null,
    sentence: `${when(group, ongoing)}: ${what}${live} — likely cause: ${cause(first, causeVersion)}`,
  };
}

function when(group: AnomalyRecord[], ongoing: boolean): string {
  const first = group[0]!;
  const last = group.at(-1)!;
  if (group.length > 1) {
    const hour = new Date(first.startMs).getUTCHours();
    const days = `${day(first.startMs)}–${new Date(first.startMs).getUTCMonth() === new Date(last.startMs).getUTCMonth() ? new Date(last.startMs).getUTCDate() : day(last.startMs)}`;
    return `${hour >= 18 || hour < 6 ? 'Nights' : 'Days'} of ${days} (from about ${clock(first.startMs)} UTC)${ongoing ? ', still going on' : ''}`;
  }
  if (first.endMs === null) return `Since ${day(first.startMs)} ${clock(first.startMs)} UTC${ongoing ? ' (ongoing)' : ' (until the newest hour)'}`;
  const end = first.endMs;
  return `${day(first.startMs)} ${clock(first.startMs)}–${day(end) === day(first.startMs) ? '' : `${day(end)} `}${clock(end)} UTC`;
}

function cause(a: AnomalyRecord, causeVersion: string | null): string {
  if (causeVersion) return `the new version ${causeVersion}, live from ${day(a.likelyCause!.t)} ${clock(a.likelyCause!.t)} UTC${a.movedWith ? ` (${a.movedWith})` : ''}`;
  if (a.movedWith) return a.movedWith;
  return 'no version change just before it — look at the load or the server';
}
