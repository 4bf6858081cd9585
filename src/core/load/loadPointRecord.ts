/** The shape of one load point as it is measured, stored (loadResults.ts) and shown: level, figures, every request. */
import type { PercentileTriple } from '../metrics/summary';
import type { AttributionHint } from '../metrics/attribution';
import type { Attainment } from './attainment';
import type { PointCacheCounters } from './prefixCacheCounters';

export type LoadLevel = { kind: 'concurrency'; concurrency: number } | { kind: 'rate'; ratePerSec: number; maxConcurrency: number };

export type Percentiles = PercentileTriple;

export interface LoadPoint {
  level: LoadLevel;
  label: string;
  /** Requests sent, and how many failed. */
  sent: number;
  failed: number;
  /** Requests inside the steady window, and how the window was chosen; `steady` false: too few requests for a steady rate, the whole run counted. */
  counted: number;
  window: { startMs: number; endMs: number; steady: boolean; how: string };
  requestsPerSec: number | null;
  outputTokensPerSec: number | null;
  ttftMs: Percentiles;
  e2eMs: Percentiles;
  tpotMs: Percentiles;
  /** Input and output sequence lengths (ISL/OSL), median tokens. */
  inputTokens: number | null;
  outputTokens: number | null;
  /**
   * Requests the server said it served partly from its prefix cache (per-request cached tokens), and
   * the server's prefix-cache counters read before and after the point (`source`, `hits`, `queries`,
   * `hitRate`; `warm` when the hit rate is 1% or more; `source: 'none'` with the reason otherwise).
   */
  cache: { cold: number; warm: number; unknown: number; warm_share: number; counters: PointCacheCounters };
  attainment: Attainment;
  /** Requests/s and output tokens/s of the requests in the window that met every SLO (vLLM's and DistServe's goodput). */
  goodput: { requestsPerSec: number | null; outputTokensPerSec: number | null };
  /** Failed requests by error kind (429, 5xx, timeout…), never averaged into latency. */
  errors: Record<string, number>;
  /** Open loop: how late requests went out against their schedule; null for closed loop. */
  dispatchDelayMs: Percentiles | null;
  /**
   * The server's own metrics over the window (max and mean), when it exports them; `gpuUtil` (0–1) and
   * `gpuMemoryUsedBytes` from DCGM's exporter (DCGM_FI_DEV_GPU_UTIL, DCGM_FI_DEV_FB_USED) when the
   * metrics URL serves them, null otherwise.
   */
  server: { samples: number; requestsRunning: Spread | null; requestsWaiting: Spread | null; kvCacheUsage: Spread | null; preemptions: number | null; gpuUtil: Spread | null; gpuMemoryUsedBytes: Spread | null } | null;
  /** Every request, so every figure can be recomputed. */
  requests: LoadRequest[];
  /** What to keep in mind reading this point (a rate above capacity, a warm cache, every request failed). */
  notes: string[];
  cancelled: boolean;
  /** What bounded the point: at most N requests and/or S seconds of sending; which ended it. */
  bound: { requests: number; durationS: number | null; endedBy: 'requests' | 'duration' | 'cancelled' };
  /** Queue/prefill/decode medians over the window's ok requests, where the server tells (llama-server timings, Ollama durations, vLLM/SGLang/TGI histograms); null with the reason otherwise. */
  phases: { queueMs: number | null; prefillMs: number; decodeMs: number | null; runs: number; source: string } | { queueMs: null; prefillMs: null; decodeMs: null; runs: 0; reason: string };
  /** Where this point's time goes, from the attribution rules `run` uses (queue-bound, prefill-bound, KV-cache pressure…). */
  hints: AttributionHint[];
  /** Open loop: the arrival process (constant, poisson, gamma with its burstiness); null for closed loop. */
  arrival: string | null;
  /** Answered by the bundled simulator (its responses say so), not a model. */
  simulated: boolean;
  /** Open loop: the cap on requests in flight and what it did to the arrivals; null for closed loop (absent in points stored before it). */
  inFlightCap?: OpenLoopCap | null;
}

/** An open-loop point's cap on requests in flight: whether it was reached, how many arrivals waited for a place, how many were dropped. */
export interface OpenLoopCap {
  cap: number;
  source: 'default' | '--max-concurrency';
  reached: boolean;
  /** Arrivals that may wait for a place at once (the cap again); one more is dropped. */
  maxWaiting: number;
  arrived: number;
  /** Sent late, after waiting for a place (their wait is in dispatchDelayMs, from their scheduled time). */
  waited: number;
  /** Never sent: the wait queue was full when they arrived. */
  dropped: number;
  /** Still waiting when the point was cancelled: never sent. */
  unsent: number;
}

export interface Spread {
  max: number;
  mean: number;
}

export interface LoadRequest {
  startedAtMs: number;
  /** Open loop: when the arrival schedule put it, on the same clock. */
  scheduledAtMs?: number;
  ttftMs: number | null;
  tpotMs: number | null;
  e2eMs: number | null;
  outputTokens: number | null;
  ok: boolean;
  error: string | null;
  meetsSlo: boolean;
  /** Inside the steady window (not ramp or drain). */
  counted: boolean;
}

export function levelLabel(level: LoadLevel): string {
  return level.kind === 'concurrency' ? `concurrency ${level.concurrency}` : `${level.ratePerSec}/s${Number.isFinite(level.maxConcurrency) ? ` (≤ ${level.maxConcurrency} in flight)` : ''}`;
}
