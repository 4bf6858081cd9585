/**
 * The server's own resource and load metrics, sampled from its Prometheus `/metrics` while runs go
 * on: the evidence the seed's attribution rules need (queueing, KV-cache pressure, GPU use). The
 * text format is parsed by `parse-prometheus-text-format`; here only the names each server uses are
 * mapped to one vocabulary, and raw values are kept beside them.
 */
import parsePrometheus, { type PrometheusFamily } from 'parse-prometheus-text-format';
import { boundedGet } from './boundedGet';
import { parseJson } from './jsonFields';

export interface MetricsSample {
  /** ms since the batch started (the runs' clock). */
  t: number;
  requestsRunning?: number;
  requestsWaiting?: number;
  /** 0..1 */
  kvCacheUsage?: number;
  promptTokensPerSec?: number;
  generationTokensPerSec?: number;
  preemptions?: number;
  /** 0..1 */
  prefixCacheHitRate?: number;
  /** 0..1 */
  gpuUtil?: number;
  gpuMemoryUsedBytes?: number;
  /** Every gauge and counter read, by its name (labels summed). */
  raw: Record<string, number>;
}

export interface MetricsGap {
  t: number;
  error: string;
}

export const MAX_METRICS_BYTES = 4 * 1024 * 1024;

/** name → [field, scale]; the first name a server exposes wins. */
const FIELDS: [keyof Omit<MetricsSample, 't' | 'raw'>, string[], number][] = [
  ['requestsRunning', ['vllm:num_requests_running', 'llamacpp:requests_processing', 'sglang:num_running_reqs', 'tgi_batch_current_size'], 1],
  ['requestsWaiting', ['vllm:num_requests_waiting', 'llamacpp:requests_deferred', 'sglang:num_queue_reqs', 'tgi_queue_size'], 1],
  ['kvCacheUsage', ['vllm:kv_cache_usage_perc', 'vllm:gpu_cache_usage_perc', 'llamacpp:kv_cache_usage_ratio', 'sglang:token_usage'], 1],
  ['promptTokensPerSec', ['llamacpp:prompt_tokens_seconds', 'sglang:prompt_throughput'], 1],
  ['generationTokensPerSec', ['llamacpp:predicted_tokens_seconds', 'sglang:gen_throughput'], 1],
  ['preemptions', ['vllm:num_preemptions_total', 'vllm:num_preemptions'], 1],
  ['prefixCacheHitRate', ['sglang:cache_hit_rate'], 1],
  ['gpuUtil', ['DCGM_FI_DEV_GPU_UTIL'], 0.01],
  ['gpuMemoryUsedBytes', ['DCGM_FI_DEV_FB_USED'], 1024 * 1024],
];

/**
 * The exposition text as families; never throws (unreadable text has none). Two quirks of
 * `parse-prometheus-text-format` are handled here, once: it drops a last line without its newline,
 * and it loses the `_sum` and `_count` of histograms whose series carry labels (every vLLM series
 * has `model_name`) — with `histogramSeries`, histogram and summary families are declared untyped
 * first, so each of their series reads as the plain sample it is.
 */
export function parsePrometheusText(text: string, options: { histogramSeries?: boolean } = {}): PrometheusFamily[] {
  const source = options.histogramSeries ? text.replace(/^#\s*TYPE\s+(\S+)\s+(histogram|summary)\s*$/gim, '# TYPE $1 untyped') : text;
  try {
    return parsePrometheus(`${source}\n`);
  } catch {
    return [];
  }
}

/** Where samples come from: a server's Prometheus text, or a Prometheus server's HTTP API with a label selector. */
export type MetricsSource = { kind: 'text'; url: string } | { kind: 'promql'; url: string; selector: string };

// The inference servers' and DCGM's metric families, for the PromQL query.
const SERVER_METRIC_NAMES = 'llamacpp:.+|vllm:.+|sglang:.+|tgi_.+|DCGM_FI_.+';

/** Label matchers for PromQL (`job="llama", instance=~"gpu-.*"`): refused if they could end the selector. */
export function isSafeSelector(selector: string): boolean {
  return /^[\w]+\s*(=|!=|=~|!~)\s*"[^"\\\n{}]*"(\s*,\s*[\w]+\s*(=|!=|=~|!~)\s*"[^"\\\n{}]*")*$/.test(selector.trim());
}

export function promqlQueryUrl(base: string, selector: string): string {
  const query = `{__name__=~"${SERVER_METRIC_NAMES}"${selector.trim() ? `, ${selector.trim()}` : ''}}`;
  return `${base.replace(/\/+$/, '')}/api/v1/query?query=${encodeURIComponent(query)}`;
}

/** A Prometheus HTTP API answer (instant vector) → raw values by metric name (series summed). */
export function rawFromPromql(json: unknown): Record<string, number> | undefined {
  const body = json as { status?: string; data?: { resultType?: string; result?: { metric?: Record<string, string>; value?: [number, string] }[] } } | null;
  if (body?.status !== 'success' || body.data?.resultType !== 'vector' || !Array.isArray(body.data.result)) return undefined;
  const raw: Record<string, number> = {};
  for (const series of body.data.result) {
    const name = series.metric?.__name__;
    const value = Number(series.value?.[1]);
    if (name && Number.isFinite(value)) raw[name] = (raw[name] ?? 0) + value;
  }
  return raw;
}

/** One /metrics text → a sample (never throws: unreadable text is an empty sample). */
export function sampleFromText(text: string, t: number): MetricsSample {
  const raw: Record<string, number> = {};
  for (const family of parsePrometheusText(text)) {
    if (family.type !== 'GAUGE' && family.type !== 'COUNTER' && family.type !== 'UNTYPED') continue;
    let sum = 0;
    let any = false;
    for (const metric of family.metrics) {
      const value = Number(metric.value);
      if (Number.isFinite(value)) {
        sum += value;
        any = true;
      }
    }
    if (any) raw[family.name] = sum;
  }
  return sampleFromRaw(raw, t);
}

/** Raw values by name → the normalised sample. */
export function sampleFromRaw(raw: Record<string, number>, t: number): MetricsSample {
  const sample: MetricsSample = { t, raw };
  for (const [field, names, scale] of FIELDS) {
    const name = names.find((n) => n in raw);
    if (name !== undefined) sample[field] = raw[name]! * scale;
  }
  // vLLM counts prefix-cache queries and hits (tokens); their ratio is the hit rate so far.
  const queries = raw['vllm:prefix_cache_queries_total'] ?? raw['vllm:prefix_cache_queries'];
  const hits = raw['vllm:prefix_cache_hits_total'] ?? raw['vllm:prefix_cache_hits'];
  if (sample.prefixCacheHitRate === undefined && queries !== undefined && hits !== undefined && queries > 0) sample.prefixCacheHitRate = hits / queries;
  return sample;
}

/**
 * Samples a server's /metrics every `intervalMs` until stopped. A sample that fails (missing,
 * slow, huge, malformed) is recorded as a gap; the runs never wait for it.
 */
export class MetricsSampler {
  readonly samples: MetricsSample[] = [];
  readonly gaps: MetricsGap[] = [];
  private timer: NodeJS.Timeout | undefined;
  private inFlight: Promise<void> | undefined;
  private readonly source: MetricsSource;

  constructor(
    source: MetricsSource | string,
    private readonly clock: () => number,
    private readonly intervalMs = 500,
  ) {
    this.source = typeof source === 'string' ? { kind: 'text', url: source } : source;
  }

  start(): void {
    const tick = (): void => {
      if (!this.inFlight) this.inFlight = this.sampleOnce().finally(() => (this.inFlight = undefined));
      this.timer = setTimeout(tick, this.intervalMs);
      this.timer.unref();
    };
    tick();
  }

  async stop(): Promise<void> {
    clearTimeout(this.timer);
    this.timer = undefined;
    await this.inFlight;
    await this.sampleOnce(); // the state right after the last run
  }

  private async sampleOnce(): Promise<void> {
    const t = this.clock();
    const url = this.source.kind === 'promql' ? promqlQueryUrl(this.source.url, this.source.selector) : this.source.url;
    const answer = await boundedGet(url, Math.max(250, this.intervalMs), MAX_METRICS_BYTES);
    if ('error' in answer) {
      this.gaps.push({ t, error: answer.error });
      return;
    }
    let sample: MetricsSample;
    if (this.source.kind === 'promql') {
      const raw = rawFromPromql(parseJson(answer.text));
      if (!raw) {
        this.gaps.push({ t, error: 'not a Prometheus API answer (instant vector)' });
        return;
      }
      sample = sampleFromRaw(raw, t);
    } else {
      sample = sampleFromText(answer.text, t);
    }
    if (Object.keys(sample.raw).length === 0) this.gaps.push({ t, error: this.source.kind === 'promql' ? 'the query matched no series' : 'not Prometheus text (no metric could be read)' });
    else this.samples.push(sample);
  }
}

export interface IdleCheck {
  idle: boolean;
  /** Why the next run may share the server with leftover work (only when the server said it was busy). */
  busy?: string;
  waitedMs: number;
}

/**
 * After a run timed out or was cancelled the server often goes on working on it (llama-server
 * finishes the prompt step; others the whole answer). Waits, bounded, until the server's metrics
 * say nothing is running or waiting. A server whose metrics cannot be read is not waited for.
 */
export async function waitForServerIdle(url: string, maxMs: number, signal?: AbortSignal, pollMs = 250): Promise<IdleCheck> {
  const started = performance.now();
  let running = 0;
  while (!signal?.aborted) {
    const answer = await boundedGet(url, Math.max(250, pollMs), MAX_METRICS_BYTES);
    if ('error' in answer) return { idle: true, waitedMs: performance.now() - started };
    const sample = sampleFromText(answer.text, 0);
    if (sample.requestsRunning === undefined) return { idle: true, waitedMs: performance.now() - started };
    running = sample.requestsRunning + (sample.requestsWaiting ?? 0);
    if (running === 0) return { idle: true, waitedMs: performance.now() - started };
    if (performance.now() - started >= maxMs) break;
    await new Promise((r) => setTimeout(r, pollMs));
  }
  const waitedMs = performance.now() - started;
  return { idle: false, busy: `the server still had ${running} request${running === 1 ? '' : 's'} from an earlier timed-out or cancelled run after ${Math.round(waitedMs)} ms`, waitedMs };
}
