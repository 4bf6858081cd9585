/**
 * The server's own resource and load metrics, sampled from its Prometheus `/metrics` while runs go
 * on: the evidence the seed's attribution rules need (queueing, KV-cache pressure, GPU use). The
 * text format is parsed by `parse-prometheus-text-format`; here only the names each server uses are
 * mapped to one vocabulary, and raw values are kept beside them.
 *
 * A metrics server is not trusted to be small: the mapped names are always kept, the rest ("raw")
 * only up to MAX_RAW_FAMILIES names per sample and MAX_RAW_BYTES per batch, and each sample says how
 * many it dropped. Lines of families that will not be kept are dropped before the parser sees them,
 * and the sampler waits longer between samples when reading them costs more, so a huge exposition
 * costs neither memory nor the thread the runs are decoded on. Names are keys of prototype-less
 * objects: a metric named `constructor` or `__proto__` is a number like any other.
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
  /** The mapped gauges and counters and, bounded, the others, by name (labels summed); a prototype-less object. */
  raw: Record<string, number>;
  /** How many gauge and counter families of this sample were not kept in `raw` (the bounds above). */
  rawDropped?: number;
}

export interface MetricsGap {
  t: number;
  error: string;
}

export const MAX_METRICS_BYTES = 4 * 1024 * 1024;
/** Unmapped families kept per sample, and the longest name kept. */
export const MAX_RAW_FAMILIES = 64;
export const MAX_RAW_NAME_CHARS = 128;
/** Unmapped values kept over one sampler's life (names and values, roughly in bytes); after that only mapped ones. */
export const MAX_RAW_BYTES = 1024 * 1024;

/** name → [field, scale]; the first name a server exposes wins. */
const FIELDS: [keyof Omit<MetricsSample, 't' | 'raw' | 'rawDropped'>, string[], number][] = [
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

/** Every name read into a mapped field (and the vLLM prefix-cache counters): always kept. */
const MAPPED_NAMES: ReadonlySet<string> = new Set([
  ...FIELDS.flatMap(([, names]) => names),
  'vllm:prefix_cache_queries_total',
  'vllm:prefix_cache_queries',
  'vllm:prefix_cache_hits_total',
  'vllm:prefix_cache_hits',
]);

/** Which families a sample keeps: the mapped ones always; others while the remainder has room. */
export interface RawBounds {
  /** Only names with this prefix are kept, mapped or not (a discovered, unconfigured /metrics: its own server's names). */
  prefix?: string;
  /** Unmapped names still allowed this sample. */
  families: number;
  /** Bytes the remainder may still take (shared across a sampler's samples). */
  bytes: number;
}

function defaultBounds(): RawBounds {
  return { families: MAX_RAW_FAMILIES, bytes: MAX_RAW_BYTES };
}

/** Values summed by name into a prototype-less object, within the bounds; what did not fit is counted. */
class RawValues {
  readonly values: Record<string, number> = Object.create(null) as Record<string, number>;
  private readonly remainder = new Set<string>();
  private readonly refused = new Set<string>();

  constructor(private readonly bounds: RawBounds) {}

  add(name: string, value: number): void {
    if (Object.hasOwn(this.values, name)) {
      this.values[name]! += value;
    } else if (this.admits(name)) {
      this.values[name] = value;
    } else {
      this.refused.add(name);
    }
  }

  /** Whether a family would be kept (decided once per name; the remainder's room is taken as names are admitted). */
  admits(name: string): boolean {
    if (this.remainder.has(name)) return true;
    if (this.refused.has(name)) return false;
    const own = this.bounds.prefix === undefined || name.startsWith(this.bounds.prefix);
    if (own && MAPPED_NAMES.has(name)) return true;
    const cost = name.length + 24;
    const fits = own && this.bounds.families > 0 && cost <= this.bounds.bytes && name.length <= MAX_RAW_NAME_CHARS;
    if (!fits) {
      this.refused.add(name);
      return false;
    }
    this.bounds.families--;
    this.bounds.bytes -= cost;
    this.remainder.add(name);
    return true;
  }

  get dropped(): number {
    return this.refused.size;
  }
}

/**
 * The exposition without the lines of families that would not be kept, so the parser's time and
 * memory follow what is kept, not what the server sent. A line belongs to the family of the last
 * `# TYPE`/`# HELP` it continues (`x_bucket`, `x_sum`, `x_count` of `x`), else to its own name.
 */
/** The series names a family's samples may carry beyond its own name (histograms, summaries, OpenMetrics counters). */
const SERIES_SUFFIX = /^_(?:bucket|sum|count|total|created|info|gcount|gsum)$/;

function keptLines(text: string, raw: RawValues): string {
  const out: string[] = [];
  let family = '';
  let keep = false;
  let start = 0;
  while (start < text.length) {
    let end = text.indexOf('\n', start);
    if (end < 0) end = text.length;
    const line = text.slice(start, end);
    start = end + 1;
    const body = line.trimStart();
    let name: string | undefined;
    if (body.startsWith('#')) {
      name = /^#\s*(?:TYPE|HELP)\s+(\S+)/.exec(body)?.[1];
      if (name === undefined) continue; // other comments carry nothing
      if (name !== family) {
        family = name;
        keep = raw.admits(name);
      }
    } else {
      const cut = body.search(/[{\s]/);
      name = cut < 0 ? body : body.slice(0, cut);
      if (name === '') continue;
      if (!(family && (name === family || (name.startsWith(family) && SERIES_SUFFIX.test(name.slice(family.length)))))) {
        family = name;
        keep = raw.admits(name);
      }
    }
    if (keep) out.push(line);
  }
  return out.join('\n');
}

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

/**
 * Where samples come from: a server's Prometheus text, or a Prometheus server's HTTP API with a label
 * selector. `ownPrefix` marks a text source nobody configured (found from the server's kind): it is
 * sampled only if it carries that prefix's metrics, and only names with that prefix are kept.
 */
export type MetricsSource = { kind: 'text'; url: string; ownPrefix?: string } | { kind: 'promql'; url: string; selector: string };

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

/** A Prometheus HTTP API answer (instant vector) → raw values by metric name (series summed), within the bounds. */
export function rawFromPromql(json: unknown, bounds: RawBounds = defaultBounds()): { raw: Record<string, number>; dropped: number } | undefined {
  const body = json as { status?: string; data?: { resultType?: string; result?: unknown } } | null;
  if (body?.status !== 'success' || body.data?.resultType !== 'vector' || !Array.isArray(body.data.result)) return undefined;
  const raw = new RawValues(bounds);
  const perDevice = new Map<string, number[]>();
  for (const series of body.data.result as { metric?: Record<string, unknown>; value?: unknown[] }[]) {
    const name = series?.metric?.__name__;
    const value = Number(series?.value?.[1]);
    if (typeof name !== 'string' || !name || !Number.isFinite(value)) continue;
    if (MEAN_ACROSS_SERIES.has(name)) perDevice.set(name, [...(perDevice.get(name) ?? []), value]);
    else raw.add(name, value);
  }
  for (const [name, values] of perDevice) raw.add(name, values.reduce((a, b) => a + b, 0) / values.length);
  return { raw: raw.values, dropped: raw.dropped };
}

/** One /metrics text → a sample (never throws: unreadable text is an empty sample). */
export function sampleFromText(text: string, t: number, bounds: RawBounds = defaultBounds()): MetricsSample {
  const raw = new RawValues(bounds);
  for (const family of parsePrometheusText(keptLines(text, raw))) {
    if (family.type !== 'GAUGE' && family.type !== 'COUNTER' && family.type !== 'UNTYPED') continue;
    const value = MEAN_ACROSS_SERIES.has(family.name) ? familyMean(family) : familySum(family);
    if (value !== undefined) raw.add(family.name, value);
  }
  return sampleFromRaw(raw.values, t, raw.dropped);
}

// A utilisation is per device: two GPUs at 80% are 80% busy, not 160%. (Memory used, queues and
// counters add up across devices and models, so they stay summed.)
const MEAN_ACROSS_SERIES = new Set(['DCGM_FI_DEV_GPU_UTIL']);

function familyMean(family: { metrics: readonly { value?: unknown }[] }): number | undefined {
  const sum = familySum(family);
  const n = family.metrics.filter((m) => Number.isFinite(Number(m.value))).length;
  return sum === undefined || n === 0 ? undefined : sum / n;
}

/** A family's finite values summed across its series (e.g. one per model), or undefined when it has none. */
export function familySum(family: { metrics: readonly { value?: unknown }[] }): number | undefined {
  let sum = 0;
  let any = false;
  for (const metric of family.metrics) {
    const value = Number(metric.value);
    if (Number.isFinite(value)) {
      sum += value;
      any = true;
    }
  }
  return any ? sum : undefined;
}

/** Raw values by name → the normalised sample. */
export function sampleFromRaw(raw: Record<string, number>, t: number, rawDropped = 0): MetricsSample {
  const sample: MetricsSample = { t, raw, ...(rawDropped > 0 ? { rawDropped } : {}) };
  for (const [field, names, scale] of FIELDS) {
    const name = names.find((n) => Object.hasOwn(raw, n));
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
 * slow, huge, malformed) is recorded as a gap; the runs never wait for it. Reading a sample may take
 * at most a tenth of the thread: a slow one pushes the next further away.
 * A source found without being configured (`ownPrefix`: the server's own `/metrics` beside its API)
 * is sampled only once it shows that server's own metrics: an endpoint that merely answers a probe
 * like vLLM is read once, not every half second, and only its own names are kept.
 */
export class MetricsSampler {
  readonly samples: MetricsSample[] = [];
  readonly gaps: MetricsGap[] = [];
  private timer: NodeJS.Timeout | undefined;
  private inFlight: Promise<void> | undefined;
  private readonly source: MetricsSource;
  private rawBytesLeft = MAX_RAW_BYTES;
  private confirmed: boolean;
  private stopped = false;
  private lastCostMs = 0;

  constructor(
    source: MetricsSource | string,
    private readonly clock: () => number,
    private readonly intervalMs = 500,
  ) {
    this.source = typeof source === 'string' ? { kind: 'text', url: source } : source;
    this.confirmed = this.source.kind !== 'text' || this.source.ownPrefix === undefined;
  }

  start(): void {
    const tick = (): void => {
      if (this.stopped) return;
      if (!this.inFlight) this.inFlight = this.sampleOnce().finally(() => (this.inFlight = undefined));
      this.timer = setTimeout(tick, Math.max(this.intervalMs, 10 * this.lastCostMs));
      this.timer.unref();
    };
    tick();
  }

  async stop(): Promise<void> {
    clearTimeout(this.timer);
    this.timer = undefined;
    await this.inFlight;
    await this.sampleOnce(); // the state right after the last run
    this.stopped = true;
  }

  private async sampleOnce(): Promise<void> {
    if (this.stopped) return;
    const t = this.clock();
    const url = this.source.kind === 'promql' ? promqlQueryUrl(this.source.url, this.source.selector) : this.source.url;
    const answer = await boundedGet(url, Math.max(250, this.intervalMs), MAX_METRICS_BYTES);
    if ('error' in answer) {
      this.gaps.push({ t, error: answer.error });
      return;
    }
    const started = performance.now();
    const prefix = this.source.kind === 'text' ? this.source.ownPrefix : undefined;
    const bounds: RawBounds = { families: MAX_RAW_FAMILIES, bytes: this.rawBytesLeft, ...(prefix ? { prefix } : {}) };
    let sample: MetricsSample;
    if (this.source.kind === 'promql') {
      const read = rawFromPromql(parseJson(answer.text), bounds);
      if (!read) {
        this.gaps.push({ t, error: 'not a Prometheus API answer (instant vector)' });
        return;
      }
      sample = sampleFromRaw(read.raw, t, read.dropped);
    } else {
      sample = sampleFromText(answer.text, t, bounds);
    }
    this.rawBytesLeft = bounds.bytes;
    this.lastCostMs = performance.now() - started;
    if (!this.confirmed) {
      if (!prefix || !Object.keys(sample.raw).some((name) => name.startsWith(prefix))) {
        // Not the server we took it for: read once, never again in this batch.
        this.stopped = true;
        this.gaps.push({ t, error: `${safeMetricsUrl(url)} has no ${prefix ?? ''} metrics; not sampled (give its URL as the metrics source to sample it anyway)` });
        return;
      }
      this.confirmed = true;
    }
    if (Object.keys(sample.raw).length === 0) this.gaps.push({ t, error: this.source.kind === 'promql' ? 'the query matched no series' : 'not Prometheus text (no metric could be read)' });
    else this.samples.push(sample);
  }
}

/** A metrics URL as it may be printed: no user, password or query (the query may carry a token). */
export function safeMetricsUrl(url: string): string {
  try {
    const parsed = new URL(url);
    return `${parsed.origin}${parsed.pathname}`;
  } catch {
    return '(invalid URL)';
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
