/**
 * Whether a load point was served from a warm prefix cache, by the server's own counters: vLLM
 * counts prefix-cache queries and hits (in tokens) since it started, so the counters read right
 * before and right after a point give that point's hit rate. A point with a hit rate of 1% or more
 * is flagged warm — its latency is not the cold figure the load test means to measure. Where the
 * server exports no such counter the point says so instead of guessing.
 */
import { boundedGet } from '../endpoint/boundedGet';
import { probeServerKind, ownMetricsSource } from '../endpoint/serverKind';
import { MAX_METRICS_BYTES, familySum, parsePrometheusText, safeMetricsUrl } from '../endpoint/serverMetrics';
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
  const hits = HIT_NAMES.find((n) => sums.has(n));
  const queries = QUERY_NAMES.find((n) => sums.has(n));
  if (hits === undefined || queries === undefined) return { reason: 'the server exports no prefix-cache hit counters (vllm:prefix_cache_hits_total / vllm:prefix_cache_queries_total)' };
  return { hits: sums.get(hits)!, queries: sums.get(queries)! };
}

/** Reads the counters from a /metrics URL; a failure is a reason, never a throw. */
export async function readPrefixCacheCounters(url: string, timeoutMs = 2000): Promise<CounterReading> {
  const answer = await boundedGet(url, timeoutMs, MAX_METRICS_BYTES);
  if ('error' in answer) return { reason: `${safeMetricsUrl(url)} could not be read (${answer.error})` };
  return countersFromText(answer.text);
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
 * Where to read the counters: the metrics URL the user gave, else the server's own /metrics when
 * its kind is known (vLLM and the others serve it beside their API); undefined with no such place.
 */
export async function prefixCacheMetricsUrl(transport: ChatTransport, given: string | undefined): Promise<string | undefined> {
  if (given) return given;
  const endpoint = transport.endpoint;
  if (endpoint.metricsUrl) return endpoint.metricsUrl;
  if (endpoint.simulated || endpoint.provider !== 'openai') return undefined;
  return ownMetricsSource(await probeServerKind(endpoint.baseUrl), endpoint.baseUrl)?.url;
}

export const NO_METRICS_URL = 'no /metrics to read prefix-cache counters from (give --server-metrics URL; a vLLM server is found by itself)';
