/**
 * `prompt-insight watch FILE --traces PATH… | --prometheus URL`: the prompt's production metrics (TTFT and E2E p99, the
 * error rate, per hour) against their dynamic baselines (core/baseline/): the current state, every
 * anomaly with its start, end or "ongoing", the value, the band and the version that was live, and a
 * slow drift. Exit 1 while an anomaly is ongoing, for cron and CI.
 */
import type { Anomaly, Drift, VersionChange } from '../core/baseline/anomalies';
import { explainAnomaly, type Companion } from '../core/baseline/anomalyCause';
import { analyzeWatch } from '../core/baseline/watchAnalysis';
import { watchSeriesFromPrometheus, WATCH_PROMETHEUS_SINCE, type PromWatchSeries } from '../core/baseline/promSeries';
import type { baselineAt, SeriesPoint } from '../core/stats/seasonalBaseline';
import { SKEW_TOLERANCE_MS, SpanWindows, type WatchMetric } from '../core/baseline/spanWindows';
import { formatMs } from '../core/metrics/format';
import { readTraceFiles } from '../core/telemetry/importOtlp';
import { DEFAULT_PROMETHEUS_MAX_BYTES, DEFAULT_PROMETHEUS_TIMEOUT_MS, safeUrl } from '../core/telemetry/prodPrometheus';
import { nowFlag, parseArgs, stringFlag, UsageError, type ParsedArgs } from './args';
import type { CliIO } from './io';
import { terminalJson } from './terminalText';
import { parseSince } from './prodCommand';
import { promptsOf } from '../core/formats/promptFile';
import { WATCH_USAGE } from './help/usage';

export async function watchCommand(argv: string[], io: CliIO): Promise<number> {
  const args = parseArgs(argv, { valued: ['prompt', 'prometheus', 'since', 'timeout-ms', 'now'], boolean: ['json'], repeatable: ['traces'] });
  if (args.positionals.length < 1) throw new UsageError(`give exactly one prompt file\nusage: ${WATCH_USAGE}`);
  const [file, ...extra] = args.positionals as [string, ...string[]];
  // `--traces a.jsonl b.jsonl.gz`: the paths after --traces are positionals too (PATH…), as with prod.
  const traces = [...(args.lists.get('traces') ?? []), ...(args.lists.has('traces') ? extra : [])];
  if (!args.lists.has('traces') && extra.length) throw new UsageError(`give exactly one prompt file (got ${args.positionals.length} paths); trace files follow --traces`);
  const prometheus = stringFlag(args, 'prometheus');
  if (traces.length === 0 && prometheus === undefined) throw new UsageError(`give production traces: --traces FILE (OTLP JSON Lines, gzip accepted), or --prometheus URL\nusage: ${WATCH_USAGE}`);
  if (traces.length > 0 && prometheus !== undefined) throw new UsageError(`give one source: --traces PATH… or --prometheus URL\nusage: ${WATCH_USAGE}`);
  const found = await promptsOf(file, stringFlag(args, 'prompt'));
  if ('error' in found) {
    io.stderr(`prompt-insight watch: ${found.error}\n`);
    return 1;
  }
  const names = new Set(found.prompts.map((p) => p.name));
  const signal = io.interrupted();
  const nowMs = nowFlag(args);
  const read = prometheus !== undefined ? await fromPrometheus(prometheus, names, args, nowMs, signal) : await fromTraces(traces, names, nowMs, signal);
  if (typeof read === 'number') return read;
  if ('error' in read) {
    io.stderr(`prompt-insight watch: ${read.error}\n`);
    return 1;
  }
  const { versions, seriesOf, counts } = read;
  // The analysis itself is core's (the editor's Production view shows the same anomalies).
  const metrics = analyzeWatch(seriesOf, versions).metrics.map((m) => ({ ...m, current: m.current ? { ...m.current, t: new Date(m.current.t).toISOString() } : null }));
  const companions = read.companions?.() ?? {};
  const anomalies = metrics.flatMap((m) => m.anomalies.map((a) => anomalyJson(a, companions)));
  const drift = metrics.map((m) => m.drift).filter((d): d is Drift => d !== null);
  const ongoing = anomalies.filter((a) => a.end === null);
  if (args.flags.get('json') === true) {
    io.stdout(`${terminalJson({ file, prompts: [...names], source: read.source, ...counts, versions: versions.map((v) => ({ version: v.version, firstSeen: new Date(v.t).toISOString() })), metrics: metrics.map((m) => ({ metric: m.metric, windows: m.windows, current: m.current, ...(m.needsDays > 0 ? { baselineNeedsDays: m.needsDays } : {}) })), anomalies, drift, ongoing: ongoing.length })}\n`);
  } else io.stdout(watchText(metrics, anomalies, drift, read.summary));
  return ongoing.length > 0 ? 1 : 0;
}

function anomalyJson(a: Anomaly, companions: Partial<Record<Companion, SeriesPoint[]>>) {
  const why = explainAnomaly(a, companions);
  return {
    metric: a.metric,
    start: new Date(a.start).toISOString(),
    end: a.end === null ? null : new Date(a.end).toISOString(),
    observed: a.observed,
    band: { method: a.band.method, median: a.band.median, lower: a.band.lower, upper: a.band.upper },
    version: a.version,
    ...(a.likelyCause ? { likelyCause: { version: a.likelyCause.version, firstSeen: new Date(a.likelyCause.t).toISOString() } } : {}),
    ...(a.judgedAgainst ? { judgedAgainst: a.judgedAgainst } : {}),
    ...(why.movedWith.length ? { movedWith: why.movedWith, pointsAt: why.pointsAt, ...(why.summary ? { explanation: why.summary } : {}) } : {}),
  };
}

function show(metric: WatchMetric, value: number | null): string {
  if (value === null) return 'n/a';
  return metric === 'error-rate' ? `${(value * 100).toFixed(1)}%` : formatMs(value);
}

function watchText(metrics: { metric: WatchMetric; windows: number; needsDays: number; current: { t: string; value: number; band: ReturnType<typeof baselineAt> } | null }[], anomalies: ReturnType<typeof anomalyJson>[], drift: Drift[], summary: string): string {
  const lines = [summary];
  for (const m of metrics) {
    if (!m.current) {
      const noTtft = m.metric === 'ttft.p99' && metrics.some((o) => o.metric === 'error-rate' && o.current);
      lines.push(`  ${m.metric.padEnd(11)} ${noTtft ? 'no TTFT in this source: its instrumentation records none (docs/instrument-your-app.md)' : 'no hourly windows with enough requests'}`);
      continue;
    }
    const b = m.current.band;
    const band = b.median === null ? b.note ?? 'no baseline' : `usual ${show(m.metric, b.median)} (band ${show(m.metric, b.lower)}–${show(m.metric, b.upper)}, ${b.method})`;
    lines.push(`  ${m.metric.padEnd(11)} now ${show(m.metric, m.current.value)} at ${m.current.t} · ${band}`);
  }
  const needs = Math.max(0, ...metrics.map((m) => m.needsDays));
  if (needs > 0) lines.push(`The baseline needs ${needs} more day${needs === 1 ? '' : 's'} of history for the weekly rhythm (the same hour over the last weeks); until then the fallbacks above are used.`);
  if (anomalies.length === 0) lines.push('No anomaly: every sustained departure stayed inside its band.');
  for (const a of anomalies) {
    lines.push(`${a.end === null ? 'ONGOING' : 'ANOMALY'} ${a.metric}: ${show(a.metric as WatchMetric, a.observed)} against usual ${show(a.metric as WatchMetric, a.band.median)} (band up to ${show(a.metric as WatchMetric, a.band.upper)}) from ${a.start}${a.end ? ` to ${a.end}` : ', still going on'} · version ${a.version ?? 'unknown'}${a.likelyCause ? ` — likely cause: version ${a.likelyCause.version}, first seen ${a.likelyCause.firstSeen}${a.judgedAgainst ? ' (judged against the hours before it)' : ''}` : ''}${a.explanation ? `; with it, ${a.explanation}` : ''}`);
  }
  for (const d of drift) lines.push(`DRIFT ${d.metric}: the last week's median ${show(d.metric as WatchMetric, d.recent)} is ${Math.round(d.change * 100)}% above the same week a month before (${show(d.metric as WatchMetric, d.earlier)})`);
  return `${lines.join('\n')}\n`;
}

/** Where the hourly series came from: trace files (per-request values) or Prometheus (histogram buckets). */
interface Read {
  source: { kind: 'traces' } | { kind: 'prometheus'; url: string; since: string };
  versions: VersionChange[];
  seriesOf: (metric: WatchMetric) => SeriesPoint[];
  /** Counts for the JSON answer. */
  counts: Record<string, unknown>;
  /** The first line of the text answer. */
  summary: string;
  /** What may move with an anomaly (input tokens per request, TPOT, the server's queue and KV cache), per window. */
  companions?: () => Partial<Record<Companion, SeriesPoint[]>>;
}

async function fromTraces(traces: string[], names: Set<string>, nowMs: number, signal: AbortSignal): Promise<Read | { error: string } | number> {
  const windows = new SpanWindows(names, undefined, undefined, nowMs);
  try {
    // One file at a time, so the same span in two files (two sources' clocks) can be told apart.
    for (const [i, path] of traces.entries()) {
      windows.file = i;
      await readTraceFiles([path], windows, { signal });
    }
  } catch (error) {
    if (signal.aborted) return 130;
    return { error: (error as Error).message };
  }
  const skipped = Object.fromEntries(windows.skipped);
  return {
    source: { kind: 'traces' },
    versions: windows.versionChanges(),
    seriesOf: (metric) => windows.series(metric),
    companions: () => windows.companions(),
    counts: { spans: windows.matched, otherSpans: windows.others, skipped, ...(windows.future.spans ? { future: windows.future } : {}), ...(windows.repeated.spans ? { repeated: windows.repeated } : {}) },
    summary: [
      `${windows.matched} production requests of this prompt${Object.keys(skipped).length ? ` (skipped: ${Object.entries(skipped).map(([r, n]) => `${n} ${r}`).join(', ')})` : ''}`,
      ...(windows.future.spans ? [`${windows.future.spans} spans end in the future, up to ${formatMs(windows.future.maxAheadMs)} ahead of this machine's clock (clock skew): not counted, so no hour that has not happened is called ongoing`] : []),
      ...(windows.repeated.spans ? [`${windows.repeated.spans} spans appear in more than one file: counted once${windows.repeated.skewed ? `; ${windows.repeated.skewed} of them disagree on time by more than ${formatMs(SKEW_TOLERANCE_MS)} (up to ${formatMs(windows.repeated.maxSkewMs)}): the sources' clocks are skewed` : ''}`] : []),
    ].join('\n'),
  };
}

async function fromPrometheus(url: string, names: Set<string>, args: ParsedArgs, nowMs: number, signal: AbortSignal): Promise<Read | { error: string } | number> {
  const since = stringFlag(args, 'since') ?? WATCH_PROMETHEUS_SINCE;
  const sinceMs = parseSince(since, nowMs);
  // Prometheus answers at most 11,000 points per series: hourly steps allow some 458 days.
  if ((nowMs - sinceMs) / 3_600_000 > 10_000) throw new UsageError(`--since ${since} is more hourly steps than Prometheus answers in one range query (at most 10,000 hours, about 416 days)`);
  const timeoutMs = args.flags.has('timeout-ms') ? Number(stringFlag(args, 'timeout-ms')) : DEFAULT_PROMETHEUS_TIMEOUT_MS;
  if (!(Number.isInteger(timeoutMs) && timeoutMs >= 100)) throw new UsageError('--timeout-ms must be an integer ≥ 100');
  let read: PromWatchSeries;
  try {
    read = await watchSeriesFromPrometheus(url, names, { sinceMs, untilMs: nowMs, timeoutMs, maxBytes: DEFAULT_PROMETHEUS_MAX_BYTES, signal });
  } catch (error) {
    if (signal.aborted) return 130;
    return { error: (error as Error).message };
  }
  const hours = read.series['error-rate'].length;
  return {
    source: { kind: 'prometheus', url: safeUrl(url), since },
    versions: read.versions,
    seriesOf: (metric) => read.series[metric],
    companions: () => read.companions,
    counts: { requests: read.requests, hours, ...(read.dropped ? { droppedSeries: read.dropped } : {}) },
    summary: `${read.requests} production requests of this prompt in ${hours} hours with enough requests, from Prometheus ${safeUrl(url)} since ${since} (p99 interpolated within histogram buckets)${read.dropped ? `; ${read.dropped} series beyond the bound left out` : ''}`,
  };
}

