/**
 * The watch series from Prometheus (the same source as `prod --prometheus`): per hour, over the
 * prompt's names, the TTFT and E2E p99 from the GenAI client histograms (successes only), the error
 * rate (the lower end of its Wilson interval, as from traces), and when each version first answered.
 * Range queries, one step per hour, bounded in time, bytes and series like every Prometheus read.
 * `increase()` and `rate()` handle counter resets (a restarted client starts its counters at 0).
 */
import { counted, DURATION_COUNT, HISTOGRAMS, VERSION_LABEL } from '../telemetry/prodPrometheus';
import { namesMatcher, rangeQuery, withNames, type RangeSeries } from '../telemetry/prodPrometheusTimeline';
import { wilsonInterval } from '../stats/proportions';
import type { VersionChange } from './anomalies';
import type { SeriesPoint } from '../stats/seasonalBaseline';
import type { WatchMetric } from './spanWindows';
import type { Companion } from './anomalyCause';

const HOUR_MS = 3_600_000;
/** Five weeks by default: four for the same hour of the week, one more for the drift (`watch --prometheus`, the Production page). */
export const WATCH_PROMETHEUS_SINCE = '35d';
/** As from traces: a window of fewer requests gives no percentile and no rate. */
const MIN_REQUESTS_PER_WINDOW = 10;

export interface PromSeriesOptions {
  sinceMs: number;
  untilMs: number;
  timeoutMs: number;
  maxBytes: number;
  signal?: AbortSignal;
}

export interface PromWatchSeries {
  series: Record<WatchMetric, SeriesPoint[]>;
  versions: VersionChange[];
  /** Requests over the range (rounded sum of the hourly increases). */
  requests: number;
  /** Series beyond the bound per answer, left out. */
  dropped: number;
  /** What may move with an anomaly: input tokens per request, TPOT p50 (ms), the servers' queue and KV-cache use. */
  companions: Partial<Record<Companion, SeriesPoint[]>>;
}

/** The inference servers' own queue and KV-cache gauges (whole server: they carry no prompt label). */
const QUEUE = '{__name__=~"vllm:num_requests_waiting|llamacpp:requests_deferred|sglang:num_queue_reqs|tgi_queue_size"}';
const KV_CACHE = '{__name__=~"vllm:kv_cache_usage_perc|vllm:gpu_cache_usage_perc|sglang:token_usage"}';
const INPUT_TOKENS = (part: 'sum' | 'count') => `{__name__=~"gen_ai_client_token_usage(_tokens)?_${part}", gen_ai_token_type="input"}`;

export async function watchSeriesFromPrometheus(url: string, promptNames: Iterable<string>, options: PromSeriesOptions): Promise<PromWatchSeries> {
  const names = namesMatcher(promptNames);
  // Each value at T covers the hour before T; steps on whole hours so windows match the traces' ones.
  const range = { startMs: Math.floor(options.sinceMs / HOUR_MS) * HOUR_MS + HOUR_MS, endMs: options.untilMs, stepS: 3600 };
  const bounds = { timeoutMs: options.timeoutMs, maxBytes: options.maxBytes };
  let dropped = 0;
  // The hour still running counts too, as a window from its start until now (at least five minutes of it): an
  // anomaly is seen in the hour it starts, not an hour later.
  const runningFromMs = Math.floor(options.untilMs / HOUR_MS) * HOUR_MS;
  const runningS = Math.round((options.untilMs - runningFromMs) / 1000);
  /** `build(window)`: the query over one window ('1h', or the running hour's seconds); values keyed by the window's start. */
  const query = async (build: (w: string) => string): Promise<RangeSeries[]> => {
    if (options.signal?.aborted) throw new Error('interrupted');
    const whole = await rangeQuery(url, build('1h'), range, bounds);
    dropped += whole.dropped;
    const out = whole.series.map((s) => ({ labels: s.labels, values: s.values.map(([end, v]) => [end - HOUR_MS, v] as [number, number]) }));
    if (runningS >= 300) {
      const running = await rangeQuery(url, build(`${runningS}s`), { startMs: options.untilMs, endMs: options.untilMs, stepS: 60 }, bounds);
      dropped += running.dropped;
      for (const r of running.series) {
        const value = r.values.at(-1);
        if (!value) continue;
        const key = JSON.stringify(r.labels);
        const into = out.find((s) => JSON.stringify(s.labels) === key);
        if (into) into.values.push([runningFromMs, value[1]]);
        else out.push({ labels: r.labels, values: [[runningFromMs, value[1]]] });
      }
    }
    return out;
  };
  const count = withNames(DURATION_COUNT, names);
  const failed = withNames(DURATION_COUNT.replace('"}', '", error_type!=""}'), names);
  const requests = hourly((await query((w) => `sum(${counted(count, w)})`))[0]);
  const errors = hourly((await query((w) => `sum(${counted(failed, w)})`))[0]);
  const p99 = async (selector: string) => hourly((await query((w) => `histogram_quantile(0.99, sum by (le) (rate(${withNames(selector, names)}[${w}])))`))[0]);
  const ttft = await p99(HISTOGRAMS.ttftMs);
  const e2e = await p99(HISTOGRAMS.e2eMs);
  const perVersion = await query((w) => `sum by (${VERSION_LABEL}) (${counted(count, w)})`);
  const companions: PromWatchSeries['companions'] = {};
  const hourlySeries = (m: Map<number, number>, scale = 1) => [...m].sort((a, b) => a[0] - b[0]).map(([t, v]) => ({ t, value: v * scale }));
  const inputPerRequest = hourly((await query((w) => `sum(${counted(withNames(INPUT_TOKENS('sum'), names), w)}) / sum(${counted(withNames(INPUT_TOKENS('count'), names), w)})`))[0]);
  if (inputPerRequest.size) companions['input-tokens'] = hourlySeries(inputPerRequest);
  const tpot = hourly((await query((w) => `histogram_quantile(0.5, sum by (le) (rate(${withNames(HISTOGRAMS.tpotMs, names)}[${w}])))`))[0]);
  if (tpot.size) companions['tpot.p50'] = hourlySeries(tpot, 1000);
  const queue = hourly((await query((w) => `sum(avg_over_time(${QUEUE}[${w}]))`))[0]);
  if (queue.size) companions.queue = hourlySeries(queue);
  const kv = hourly((await query((w) => `avg(avg_over_time(${KV_CACHE}[${w}]))`))[0]);
  if (kv.size) companions['kv-cache'] = hourlySeries(kv);

  const series: Record<WatchMetric, SeriesPoint[]> = { 'ttft.p99': [], 'e2e.p99': [], 'error-rate': [] };
  let total = 0;
  for (const [t, n] of [...requests].sort((a, b) => a[0] - b[0])) {
    const total1 = Math.round(n);
    total += total1;
    if (total1 < MIN_REQUESTS_PER_WINDOW) continue;
    const failedHere = Math.min(total1, Math.round(errors.get(t) ?? 0));
    series['error-rate'].push({ t, value: wilsonInterval(failedHere, total1)[0] });
    if (total1 - failedHere < MIN_REQUESTS_PER_WINDOW) continue;
    for (const [metric, values] of [['ttft.p99', ttft], ['e2e.p99', e2e]] as const) {
      const seconds = values.get(t);
      if (seconds !== undefined && Number.isFinite(seconds)) series[metric].push({ t, value: Math.round(seconds * 1e6) / 1000 });
    }
  }
  const versions: VersionChange[] = [];
  for (const s of perVersion) {
    const version = s.labels[VERSION_LABEL];
    const first = s.values.find(([, v]) => v >= 0.5);
    if (version && first) versions.push({ version, t: first[0] });
  }
  versions.sort((a, b) => a.t - b.t);
  return { series, versions, requests: total, dropped, companions };
}

/** One series (values already keyed by window start) as hour start → value (NaN from an empty histogram dropped). */
function hourly(series: RangeSeries | undefined): Map<number, number> {
  return new Map((series?.values ?? []).filter(([, v]) => Number.isFinite(v)));
}
