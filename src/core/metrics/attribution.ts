/**
 * Where the time goes, in the words of MISSION.md's attribution rules. Each hint states the
 * numbers that triggered it; none is given when the runs cannot support it.
 */
import { formatMs } from './format';
import type { LatencyFit } from './latencyModel';
import type { MetricsSample } from '../endpoint/serverMetrics';
import type { RunRecord } from './runRecord';
import type { RunSummary } from './summary';
import { medianOf } from '../stats/percentile';

export interface AttributionHint {
  kind: 'decode-bound' | 'prefill-bound' | 'capacity' | 'slow-first-token' | 'queue-bound' | 'cache-pressure' | 'cold-vs-warm';
  message: string;
}

/** What the server itself reported, when it did: per-run phases and its sampled metrics. */
export interface ServerEvidence {
  records: readonly RunRecord[];
  samples?: readonly MetricsSample[];
  summaryWarm?: RunSummary | null;
}

const QUEUE_SHARE = 0.5;
const MIN_QUEUE_MS = 100;
const PREFILL_SHARE = 0.7;
const KV_PRESSURE = 0.9;

const INTERACTIVE_TTFT_LIMIT_MS = 2000;
const DECODE_SHARE = 0.75;
const LONG_E2E_MS = 3000;
const MIN_RUNS_FOR_TREND = 5;
const STRONG_CORRELATION = 0.7;

export function attributionHints(summary: RunSummary, fit: LatencyFit | undefined, concurrency: number): AttributionHint[] {
  const hints: AttributionHint[] = [];
  const ttft = summary.ttftMs.p50;
  const e2e = summary.e2eMs.p50;
  if (ttft !== null && ttft > INTERACTIVE_TTFT_LIMIT_MS) {
    hints.push({ kind: 'slow-first-token', message: `TTFT p50 ${formatMs(ttft)} is above the ~2 s where interactive use breaks down.` });
  }
  if (ttft !== null && e2e !== null && e2e > LONG_E2E_MS && (e2e - ttft) / e2e > DECODE_SHARE && ttft <= INTERACTIVE_TTFT_LIMIT_MS) {
    const tpot = summary.tpotMs.p50;
    hints.push({
      kind: 'decode-bound',
      message: `TTFT is normal (${formatMs(ttft)}) but E2E is ${formatMs(e2e)}: ${Math.round((100 * (e2e - ttft)) / e2e)}% of the time is decoding${tpot !== null ? ` at ${tpot.toFixed(1)} ms/token` : ''}. Shorten the answer (max_tokens, a tighter output format) or look at the server's decode speed (KV cache, quantisation).`,
    });
  }
  if (fit && fit.runs >= MIN_RUNS_FOR_TREND && fit.correlation !== null && fit.correlation >= STRONG_CORRELATION && fit.msPerInputToken > 0) {
    hints.push({
      kind: 'prefill-bound',
      message: `TTFT rises with input length (+${(fit.msPerInputToken * 1000).toFixed(0)} ms per 1k input tokens, r = ${fit.correlation.toFixed(2)} over ${fit.runs} runs): prefill-bound. Trimming context lowers TTFT.`,
    });
  }
  const capacityErrors = (summary.errors.rate_limited ?? 0) + (summary.errors.http_5xx ?? 0) + (summary.errors.timeout ?? 0);
  if (capacityErrors > 0 && concurrency > 1) {
    hints.push({
      kind: 'capacity',
      message: `${capacityErrors} of ${summary.runs} runs failed with 429/5xx/timeouts at concurrency ${concurrency}: the endpoint is at capacity. Lower the concurrency or add capacity.`,
    });
  }
  return hints;
}

/** Hints from the server's own numbers: where TTFT went (queue or prefill), cache pressure, cold against warm. */
export function serverEvidenceHints(summary: RunSummary, evidence: ServerEvidence): AttributionHint[] {
  const hints: AttributionHint[] = [];
  const phased = evidence.records.filter((r) => r.ok && r.cache !== 'warm' && r.phases && r.ttftMs !== null);
  if (phased.length > 0) {
    const ttft = medianOf(phased.map((r) => r.ttftMs!));
    const queue = medianOf(phased.map((r) => r.phases!.queueMs ?? 0));
    const prefill = medianOf(phased.map((r) => r.phases!.prefillMs));
    const waiting = Math.max(0, ...(evidence.samples ?? []).map((s) => s.requestsWaiting ?? 0));
    if (queue >= MIN_QUEUE_MS && queue / ttft > QUEUE_SHARE) {
      hints.push({
        kind: 'queue-bound',
        message: `Queue-bound: of TTFT p50 ${formatMs(ttft)}, ${formatMs(queue)} was waiting before the server started on the prompt (its prefill took ${formatMs(prefill)})${waiting > 0 ? `; the server reported up to ${waiting} request${waiting === 1 ? '' : 's'} waiting` : ''}. Lower the concurrency or add server slots.`,
      });
    } else if (prefill / ttft > PREFILL_SHARE) {
      hints.push({ kind: 'prefill-bound', message: `Prefill-bound: the server spent ${formatMs(prefill)} of TTFT p50 ${formatMs(ttft)} processing the prompt. Trimming the prompt (or caching its fixed start) lowers TTFT.` });
    }
  }
  const kv = Math.max(0, ...(evidence.samples ?? []).map((s) => s.kvCacheUsage ?? 0));
  const preemptions = (evidence.samples ?? []).map((s) => s.preemptions).filter((v): v is number => v !== undefined);
  const preempted = preemptions.length > 1 ? preemptions.at(-1)! - preemptions[0]! : 0;
  if (kv >= KV_PRESSURE || preempted > 0) {
    hints.push({
      kind: 'cache-pressure',
      message: `KV-cache pressure: usage reached ${(kv * 100).toFixed(0)}%${preempted > 0 ? ` and ${preempted} request${preempted === 1 ? ' was' : 's were'} preempted` : ''} during the runs; throughput suffers from paging. Lower concurrency or context length, or give the server more KV memory.`,
    });
  }
  const warm = evidence.summaryWarm;
  if (warm && warm.ttftMs.p50 !== null && summary.ttftMs.p50 !== null) {
    hints.push({
      kind: 'cold-vs-warm',
      message: `${warm.cache.warm} run${warm.cache.warm === 1 ? ' was' : 's were'} served from the server's prefix cache (warm): TTFT p50 ${formatMs(warm.ttftMs.p50)} against ${formatMs(summary.ttftMs.p50)} cold. The figures above are cold; users whose prompts share a cached start see the warm ones.`,
    });
  }
  return hints;
}
