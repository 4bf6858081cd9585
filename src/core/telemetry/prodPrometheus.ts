/**
 * `prod FILE --prometheus URL`: production numbers per prompt version from a Prometheus server (or
 * anything with its HTTP API: Thanos, Mimir, VictoriaMetrics), through PromQL over the GenAI client
 * histograms as Prometheus names them (`gen_ai_client_operation_duration_seconds_bucket`, label
 * `gen_ai_prompt_version`), plus the inference servers' own histograms (vLLM) for the whole server.
 *
 * Percentiles come from histogram buckets (histogram_quantile: linear within a bucket), so they have
 * no distribution-free interval, and the latency verdicts, which need per-request values, are not
 * given; the error-rate verdict is (it needs counts only). Every answer is bounded in time and size.
 */
import { boundedGet } from '../endpoint/boundedGet';
import { wilsonInterval } from '../stats/proportions';
import type { SkipCounts } from './prodAggregate';
import { errorRateVerdict, orderVersions, PROD_PERCENTILES, type ProdPercentiles, type ProdReport, type ProdVersion } from './prodReport';
import { loadFileVersions, matchVersion, type FileVersions } from './prodVersions';
import { resolveVersionLabels } from './versionResolver';

export interface PrometheusOptions {
  /** PromQL range, e.g. `24h` (default), `7d`. */
  window?: string;
  /** Evaluation time (Unix ms); default now. */
  atMs?: number;
  prompt?: string;
  timeoutMs?: number;
  maxBytes?: number;
  signal?: AbortSignal;
  /** The file's versions when the caller has them already (the editor reads history once for every source). */
  fileVersions?: Promise<FileVersions>;
}

export const DEFAULT_PROMETHEUS_TIMEOUT_MS = 10_000;
export const DEFAULT_PROMETHEUS_MAX_BYTES = 8 * 1024 * 1024;
/** Series per answer that are read; more (a label exploding) are counted and left out. */
export const MAX_SERIES = 2000;

export const VERSION_LABEL = 'gen_ai_prompt_version';
export const NAME_LABEL = 'gen_ai_prompt_name';
/**
 * v1.41.1 names and the newer `gen_ai.client.inference.*` ones, as the SDK's Prometheus exporter writes them
 * (`gen_ai_client_operation_duration_bucket`) or the Collector's exporters do (unit appended: `…_seconds_bucket`);
 * successes only (no `error_type`), as with trace files: a failed call's duration is not the prompt's latency.
 */
export const HISTOGRAMS = {
  e2eMs: '{__name__=~"gen_ai_client_(operation|inference)_duration(_seconds)?_bucket", error_type=""}',
  ttftMs: '{__name__=~"gen_ai_client_(operation|inference)_time_to_first_chunk(_seconds)?_bucket", error_type=""}',
  tpotMs: '{__name__=~"gen_ai_client_(operation|inference)_time_per_output_chunk(_seconds)?_bucket", error_type=""}',
} as const;
export const DURATION_COUNT = '{__name__=~"gen_ai_client_(operation|inference)_duration(_seconds)?_count"}';
const TOKEN_SUM = '{__name__=~"gen_ai_client_token_usage(_tokens)?_sum"}';
/** Inference servers' own latency histograms: the whole server (their series carry no prompt label). */
const SERVER_HISTOGRAMS: readonly (readonly [engine: string, metric: string, bucket: string])[] = [
  ['vLLM', 'TTFT', 'vllm:time_to_first_token_seconds_bucket'],
  ['vLLM', 'E2E', 'vllm:e2e_request_latency_seconds_bucket'],
  ['vLLM', 'TPOT', 'vllm:request_time_per_output_token_seconds_bucket'],
  ['SGLang', 'TTFT', 'sglang:time_to_first_token_seconds_bucket'],
  ['SGLang', 'E2E', 'sglang:e2e_request_latency_seconds_bucket'],
  ['TGI', 'E2E', 'tgi_request_duration_bucket'],
];
/** llama.cpp exports counters, not histograms: means over the window (seconds per token). */
const SERVER_MEANS: readonly (readonly [engine: string, metric: string, seconds: string, tokens: string])[] = [
  ['llama.cpp', 'prefill per token', 'llamacpp:prompt_seconds_total', 'llamacpp:prompt_tokens_total'],
  ['llama.cpp', 'decode per token', 'llamacpp:tokens_predicted_seconds_total', 'llamacpp:tokens_predicted_total'],
];

export interface ServerFigure {
  engine: string;
  metric: string;
  p50Ms?: number;
  p99Ms?: number;
  meanMs?: number;
}

interface Sample {
  labels: Record<string, string>;
  value: number;
}

export class PrometheusError extends Error {}

/**
 * What a counter counted over `window`, a new series' first scrape included: `increase()` starts from a series'
 * first sample, so a series that appears inside the window (every deploy's new version label, every restarted
 * client's) loses the count that sample already held — 101 of 110 requests. For series that did not exist at the
 * window's start, the counter's last value is its whole count (counters start at 0); for the others, increase().
 */
export function counted(selector: string, window: string): string {
  return `((increase(${selector}[${window}]) and ${selector} offset ${window}) or (last_over_time(${selector}[${window}]) unless ${selector} offset ${window}))`;
}

export function isPromqlDuration(window: string): boolean {
  return /^\d{1,5}[smhdwy]$/.test(window);
}

export async function instantQuery(baseUrl: string, query: string, options: { atMs?: number; timeoutMs: number; maxBytes: number }): Promise<{ samples: Sample[]; dropped: number }> {
  const params = new URLSearchParams({ query });
  if (options.atMs !== undefined) params.set('time', (options.atMs / 1000).toFixed(3));
  const url = `${baseUrl.replace(/\/+$/, '')}/api/v1/query?${params}`;
  const answer = await boundedGet(url, options.timeoutMs, options.maxBytes);
  if ('error' in answer) throw new PrometheusError(`Prometheus query failed: ${answer.error}`);
  let body: { status?: unknown; error?: unknown; data?: { resultType?: unknown; result?: unknown } };
  try {
    body = JSON.parse(answer.text);
  } catch {
    throw new PrometheusError('Prometheus answered with something that is not JSON: is the URL the server itself (http://host:9090)?');
  }
  if (body?.status !== 'success') throw new PrometheusError(`Prometheus refused the query: ${typeof body?.error === 'string' ? body.error.slice(0, 300) : 'no reason given'}`);
  if (body.data?.resultType !== 'vector' || !Array.isArray(body.data.result)) throw new PrometheusError('Prometheus answered without an instant vector.');
  const samples: Sample[] = [];
  let dropped = 0;
  for (const series of body.data.result as { metric?: unknown; value?: unknown }[]) {
    if (samples.length >= MAX_SERIES) {
      dropped++;
      continue;
    }
    const value = Number(Array.isArray(series?.value) ? series.value[1] : NaN);
    const metric = typeof series?.metric === 'object' && series.metric !== null ? (series.metric as Record<string, unknown>) : {};
    const labels: Record<string, string> = {};
    for (const [k, v] of Object.entries(metric)) if (typeof v === 'string') labels[k] = v.slice(0, 256);
    samples.push({ labels, value });
  }
  return { samples, dropped };
}

const keyOf = (labels: Record<string, string>) => `${labels[NAME_LABEL] ?? ''}\u0000${labels[VERSION_LABEL] ?? ''}`;

function emptyPercentiles(n: number): ProdPercentiles {
  return { n, p50: null, p90: null, p99: null };
}

export async function prodFromPrometheus(file: string, url: string, options: PrometheusOptions = {}): Promise<ProdReport> {
  const window = options.window ?? '24h';
  if (!isPromqlDuration(window)) throw new PrometheusError(`--since with --prometheus takes a duration such as 24h or 7d (got '${window}')`);
  const call = { ...(options.atMs !== undefined ? { atMs: options.atMs } : {}), timeoutMs: options.timeoutMs ?? DEFAULT_PROMETHEUS_TIMEOUT_MS, maxBytes: options.maxBytes ?? DEFAULT_PROMETHEUS_MAX_BYTES };
  const by = `${NAME_LABEL}, ${VERSION_LABEL}`;
  let dropped = 0;
  const query = async (q: string) => {
    if (options.signal?.aborted) throw new PrometheusError('interrupted');
    const r = await instantQuery(url, q, call);
    dropped += r.dropped;
    return r.samples;
  };
  const fileVersions = await (options.fileVersions ?? loadFileVersions(file, options.signal ? { signal: options.signal } : {}));
  const requests = await query(`sum by (${by}) (${counted(DURATION_COUNT, window)})`);
  const errors = await query(`sum by (${by}, error_type) (${counted(DURATION_COUNT.replace('"}', '", error_type!=""}'), window)})`);
  const tokens = await query(`sum by (${by}, gen_ai_token_type) (${counted(TOKEN_SUM, window)})`);
  const quantiles: Record<string, Map<string, Partial<Record<'p50' | 'p90' | 'p99', number>>>> = {};
  for (const [metric, selector] of Object.entries(HISTOGRAMS)) {
    const perKey = new Map<string, Partial<Record<'p50' | 'p90' | 'p99', number>>>();
    for (const [name, p] of PROD_PERCENTILES) {
      for (const s of await query(`histogram_quantile(${p}, sum by (le, ${by}) (rate(${selector}[${window}])))`)) {
        if (!Number.isFinite(s.value)) continue;
        const entry = perKey.get(keyOf(s.labels)) ?? {};
        entry[name] = Math.round(s.value * 1e6) / 1000;
        perKey.set(keyOf(s.labels), entry);
      }
    }
    quantiles[metric] = perKey;
  }

  const wanted = options.prompt ? new Set([options.prompt]) : fileVersions.promptNames;
  // Registry integers and deploy commits among the labels → the file's revisions.
  const resolved = await resolveVersionLabels(file, fileVersions, requests.map((r) => ({ name: r.labels[NAME_LABEL] ?? null, version: r.labels[VERSION_LABEL] ?? '' })).filter((l) => l.version !== ''), options.signal ? { signal: options.signal } : {});
  const versions: ProdVersion[] = [];
  const orders = new Map<ProdVersion, number | null>();
  const otherPrompts: Record<string, number> = {};
  for (const r of requests) {
    const name = r.labels[NAME_LABEL] ?? null;
    const version = r.labels[VERSION_LABEL];
    const total = Math.round(r.value);
    if (!version || !Number.isFinite(total) || total <= 0) continue;
    const match = matchVersion(version, name, fileVersions);
    if (name !== null ? !wanted.has(name) : match.revision === null) {
      otherPrompts[name ?? '(no name)'] = (otherPrompts[name ?? '(no name)'] ?? 0) + total;
      continue;
    }
    const key = keyOf(r.labels);
    const byType: Record<string, number> = {};
    for (const e of errors) if (keyOf(e.labels) === key && Number.isFinite(e.value) && e.value > 0) byType[e.labels.error_type ?? '_OTHER'] = Math.round(e.value);
    const errorCount = Math.min(total, Object.values(byType).reduce((a, b) => a + b, 0));
    const tokenOf = (type: string) => Math.round(tokens.find((t) => keyOf(t.labels) === key && t.labels.gen_ai_token_type === type)?.value ?? 0);
    const pct = (metric: keyof typeof HISTOGRAMS): ProdPercentiles => {
      const q = quantiles[metric]!.get(key);
      const out = emptyPercentiles(q ? total - errorCount : 0);
      for (const [n] of PROD_PERCENTILES) if (q?.[n] !== undefined) out[n] = { value: q[n]!, ci95: [null, null] };
      return out;
    };
    const report: ProdVersion = {
      version,
      promptName: name,
      revision: match.revision,
      matchedBy: match.how,
      inGitHistory: match.revision !== null,
      ...(match.date ? { revisionDate: match.date } : {}),
      ...(match.subject ? { revisionSubject: match.subject } : {}),
      firstSeen: null,
      lastSeen: null,
      requests: total,
      errors: errorCount,
      errorRate: errorCount / total,
      errorRateCi95: wilsonInterval(errorCount, total),
      errorsByType: byType,
      ttftMs: pct('ttftMs'),
      e2eMs: pct('e2eMs'),
      tpotMs: pct('tpotMs'),
      tokens: { input: tokenOf('input'), output: tokenOf('output'), cacheRead: 0, requestsWithUsage: tokenOf('input') > 0 ? total : 0 },
      cacheReadShare: null,
    };
    versions.push(report);
    orders.set(report, match.order);
  }
  // Without first-seen times, order by git history; unmapped versions last.
  const ordered = orderVersions(versions, (v) => orders.get(v) ?? Number.MAX_SAFE_INTEGER);
  const [latest, previous] = ordered;
  const notes = [
    `percentiles are interpolated within histogram buckets over the last ${window} (no per-request values, so no intervals and no latency verdicts; use --traces for those).`,
  ];
  notes.push(...resolved.problems);
  if (fileVersions.historyProblem) notes.push(`git history unavailable (${fileVersions.historyProblem}): versions are not mapped to revisions.`);
  for (const v of ordered) if (!v.inGitHistory) notes.push(`version ${v.version} is seen in production (${v.requests} requests) but is not in ${file}'s git history.`);
  if (versions.length > 0 && quantiles.ttftMs!.size === 0) notes.push('no TTFT: Prometheus holds no time-to-first-chunk histogram for these prompts (gen_ai_client_operation_time_to_first_chunk, …_seconds, or the gen_ai_client_inference_* names). The instrumentation records none — the official OpenAI instrumentation and OpenLLMetry do not; the AI SDK and Prompt Insight\'s own export do (docs/instrument-your-app.md).');
  if (dropped) notes.push(`${dropped} series beyond ${MAX_SERIES} per query were left out.`);
  const server = await serverFigures(query, window);
  if (server.length) notes.push(`whole server (its own metrics, all prompts): ${server.map(describeFigure).join('; ')}`);
  const skipped: SkipCounts = { lines: 0, spans: 0, reasons: {} };
  return {
    file,
    source: { kind: 'prometheus', url: safeUrl(url) },
    window: { since: window },
    versions: ordered,
    comparison: latest && previous ? { base: previous.version, head: latest.version, verdicts: [errorRateVerdict({ rev: previous.version, errors: previous.errors, total: previous.requests }, { rev: latest.version, errors: latest.errors, total: latest.requests })] } : null,
    skipped,
    otherPrompts,
    notes,
    ...(server.length ? { server } : {}),
  };
}

/** The inference servers' own figures, when the server exports them: whole server, all prompts. */
async function serverFigures(query: (q: string) => Promise<Sample[]>, window: string): Promise<ServerFigure[]> {
  const figures: ServerFigure[] = [];
  const ms = (s: Sample | undefined) => (s && Number.isFinite(s.value) ? Math.round(s.value * 1e6) / 1000 : undefined);
  for (const [engine, metric, bucket] of SERVER_HISTOGRAMS) {
    const p50 = ms((await query(`histogram_quantile(0.5, sum by (le) (rate(${bucket}[${window}])))`))[0]);
    if (p50 === undefined) continue;
    const p99 = ms((await query(`histogram_quantile(0.99, sum by (le) (rate(${bucket}[${window}])))`))[0]);
    figures.push({ engine, metric, p50Ms: p50, ...(p99 !== undefined ? { p99Ms: p99 } : {}) });
  }
  for (const [engine, metric, seconds, tokens] of SERVER_MEANS) {
    const mean = ms((await query(`sum(increase(${seconds}[${window}])) / sum(increase(${tokens}[${window}]))`))[0]);
    if (mean !== undefined) figures.push({ engine, metric, meanMs: mean });
  }
  return figures;
}

function describeFigure(f: ServerFigure): string {
  const value = f.meanMs !== undefined ? `mean ${f.meanMs} ms` : `p50 ${Math.round(f.p50Ms!)} ms${f.p99Ms !== undefined ? ` · p99 ${Math.round(f.p99Ms)} ms` : ''}`;
  return `${f.engine} ${f.metric} ${value}`;
}

export function safeUrl(url: string): string {
  try {
    const u = new URL(url);
    return `${u.origin}${u.pathname}`;
  } catch {
    return '(invalid URL)';
  }
}
