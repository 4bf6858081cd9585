/**
 * Where the time goes, in the words of MISSION.md's attribution rules. Each hint states the
 * numbers that triggered it; none is given when the runs cannot support it.
 */
import { formatMs } from './format';
import type { LatencyFit } from './latencyModel';
import type { RunSummary } from './summary';

export interface AttributionHint {
  kind: 'decode-bound' | 'prefill-bound' | 'capacity' | 'slow-first-token';
  message: string;
}

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
