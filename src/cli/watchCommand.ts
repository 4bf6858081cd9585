/**
 * `prompt-insight watch FILE --traces PATH…`: the prompt's production metrics (TTFT and E2E p99, the
 * error rate, per hour) against their dynamic baselines (core/baseline/): the current state, every
 * anomaly with its start, end or "ongoing", the value, the band and the version that was live, and a
 * slow drift. Exit 1 while an anomaly is ongoing, for cron and CI.
 */
import { findAnomalies, findDrift, type Anomaly, type Drift } from '../core/baseline/anomalies';
import { baselineAt } from '../core/baseline/seasonalBaseline';
import { SpanWindows, WATCH_METRICS, type WatchMetric } from '../core/baseline/spanWindows';
import { formatMs } from '../core/metrics/format';
import { readTraceFiles } from '../core/telemetry/importOtlp';
import { parseArgs, stringFlag, UsageError } from './args';
import type { CliIO } from './io';
import { promptsOf } from './promptFile';
import { WATCH_USAGE } from './usage';

/** Rates: a change of less than one percentage point is never an anomaly. */
const RATE_FLOOR = 0.01;

export async function watchCommand(argv: string[], io: CliIO): Promise<number> {
  const args = parseArgs(argv, { valued: ['prompt'], boolean: ['json'], repeatable: ['traces'] });
  if (args.positionals.length !== 1) throw new UsageError(`give exactly one prompt file\nusage: ${WATCH_USAGE}`);
  const traces = args.lists.get('traces') ?? [];
  if (traces.length === 0) throw new UsageError(`give production traces: --traces FILE (OTLP JSON Lines, gzip accepted)\nusage: ${WATCH_USAGE}`);
  const file = args.positionals[0]!;
  const found = await promptsOf(file, stringFlag(args, 'prompt'));
  if ('error' in found) {
    io.stderr(`prompt-insight watch: ${found.error}\n`);
    return 1;
  }
  const names = new Set(found.prompts.map((p) => p.name));
  const windows = new SpanWindows(names);
  const signal = io.interrupted();
  try {
    await readTraceFiles(traces, windows, { signal });
  } catch (error) {
    if (signal.aborted) return 130;
    io.stderr(`prompt-insight watch: ${(error as Error).message}\n`);
    return 1;
  }
  const versions = windows.versionChanges();
  const metrics = WATCH_METRICS.map((metric) => {
    const series = windows.series(metric);
    const options = metric === 'error-rate' ? { minAbsoluteWidth: RATE_FLOOR } : {};
    const last = series.at(-1);
    const anomalies = findAnomalies(metric, series, versions, options);
    return {
      metric,
      windows: series.length,
      current: last ? { t: new Date(last.t).toISOString(), value: last.value, band: baselineAt(series.slice(0, -1), last.t, options) } : null,
      anomalies,
      drift: findDrift(metric, series, metric === 'error-rate' ? { margin: 0.5 } : {}),
    };
  });
  const anomalies = metrics.flatMap((m) => m.anomalies.map((a) => anomalyJson(a)));
  const drift = metrics.map((m) => m.drift).filter((d): d is Drift => d !== null);
  const ongoing = anomalies.filter((a) => a.end === null);
  const skipped = Object.fromEntries(windows.skipped);
  if (args.flags.get('json') === true) {
    io.stdout(`${JSON.stringify({ file, prompts: [...names], spans: windows.matched, otherSpans: windows.others, skipped, versions: versions.map((v) => ({ version: v.version, firstSeen: new Date(v.t).toISOString() })), metrics: metrics.map((m) => ({ metric: m.metric, windows: m.windows, current: m.current })), anomalies, drift, ongoing: ongoing.length }, null, 2)}\n`);
  } else io.stdout(watchText(metrics, anomalies, drift, windows.matched, skipped));
  return ongoing.length > 0 ? 1 : 0;
}

function anomalyJson(a: Anomaly) {
  return {
    metric: a.metric,
    start: new Date(a.start).toISOString(),
    end: a.end === null ? null : new Date(a.end).toISOString(),
    observed: a.observed,
    band: { method: a.band.method, median: a.band.median, lower: a.band.lower, upper: a.band.upper },
    version: a.version,
    ...(a.likelyCause ? { likelyCause: { version: a.likelyCause.version, firstSeen: new Date(a.likelyCause.t).toISOString() } } : {}),
  };
}

function show(metric: WatchMetric, value: number | null): string {
  if (value === null) return 'n/a';
  return metric === 'error-rate' ? `${(value * 100).toFixed(1)}%` : formatMs(value);
}

function watchText(metrics: { metric: WatchMetric; windows: number; current: { t: string; value: number; band: ReturnType<typeof baselineAt> } | null }[], anomalies: ReturnType<typeof anomalyJson>[], drift: Drift[], spans: number, skipped: Record<string, number>): string {
  const lines = [`${spans} production requests of this prompt${Object.keys(skipped).length ? ` (skipped: ${Object.entries(skipped).map(([r, n]) => `${n} ${r}`).join(', ')})` : ''}`];
  for (const m of metrics) {
    if (!m.current) {
      lines.push(`  ${m.metric.padEnd(11)} no hourly windows with enough requests`);
      continue;
    }
    const b = m.current.band;
    const band = b.median === null ? b.note ?? 'no baseline' : `usual ${show(m.metric, b.median)} (band ${show(m.metric, b.lower)}–${show(m.metric, b.upper)}, ${b.method})`;
    lines.push(`  ${m.metric.padEnd(11)} now ${show(m.metric, m.current.value)} at ${m.current.t} · ${band}`);
  }
  if (anomalies.length === 0) lines.push('No anomaly: every sustained departure stayed inside its band.');
  for (const a of anomalies) {
    lines.push(`${a.end === null ? 'ONGOING' : 'ANOMALY'} ${a.metric}: ${show(a.metric as WatchMetric, a.observed)} against usual ${show(a.metric as WatchMetric, a.band.median)} (band up to ${show(a.metric as WatchMetric, a.band.upper)}) from ${a.start}${a.end ? ` to ${a.end}` : ', still going on'} · version ${a.version ?? 'unknown'}${a.likelyCause ? ` — likely cause: version ${a.likelyCause.version}, first seen ${a.likelyCause.firstSeen}` : ''}`);
  }
  for (const d of drift) lines.push(`DRIFT ${d.metric}: the last week's median ${show(d.metric as WatchMetric, d.recent)} is ${Math.round(d.change * 100)}% above the same week a month before (${show(d.metric as WatchMetric, d.earlier)})`);
  return `${lines.join('\n')}\n`;
}
