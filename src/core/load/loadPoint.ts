/**
 * One point of a load test: N requests of a prompt at one load level — closed loop at a concurrency
 * (a new request starts the moment one finishes) or open loop at a rate (Poisson arrivals,
 * optionally capped by a concurrency) — and its figures over the steady window only.
 *
 * Warm-up and cool-down: the figures are taken over a time window from the moment the first C
 * requests have completed (the ramp) to the last send (the drain begins), C being the concurrency
 * (for a rate: the most in flight seen); see steadyWindow for the rule and its minimum.
 */
import type { RunOutcome } from '../run/runOnce';
import type { ChatTransport } from '../endpoint/transport';
import type { CacheMode } from '../endpoint/serverKind';
import { isNumber, percentileTriple, summarize, type PercentileTriple } from '../metrics/summary';
import type { RunRecord } from '../metrics/runRecord';
import type { Objective } from '../rollout/slo';
import { executeRunJobs, type PromptRunPlan } from '../run/promptRun';
import type { MetricsSample } from '../endpoint/serverMetrics';
import { serverEvidenceHints, type AttributionHint } from '../metrics/attribution';
import { summarizeRuns } from '../metrics/summary';
import { medianOf } from '../stats/percentile';
import { interArrivalSampler, arrivalText, type Arrival } from './arrivals';
import { attainment, latencyObjectives, requestAttains, type Attainment } from './attainment';
import { steadyWindow } from './steadyWindow';
import { NO_METRICS_URL, noPrefixCacheCounters, pointCacheCounters, readPrefixCacheCounters, type PointCacheCounters } from './prefixCacheCounters';
import type { MetricsSource } from '../endpoint/serverMetrics';

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

export interface LoadPointOptions {
  transport: ChatTransport;
  plans: readonly PromptRunPlan[];
  requests: number;
  timeoutMs: number;
  cache: CacheMode;
  objectives: readonly Objective[];
  /** The --attainment override; null: each SLO's percentile is its target. */
  target: number | null;
  signal?: AbortSignal;
  random?: () => number;
  /** Open loop: how arrivals are spaced (default Poisson). */
  arrival?: Arrival;
  /** No new request starts after this many ms; with `requests` as the upper bound. */
  durationMs?: number;
  /** The server's Prometheus /metrics, or a Prometheus server scraping it: its prefix-cache counters are read before and after the point. */
  prefixCacheSource?: MetricsSource;
  /** Where the server's own view is sampled during the point (default: the server's own /metrics when its kind is known). */
  metricsSource?: MetricsSource;
  /** Each finished request, with what it was a run of (for telemetry export). */
  onRequest?: (finished: number, total: number, outcome: RunOutcome, plan: PromptRunPlan) => void;
}

export function levelLabel(level: LoadLevel): string {
  return level.kind === 'concurrency' ? `concurrency ${level.concurrency}` : `${level.ratePerSec}/s${Number.isFinite(level.maxConcurrency) ? ` (≤ ${level.maxConcurrency} in flight)` : ''}`;
}

export async function runLoadPoint(level: LoadLevel, options: LoadPointOptions): Promise<LoadPoint> {
  const jobs = Array.from({ length: options.requests }, (_, i) => ({ plan: options.plans[i % options.plans.length]!, testCase: i % options.plans.length }));
  const concurrency = level.kind === 'concurrency' ? level.concurrency : Math.min(level.maxConcurrency, 100_000);
  const dispatchDelays: number[] = [];
  const delayOf = new Map<number, number>();
  const arrival: Arrival = options.arrival ?? { kind: 'poisson', burstiness: 1 };
  // Through Prometheus both readings wait for a scrape after the moment they stand for (nothing of the previous point, all of this one).
  const countersBefore = options.prefixCacheSource ? await readPrefixCacheCounters(options.prefixCacheSource, { notBeforeMs: Date.now(), ...(options.signal ? { signal: options.signal } : {}) }) : undefined;
  const executed = await executeRunJobs(options.transport, jobs, {
    concurrency, warmup: 0, ...(options.metricsSource ? { metricsSource: options.metricsSource } : {}), timeoutMs: options.timeoutMs, cache: options.cache,
    ...(level.kind === 'rate' ? { onDispatchDelay: (i: number, delay: number) => (dispatchDelays.push(delay), delayOf.set(i, delay)) } : {}),
    ...(level.kind === 'rate' ? { ratePerSec: level.ratePerSec, interArrivalMs: interArrivalSampler(arrival, level.ratePerSec, options.random ?? Math.random) } : {}),
    ...(options.durationMs !== undefined ? { durationMs: options.durationMs } : {}),
    ...(options.signal ? { signal: options.signal } : {}),
    ...(options.random ? { random: options.random } : {}),
    ...(options.onRequest ? { onRun: (o: RunOutcome, finished: number, jobIndex: number) => options.onRequest!(finished, options.requests, o, jobs[jobIndex]!.plan) } : {}),
  });
  // Read after every request ended, so the counters hold the whole point and nothing of the next.
  const endedAt = Date.now();
  const counters = options.prefixCacheSource && countersBefore && !('reason' in countersBefore)
    ? pointCacheCounters(countersBefore, await readPrefixCacheCounters(options.prefixCacheSource, { notBeforeMs: endedAt, ...(options.signal ? { signal: options.signal } : {}) }))
    : noPrefixCacheCounters(countersBefore && 'reason' in countersBefore ? `before the point: ${countersBefore.reason}` : NO_METRICS_URL);
  const runs = executed.outcomes
    .map((outcome, i) => ({ record: outcome.record, start: executed.startedAt[i]!, delay: delayOf.get(executed.jobOf[i]!) }))
    .filter((r) => r.record.error?.kind !== 'cancelled')
    .sort((a, b) => a.start - b.start);
  const inFlight = level.kind === 'concurrency' ? level.concurrency : maxInFlight(runs);
  const limits = latencyObjectives(options.objectives);
  const { steady, counted, windowStart, windowEnd, how, requestsPerSec, outputTokensPerSec, goodput } = steadyWindow(runs, inFlight, limits);
  const records = counted.map((r) => r.record);
  const ok = records.filter((r) => r.ok);
  const cache = { cold: 0, warm: 0, unknown: 0 };
  for (const r of records) cache[r.cache === 'warm' ? 'warm' : r.cache === 'cold' ? 'cold' : 'unknown']++;
  const errors: Record<string, number> = Object.create(null) as Record<string, number>;
  for (const r of runs) if (!r.record.ok) errors[r.record.error?.kind ?? 'error'] = (errors[r.record.error?.kind ?? 'error'] ?? 0) + 1;
  const countedSet = new Set(counted);
  return {
    level,
    label: levelLabel(level),
    sent: runs.length,
    failed: runs.filter((r) => !r.record.ok).length,
    counted: counted.length,
    window: { startMs: windowStart, endMs: windowEnd, steady, how },
    requestsPerSec,
    outputTokensPerSec,
    ttftMs: percentileTriple(ok.map((r) => r.ttftMs)),
    e2eMs: percentileTriple(ok.map((r) => r.e2eMs)),
    tpotMs: percentileTriple(ok.map((r) => r.tpotMs)),
    inputTokens: summarize(ok.map((r) => r.inputTokens).filter(isNumber)).p50,
    outputTokens: summarize(ok.map((r) => r.outputTokens).filter(isNumber)).p50,
    cache: { ...cache, warm_share: records.length > 0 ? cache.warm / records.length : 0, counters },
    attainment: attainment(records, options.objectives, options.target),
    goodput,
    errors,
    dispatchDelayMs: level.kind === 'rate' ? percentileTriple(dispatchDelays) : null,
    server: serverView(executed.serverMetrics?.samples ?? [], windowStart, windowEnd),
    requests: runs.map((r) => ({
      startedAtMs: Math.round(r.start * 10) / 10,
      // Open loop: when the arrival process scheduled it (sent late by dispatchDelay when the client lagged).
      ...(r.delay !== undefined ? { scheduledAtMs: Math.round((r.start - r.delay) * 10) / 10 } : {}),
      ttftMs: r.record.ttftMs,
      tpotMs: r.record.tpotMs,
      e2eMs: r.record.e2eMs,
      outputTokens: r.record.outputTokens,
      ok: r.record.ok,
      error: r.record.error?.kind ?? null,
      meetsSlo: requestAttains(r.record, limits),
      counted: countedSet.has(r),
    })),
    notes: pointNotes(level, runs.length, runs.filter((r) => !r.record.ok).length, requestsPerSec, cache.warm, counters),
    cancelled: options.signal?.aborted === true,
    bound: {
      requests: options.requests,
      durationS: options.durationMs !== undefined ? options.durationMs / 1000 : null,
      endedBy: options.signal?.aborted === true ? 'cancelled' : runs.length >= options.requests ? 'requests' : 'duration',
    },
    arrival: level.kind === 'rate' ? arrivalText(arrival) : null,
    simulated: runs.some((r) => r.record.simulated === true),
    phases: phaseMedians(records),
    hints: serverEvidenceHints(summarizeRuns(records), { records, samples: (executed.serverMetrics?.samples ?? []).filter((m) => m.t >= windowStart && m.t <= windowEnd) }),
  };
}

/** Open-loop completions below 90% of the arrival rate: the server cannot keep up, and the point measures its backlog. */
const BACKLOG_SHARE = 0.9;

function pointNotes(level: LoadLevel, sent: number, failed: number, requestsPerSec: number | null, warm: number, counters: PointCacheCounters): string[] {
  const notes: string[] = [];
  if (sent > 0 && failed === sent) notes.push('every request failed: the endpoint did not answer at this level');
  if (level.kind === 'rate' && requestsPerSec !== null && requestsPerSec < BACKLOG_SHARE * level.ratePerSec) {
    notes.push(`a rate above capacity: ${requestsPerSec.toFixed(2)} req/s completed of ${level.ratePerSec}/s sent, so latency here measures the backlog`);
  }
  if (warm > 0) notes.push(`${warm} requests were served partly from the server's prefix cache (warm)`);
  if (counters.warm) notes.push(`warm: the server's prefix-cache counters show a ${(counters.hitRate! * 100).toFixed(1)}% hit rate over the point (${counters.hits} of ${counters.queries} tokens), so its latency is not a cold figure`);
  return notes;
}

/** The server's running and waiting requests, KV-cache use, preemptions and GPU (when DCGM is exported) over the window. */
function serverView(samples: readonly MetricsSample[], start: number, end: number): LoadPoint['server'] {
  const inWindow = samples.filter((s) => s.t >= start && s.t <= end);
  if (inWindow.length === 0) return null;
  const spread = (pick: (s: MetricsSample) => number | undefined): Spread | null => {
    const values = inWindow.map(pick).filter((v): v is number => typeof v === 'number' && Number.isFinite(v));
    return values.length > 0 ? { max: Math.max(...values), mean: values.reduce((a, b) => a + b, 0) / values.length } : null;
  };
  const preempt = inWindow.map((s) => s.preemptions).filter((v): v is number => typeof v === 'number' && Number.isFinite(v));
  return {
    samples: inWindow.length,
    requestsRunning: spread((s) => s.requestsRunning),
    requestsWaiting: spread((s) => s.requestsWaiting),
    kvCacheUsage: spread((s) => s.kvCacheUsage),
    preemptions: preempt.length > 1 ? preempt[preempt.length - 1]! - preempt[0]! : null,
    gpuUtil: spread((s) => s.gpuUtil),
    gpuMemoryUsedBytes: spread((s) => s.gpuMemoryUsedBytes),
  };
}

function phaseMedians(records: readonly RunRecord[]): LoadPoint['phases'] {
  const phased = records.filter((r) => r.ok && r.phases);
  if (phased.length === 0) return { queueMs: null, prefillMs: null, decodeMs: null, runs: 0, reason: records.some((r) => r.ok) ? 'the server reports no per-request phases (no llama-server timings, Ollama durations or request histograms)' : 'no request succeeded' };
  const median = (values: (number | null)[]): number | null => {
    const known = values.filter(isNumber);
    return known.length > 0 ? medianOf(known) : null;
  };
  return {
    queueMs: median(phased.map((r) => r.phases!.queueMs)),
    prefillMs: medianOf(phased.map((r) => r.phases!.prefillMs)),
    decodeMs: median(phased.map((r) => r.phases!.decodeMs)),
    runs: phased.length,
    source: phased[0]!.phases!.source,
  };
}

/** The most requests in flight at once (a sweep over start and end events). */
function maxInFlight(runs: readonly { record: RunRecord; start: number }[]): number {
  const events = runs.flatMap((r) => [
    { t: r.start, d: 1 },
    { t: r.start + (r.record.e2eMs ?? 0), d: -1 },
  ]);
  events.sort((a, b) => a.t - b.t || a.d - b.d);
  let now = 0;
  let most = 1;
  for (const e of events) most = Math.max(most, (now += e.d));
  return most;
}
