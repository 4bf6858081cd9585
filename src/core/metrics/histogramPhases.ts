/**
 * A run's phases from the server's own request histograms (vLLM, SGLang, TGI): read `/metrics`
 * before and after a run that is alone on the server; when exactly one request finished in
 * between, the growth of each histogram's `_sum` is that request's time in the phase.
 * Histogram series are read as plain samples (parsePrometheusText says why).
 */
import { runPhases, type RunPhases } from './runRecord';
import { boundedGet } from '../endpoint/boundedGet';
import { MAX_METRICS_BYTES, parsePrometheusText } from '../endpoint/serverMetrics';
import type { ServerKind } from '../endpoint/serverKind';

/** Sum and count of one histogram (series summed), by family name and `name{method="…"}`. */
export type HistogramTotals = Map<string, { sum: number; count: number }>;

export function histogramTotals(text: string): HistogramTotals {
  const totals: HistogramTotals = new Map();
  for (const family of parsePrometheusText(text, { histogramSeries: true })) {
    const part = /_(sum|count)$/.exec(family.name);
    if (!part) continue;
    const base = family.name.slice(0, -part[0].length);
    for (const metric of family.metrics) {
      const value = Number(metric.value);
      if (!Number.isFinite(value)) continue;
      const method = metric.labels?.method;
      for (const key of method ? [base, `${base}{method="${method}"}`] : [base]) {
        const entry = totals.get(key) ?? { sum: 0, count: 0 };
        entry[part[1] as 'sum' | 'count'] += value;
        totals.set(key, entry);
      }
    }
  }
  return totals;
}

interface PhaseNames {
  /** The histogram that counts finished requests: its count must grow by exactly one. */
  requests: string;
  prefill?: string;
  decode?: string;
  /** SGLang has no prefill histogram: prefill = TTFT − queue, decode = E2E − TTFT. */
  ttft?: string;
  queue?: string;
  e2e?: string;
}

const NAMES: Partial<Record<ServerKind, PhaseNames>> = {
  vllm: { requests: 'vllm:request_prefill_time_seconds', prefill: 'vllm:request_prefill_time_seconds', decode: 'vllm:request_decode_time_seconds' },
  sglang: { requests: 'sglang:e2e_request_latency_seconds', ttft: 'sglang:time_to_first_token_seconds', queue: 'sglang:queue_time_seconds', e2e: 'sglang:e2e_request_latency_seconds' },
  tgi: { requests: 'tgi_request_queue_duration', prefill: 'tgi_batch_inference_duration{method="prefill"}', decode: 'tgi_batch_inference_duration{method="decode"}' },
};

export function hasHistogramPhases(kind: ServerKind): boolean {
  return NAMES[kind] !== undefined;
}

/** Whether a reading has the histogram that counts finished requests (older servers, or metrics turned off, do not). */
export function histogramsReadable(kind: ServerKind, totals: HistogramTotals): boolean {
  const requests = NAMES[kind]?.requests;
  return requests !== undefined && totals.has(requests);
}

/** The phases of the one request that finished between two readings; null when it was not exactly one. */
export function phasesFromHistograms(kind: ServerKind, before: HistogramTotals, after: HistogramTotals, ttftMs: number | null): RunPhases | null {
  const names = NAMES[kind];
  if (!names) return null;
  const grown = (name: string | undefined): number | undefined => {
    if (!name) return undefined;
    const a = after.get(name);
    if (!a) return undefined;
    const b = before.get(name) ?? { sum: 0, count: 0 };
    return (a.sum - b.sum) * 1000;
  };
  const finished = (after.get(names.requests)?.count ?? 0) - (before.get(names.requests)?.count ?? 0);
  if (finished !== 1) return null;
  let prefillMs = grown(names.prefill);
  let decodeMs = grown(names.decode);
  if (names.ttft) {
    const ttft = grown(names.ttft);
    const queue = grown(names.queue) ?? 0;
    const e2e = grown(names.e2e);
    prefillMs = ttft === undefined ? undefined : Math.max(0, ttft - queue);
    decodeMs = ttft === undefined || e2e === undefined ? undefined : Math.max(0, e2e - ttft);
  }
  if (prefillMs === undefined || prefillMs < 0) return null;
  return runPhases(ttftMs, prefillMs, decodeMs === undefined || decodeMs < 0 ? null : decodeMs, `${kind as 'vllm' | 'sglang' | 'tgi'} /metrics`);
}

const READ_TIMEOUT_MS = 1000;

/** One reading of the server's histograms; undefined when /metrics cannot be read. */
export async function readHistograms(url: string): Promise<HistogramTotals | undefined> {
  const answer = await boundedGet(url, READ_TIMEOUT_MS, MAX_METRICS_BYTES);
  return 'error' in answer ? undefined : histogramTotals(answer.text);
}

/**
 * The reading after a run: servers record a request's histograms as it finishes, a moment after
 * the last byte; read again (5 × 100 ms) until the request count has grown.
 */
export async function readHistogramsAfter(kind: ServerKind, url: string, before: HistogramTotals): Promise<HistogramTotals | undefined> {
  const requests = NAMES[kind]?.requests;
  let after: HistogramTotals | undefined;
  for (let attempt = 0; attempt < 5; attempt++) {
    after = await readHistograms(url);
    if (!after || !requests) return after;
    if ((after.get(requests)?.count ?? 0) > (before.get(requests)?.count ?? 0)) return after;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return after;
}
