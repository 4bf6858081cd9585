/**
 * Whether a load point was served from a warm prefix cache, by the server's own counters: vLLM
 * counts prefix-cache queries and hits (in tokens) since it started, so the counters read right
 * before and right after a point give that point's hit rate. A point with a hit rate of 1% or more
 * is flagged warm — its latency is not the cold figure the load test means to measure. Where the
 * server exports no such counter the point says so instead of guessing.
 */
import { boundedGet } from '../endpoint/boundedGet';
import { probeServerKind, ownMetricsSource } from '../endpoint/serverKind';
import { MAX_METRICS_BYTES, familySum, parsePrometheusText, safeMetricsUrl, type MetricsSource } from '../endpoint/serverMetrics';
import { instantQuery } from '../telemetry/prodPrometheus';
import type { ChatTransport } from '../endpoint/transport';

/** Counter names, newest first: vLLM V1 (`…_total` as exposed), then the V0 engine's `gpu_` names. */
const HIT_NAMES = ['vllm:prefix_cache_hits_total', 'vllm:prefix_cache_hits', 'vllm:gpu_prefix_cache_hits_total', 'vllm:gpu_prefix_cache_hits'];
const QUERY_NAMES = ['vllm:prefix_cache_queries_total', 'vllm:prefix_cache_queries', 'vllm:gpu_prefix_cache_queries_total', 'vllm:gpu_prefix_cache_queries'];

/** A hit rate at or above this share flags the point warm. */
export const WARM_HIT_RATE = 0.01;

export type CounterReading = { hits: number; queries: number } | { reason: string };

export type PointCacheCounters =
  | { source: 'server-counters'; hits: number; queries: number; hitRate: number | null; warm: boolean }
  | { source: 'none'; hits: null; queries: null; hitRate: null; warm: false; reason: string };

/** The counters in one Prometheus exposition (series of a family summed across labels, e.g. per model). */
export function countersFromText(text: string): CounterReading {
  const sums = new Map<string, number>();
  for (const family of parsePrometheusText(text)) {
    const sum = familySum(family);
    if (sum !== undefined) sums.set(family.name, sum);
  }
  return countersFromSums(sums);
}

/** Which of the names the server uses for hits and for queries, among values summed per metric name. */
function counterNames(sums: ReadonlyMap<string, number>): { hits: string; queries: string } | undefined {
  const hits = HIT_NAMES.find((n) => sums.has(n));
  const queries = QUERY_NAMES.find((n) => sums.has(n));
  return hits !== undefined && queries !== undefined ? { hits, queries } : undefined;
}

/** Hits and queries from values summed per metric name, under whichever of the names the server uses. */
function countersFromSums(sums: ReadonlyMap<string, number>): CounterReading {
  const names = counterNames(sums);
  if (!names) return { reason: 'the server exports no prefix-cache hit counters (vllm:prefix_cache_hits_total / vllm:prefix_cache_queries_total)' };
  return { hits: sums.get(names.hits)!, queries: sums.get(names.queries)! };
}

export interface CounterReadOptions {
  /** The moment the reading stands for (a point's start or end): through Prometheus, a scrape after it is waited for. */
  notBeforeMs?: number;
  timeoutMs?: number;
  /** How long to wait for that scrape (default 30 s). */
  scrapeWaitMs?: number;
  signal?: AbortSignal;
}

/** Reads the counters, from the server's /metrics text or through a Prometheus server's API; a failure is a reason, never a throw. */
export async function readPrefixCacheCounters(source: MetricsSource, options: CounterReadOptions = {}): Promise<CounterReading> {
  if (source.kind === 'promql') return readThroughPrometheus(source.url, source.selector.trim(), options);
  const answer = await boundedGet(source.url, options.timeoutMs ?? 2000, MAX_METRICS_BYTES);
  if ('error' in answer) return { reason: `${safeMetricsUrl(source.url)} could not be read (${answer.error})` };
  return countersFromText(answer.text);
}

/**
 * Through Prometheus a reading is as old as its last scrape: with `notBeforeMs` it waits (bounded)
 * until the counters' newest sample is from after that moment, then reads them. A reading that stood
 * for a point's end but came from a scrape before it would miss the point's last requests.
 */
async function readThroughPrometheus(url: string, matchers: string, options: CounterReadOptions): Promise<CounterReading> {
  const base = url.replace(/\/+$/, '');
  const where = safeMetricsUrl(base).replace(/\/+$/, ''); // no credentials or query in what is said
  const extra = matchers ? `, ${matchers}` : '';
  // One instant query's series (the production view's bounded client), or why there are none.
  const ask = async (query: string): Promise<Awaited<ReturnType<typeof instantQuery>>['samples'] | { reason: string }> => {
    try {
      return (await instantQuery(base, query, { timeoutMs: options.timeoutMs ?? 2000, maxBytes: MAX_METRICS_BYTES })).samples;
    } catch (error) {
      return { reason: `Prometheus at ${where}: ${(error as Error).message}` };
    }
  };
  // The names hold only letters, digits, '_' and ':' — nothing a PromQL regex reads specially.
  const read = async (): Promise<Map<string, number> | { reason: string }> => {
    const series = await ask(`{__name__=~"${[...HIT_NAMES, ...QUERY_NAMES].join('|')}"${extra}}`);
    if (!Array.isArray(series)) return series;
    const sums = new Map<string, number>();
    for (const { labels, value } of series) {
      const name = labels.__name__;
      if (name !== undefined && Number.isFinite(value)) sums.set(name, (sums.get(name) ?? 0) + value);
    }
    return sums;
  };
  let sums = await read();
  if ('reason' in sums) return sums;
  const names = counterNames(sums);
  if (!names) return { reason: `Prometheus at ${where} holds no prefix-cache hit counters${matchers ? ` for ${matchers}` : ''} (vllm:prefix_cache_hits_total / vllm:prefix_cache_queries_total)` };
  if (options.notBeforeMs !== undefined) {
    const waitMs = options.scrapeWaitMs ?? 30_000;
    const waitUntil = Date.now() + waitMs;
    for (;;) {
      // A plain selector, so timestamp() gives the samples' own times (hits and queries come from the same scrapes).
      const stamps = await ask(`min(timestamp({__name__="${names.queries}"${extra}}))`);
      if (!Array.isArray(stamps)) return stamps;
      if ((stamps[0]?.value ?? NaN) * 1000 >= options.notBeforeMs) break;
      if (Date.now() >= waitUntil || options.signal?.aborted) return { reason: `Prometheus had not scraped the server's prefix-cache counters again within ${Math.round(waitMs / 1000)} s (a longer scrape interval, or the server is gone)` };
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
    sums = await read();
    if ('reason' in sums) return sums;
  }
  return countersFromSums(sums);
}

/** The point's share of prefix-cache hits from the readings before and after it. */
export function pointCacheCounters(before: CounterReading, after: CounterReading): PointCacheCounters {
  const none = noPrefixCacheCounters;
  if ('reason' in before) return none(`before the point: ${before.reason}`);
  if ('reason' in after) return none(`after the point: ${after.reason}`);
  const hits = after.hits - before.hits;
  const queries = after.queries - before.queries;
  if (hits < 0 || queries < 0) return none('the prefix-cache counters went backwards during the point (the server restarted?)');
  const hitRate = queries > 0 ? hits / queries : null;
  return { source: 'server-counters', hits, queries, hitRate, warm: hitRate !== null && hitRate >= WARM_HIT_RATE };
}

export function noPrefixCacheCounters(reason: string): PointCacheCounters {
  return { source: 'none', hits: null, queries: null, hitRate: null, warm: false, reason };
}

/**
 * Where to read the counters: the metrics source the user gave (a /metrics URL or a Prometheus
 * server), else the server's own /metrics when its kind is known (vLLM and the others serve it beside
 * their API); undefined with no such place.
 */
export async function prefixCacheSource(transport: ChatTransport, given: MetricsSource | undefined): Promise<MetricsSource | undefined> {
  if (given) return given;
  const endpoint = transport.endpoint;
  if (endpoint.metricsUrl) return { kind: 'text', url: endpoint.metricsUrl };
  if (endpoint.simulated || endpoint.provider !== 'openai') return undefined;
  const own = ownMetricsSource(await probeServerKind(endpoint.baseUrl), endpoint.baseUrl);
  return own ? { kind: 'text', url: own.url } : undefined;
}

export const NO_METRICS_URL = 'no metrics to read prefix-cache counters from (give --server-metrics URL or --prometheus URL; a vLLM server is found by itself)';
