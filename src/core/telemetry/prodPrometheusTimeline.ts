/**
 * A prompt's production over time from Prometheus (range queries, one step per hour): per version the
 * request count, errors and TTFT p50/p99 of each hour, the hour each version first answered, and the
 * dynamic baseline band of the hourly TTFT p99 over all versions, from up to five weeks before the
 * window. Every answer is bounded as the instant queries are (time, bytes, series).
 */
import { boundedGet } from '../endpoint/boundedGet';
import { medianOf } from '../stats/percentile';
import { counted, DURATION_COUNT, HISTOGRAMS, MAX_SERIES, NAME_LABEL, PrometheusError, VERSION_LABEL } from './prodPrometheus';
import type { ProdReport } from './prodReport';
import { baselineBand, HOUR_MS, versionChanges, type TimelineData, type TimelinePoint } from './prodTimeline';

export interface RangeSeries {
  labels: Record<string, string>;
  /** [Unix ms, value] per step. */
  values: [number, number][];
}

const BASELINE_HISTORY_MS = 5 * 7 * 24 * HOUR_MS;
const WEEK_MS = 7 * 24 * HOUR_MS;

export async function rangeQuery(baseUrl: string, query: string, range: { startMs: number; endMs: number; stepS: number }, bounds: { timeoutMs: number; maxBytes: number }): Promise<{ series: RangeSeries[]; dropped: number }> {
  const params = new URLSearchParams({ query, start: (range.startMs / 1000).toFixed(3), end: (range.endMs / 1000).toFixed(3), step: String(range.stepS) });
  const answer = await boundedGet(`${baseUrl.replace(/\/+$/, '')}/api/v1/query_range?${params}`, bounds.timeoutMs, bounds.maxBytes);
  if ('error' in answer) throw new PrometheusError(`Prometheus range query failed: ${answer.error}`);
  let body: { status?: unknown; error?: unknown; data?: { resultType?: unknown; result?: unknown } };
  try {
    body = JSON.parse(answer.text);
  } catch {
    throw new PrometheusError('Prometheus answered with something that is not JSON: is the URL the server itself (http://host:9090)?');
  }
  if (body?.status !== 'success') throw new PrometheusError(`Prometheus refused the range query: ${typeof body?.error === 'string' ? body.error.slice(0, 300) : 'no reason given'}`);
  if (body.data?.resultType !== 'matrix' || !Array.isArray(body.data.result)) throw new PrometheusError('Prometheus answered a range query without a matrix.');
  const series: RangeSeries[] = [];
  let dropped = 0;
  for (const raw of body.data.result as { metric?: unknown; values?: unknown }[]) {
    if (series.length >= MAX_SERIES) {
      dropped++;
      continue;
    }
    const labels: Record<string, string> = {};
    if (typeof raw?.metric === 'object' && raw.metric !== null) for (const [k, v] of Object.entries(raw.metric)) if (typeof v === 'string') labels[k] = v.slice(0, 256);
    const values: [number, number][] = [];
    if (Array.isArray(raw?.values)) {
      for (const pair of raw.values as unknown[]) {
        if (!Array.isArray(pair)) continue;
        const t = Number(pair[0]) * 1000;
        const v = Number(pair[1]);
        if (Number.isFinite(t) && Number.isFinite(v)) values.push([t, v]);
      }
    }
    series.push({ labels, values });
  }
  return { series, dropped };
}

/** `"a|b"` for a PromQL regex matcher: the names as literals. */
export function namesMatcher(names: Iterable<string>): string {
  const escaped = [...names].map((n) => n.replace(/[\\.^$|?*+()[\]{}]/g, (c) => `\\${c}`).replace(/\\/g, '\\\\').replace(/"/g, '\\"'));
  return escaped.length ? escaped.join('|') : '^$';
}

/** Adds `gen_ai_prompt_name=~"…"` to a `{…}` selector. */
export function withNames(selector: string, names: string): string {
  return selector.replace(/}$/, `, ${NAME_LABEL}=~"${names}"}`);
}

/**
 * `stepMs` (default an hour): the width of each point. `band: false` (`prod --window`, as ProdTimeline's
 * option): no baseline band (its history query is hourly), and the TTFT p90 and E2E/TPOT p50/p90/p99 asked for too.
 */
export async function prometheusTimeline(url: string, report: ProdReport, options: { sinceMs: number; atMs?: number; timeoutMs: number; maxBytes: number; stepMs?: number; band?: boolean }): Promise<TimelineData> {
  const STEP = options.stepMs ?? HOUR_MS;
  const hourly = (options.band ?? true) && STEP === HOUR_MS;
  const span = `${Math.round(STEP / 1000)}s`;
  const untilMs = options.atMs ?? Date.now();
  const startMs = Math.floor(options.sinceMs / STEP) * STEP + STEP; // the first whole step's end
  const endMs = Math.floor(untilMs / STEP) * STEP + STEP;
  const names = namesMatcher(new Set(report.versions.map((v) => v.promptName).filter((n): n is string => n !== null)));
  const bounds = { timeoutMs: options.timeoutMs, maxBytes: options.maxBytes };
  const range = { startMs, endMs: Math.min(endMs, untilMs), stepS: Math.round(STEP / 1000) };
  const by = `${NAME_LABEL}, ${VERSION_LABEL}`;
  // Each value at time T covers the step before T: the point is placed at the step's start.
  const perVersion = async (over: string, at: typeof range) => {
    const more = new Map<string, { series: RangeSeries[] }>();
    if (!hourly)
      for (const [metric, selector] of [['ttft', HISTOGRAMS.ttftMs], ['e2e', HISTOGRAMS.e2eMs], ['tpot', HISTOGRAMS.tpotMs]] as const)
        for (const p of metric === 'ttft' ? [90] : [50, 90, 99])
          more.set(`${metric}P${p}Ms`, await rangeQuery(url, `histogram_quantile(${p / 100}, sum by (le, ${by}) (rate(${withNames(selector, names)}[${over}])))`, at, bounds));
    return {
      requests: await rangeQuery(url, `sum by (${by}) (${counted(withNames(DURATION_COUNT, names), over)})`, at, bounds),
      errors: await rangeQuery(url, `sum by (${by}) (${counted(withNames(DURATION_COUNT.replace('"}', '", error_type!=""}'), names), over)})`, at, bounds),
      p50: await rangeQuery(url, `histogram_quantile(0.5, sum by (le, ${by}) (rate(${withNames(HISTOGRAMS.ttftMs, names)}[${over}])))`, at, bounds),
      p99: await rangeQuery(url, `histogram_quantile(0.99, sum by (le, ${by}) (rate(${withNames(HISTOGRAMS.ttftMs, names)}[${over}])))`, at, bounds),
      more,
    };
  };
  // No whole step since `sinceMs` (`--since 1h --window 1d`): only the running window has figures.
  const none = { series: [] as RangeSeries[] };
  const whole = range.startMs <= range.endMs ? await perVersion(span, range) : { requests: none, errors: none, p50: none, p99: none, more: new Map<string, { series: RangeSeries[] }>() };
  // `prod --window`: the window still running (from the last whole step's end until now) too, as the
  // trace files' windows have it — else a version deployed inside the current 6 h or day would show
  // none. At least a minute of it, for rate() to see two samples.
  const runningFromMs = Math.floor(untilMs / STEP) * STEP;
  const running = !hourly && untilMs - runningFromMs >= 60_000
    ? await perVersion(`${Math.round((untilMs - runningFromMs) / 1000)}s`, { startMs: untilMs, endMs: untilMs, stepS: 60 })
    : undefined;
  // Its one value is filed where a whole step's would be (end = its start + STEP), so it reads as the window starting at runningFromMs.
  const joined = (a: { series: RangeSeries[] }, b: { series: RangeSeries[] } | undefined) => (b ? joinRunningWindow(a, b, runningFromMs + STEP) : a);
  const requests = joined(whole.requests, running?.requests);
  const errors = joined(whole.errors, running?.errors);
  const p50 = joined(whole.p50, running?.p50);
  const p99 = joined(whole.p99, running?.p99);
  const fields = new Set([...whole.more.keys(), ...(running?.more.keys() ?? [])]);
  const more = new Map([...fields].map((field) => [field, joined(whole.more.get(field) ?? none, running?.more.get(field))] as const));
  const history = hourly ? await rangeQuery(url, `histogram_quantile(0.99, sum by (le) (rate(${withNames(HISTOGRAMS.ttftMs, names)}[${span}])))`, { ...range, startMs: startMs - BASELINE_HISTORY_MS }, bounds) : { series: [] };

  // The same window a week earlier, per version: a version change's "before" is the previous version in the same hours
  // a week earlier when it did not serve them side by side (prodTimeline.ts versionChanges).
  const weekAgo = hourly && requests.series.length > 0 ? await perVersion(span, { ...range, startMs: range.startMs - WEEK_MS, endMs: range.endMs - WEEK_MS }) : undefined;

  const wanted = new Map(report.versions.map((v) => [`${v.promptName ?? ''}\u0000${v.version}`, v.version]));
  const key = (labels: Record<string, string>) => `${labels[NAME_LABEL] ?? ''}\u0000${labels[VERSION_LABEL] ?? ''}`;
  const lookup = (result: { series: RangeSeries[] }, k: string) => new Map(result.series.find((s) => key(s.labels) === k)?.values.map(([t, v]) => [t - STEP, v]) ?? []);
  const finite = (v: number | undefined) => (v !== undefined && Number.isFinite(v) ? Math.round(v * 10_000) / 10 : null);
  const pointsOf = (sets: { requests: { series: RangeSeries[] }; errors: { series: RangeSeries[] }; p50: { series: RangeSeries[] }; p99: { series: RangeSeries[] } }, fieldSets: Map<string, { series: RangeSeries[] }>, k: string): TimelinePoint[] => {
    const errorsAt = lookup(sets.errors, k);
    const p50At = lookup(sets.p50, k);
    const p99At = lookup(sets.p99, k);
    const moreAt = [...fieldSets].map(([field, result]) => [field, lookup(result, k)] as const);
    const points: TimelinePoint[] = [];
    for (const [t, value] of lookup(sets.requests, k)) {
      const count = Math.round(value);
      if (count > 0) points.push({ t, requests: count, errors: Math.min(count, Math.round(errorsAt.get(t) ?? 0)), ttftP50Ms: finite(p50At.get(t)), ttftP99Ms: finite(p99At.get(t)), ...Object.fromEntries(moreAt.map(([field, at]) => [field, finite(at.get(t))])) });
    }
    return points;
  };
  const versions: TimelineData['versions'] = [];
  const earlier = new Map<string, TimelinePoint[]>();
  const firstSeen = new Map<string, number>();
  for (const series of requests.series) {
    const version = wanted.get(key(series.labels));
    if (version === undefined) continue;
    const points = pointsOf({ requests, errors, p50, p99 }, more, key(series.labels));
    for (const { t } of points) if (!firstSeen.has(version) || t < firstSeen.get(version)!) firstSeen.set(version, t);
    versions.push({ version, points });
    if (weekAgo) earlier.set(version, pointsOf(weekAgo, new Map(), key(series.labels)));
  }
  const changes = versionChanges(firstSeen, options.sinceMs - STEP, (version, from, to) => {
    const inside = [...(versions.find((v) => v.version === version)?.points ?? []), ...(earlier.get(version) ?? [])].filter((p) => p.t >= from && p.t < to);
    if (inside.length === 0) return null;
    const hours = new Set(inside.map((p) => p.t)).size;
    const med = (values: number[]) => (values.length ? Math.round(medianOf(values) * 10) / 10 : null);
    return { hours, requests: inside.reduce((a, p) => a + p.requests, 0), ttftP50Ms: med(inside.map((p) => p.ttftP50Ms).filter((v): v is number => v !== null)), ttftP99Ms: med(inside.map((p) => p.ttftP99Ms).filter((v): v is number => v !== null)), how: 'median-of-hours' };
  });
  const series = (history.series[0]?.values ?? []).filter(([, v]) => Number.isFinite(v)).map(([end, v]) => ({ t: end - HOUR_MS, value: Math.round(v * 10_000) / 10 }));
  const band = hourly ? baselineBand(series, options.sinceMs, untilMs) : { metric: 'ttftP99Ms' as const, method: 'none' as const, note: null, points: [] };
  return { source: 'prometheus', hourMs: STEP, sinceMs: options.sinceMs, untilMs, versions, changes, band };
}

/** `whole`'s series with the running window's value appended to the series of the same labels (or as its own series), at `endMs`. */
function joinRunningWindow(whole: { series: RangeSeries[] }, running: { series: RangeSeries[] }, endMs: number): { series: RangeSeries[] } {
  const labelsKey = (labels: Record<string, string>) => JSON.stringify(Object.entries(labels).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
  const series = whole.series.map((s) => ({ ...s, values: [...s.values] }));
  const byLabels = new Map(series.map((s) => [labelsKey(s.labels), s]));
  for (const r of running.series) {
    const value = r.values.at(-1);
    if (!value) continue;
    const into = byLabels.get(labelsKey(r.labels));
    if (into) into.values.push([endMs, value[1]]);
    else series.push({ ...r, values: [[endMs, value[1]]] });
  }
  return { series };
}
