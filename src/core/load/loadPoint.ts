/**
 * One point of a load test: N requests of a prompt at one load level — closed loop at a concurrency
 * (a new request starts the moment one finishes) or open loop at a rate (Poisson arrivals,
 * optionally capped by a concurrency) — and its figures over the steady window only.
 *
 * Warm-up and cool-down: the figures are taken over a time window from the moment the first C
 * requests have completed (the ramp) to the last send (the drain begins), C being the concurrency
 * (for a rate: the most in flight seen); see steadyWindow for the rule and its minimum.
 *
 * An open loop never has more than a cap of requests in flight (--max-concurrency, else
 * DEFAULT_MAX_IN_FLIGHT, as vLLM's bench has --max-concurrency): an arrival beyond it waits for a
 * place, as many as the cap again may wait, and one more is dropped and counted. Without the cap a
 * rate the endpoint does not answer held every arrival open at once (50,000 sockets and runs at
 * 50,000/s: 700 MB, then killed); without the bound on waiting it would never end.
 */
import type { RunOutcome } from '../run/runOnce';
import type { ChatTransport } from '../endpoint/transport';
import type { CacheMode } from '../endpoint/serverKind';
import type { MetricsSample, MetricsSource } from '../endpoint/serverMetrics';
import { isNumber, percentileTriple, summarize, summarizeRuns } from '../metrics/summary';
import { serverEvidenceHints } from '../metrics/attribution';
import type { Objective } from '../rollout/slo';
import type { ArrivalCounts } from '../endpoint/batch';
import { executeRunJobs, type PromptRunPlan } from '../run/promptRun';
import { interArrivalSampler, arrivalText, type Arrival } from './arrivals';
import { attainment, latencyObjectives } from './attainment';
import { levelLabel, type LoadLevel, type LoadPoint, type OpenLoopCap } from './loadPointRecord';
import { cacheStates, errorsByKind, maxInFlight, phaseMedians, pointNotes, requestRows, serverView, type SentRequest } from './loadPointFigures';
import { steadyWindow } from './steadyWindow';
import { NO_METRICS_URL, noPrefixCacheCounters, pointCacheCounters, readPrefixCacheCounters, type PointCacheCounters } from './prefixCacheCounters';

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

/**
 * Requests in flight at an open-loop rate when --max-concurrency is not given. vLLM's scheduler runs
 * 256 sequences at once by default (max_num_seqs), so more in flight only queue inside the server;
 * each holds a socket and its stream on this side: 256 keeps the client well under 300 MB (bench/load.ts).
 */
export const DEFAULT_MAX_IN_FLIGHT = 256;

/** One load point: the requests sent at the level (stage 1), then its figures over the steady window (stage 2). */
export async function runLoadPoint(level: LoadLevel, options: LoadPointOptions): Promise<LoadPoint> {
  const arrival: Arrival = options.arrival ?? { kind: 'poisson', burstiness: 1 };
  const sent = await sendPoint(level, arrival, options);
  return pointFigures(level, arrival, options, sent);
}

interface SentPoint {
  runs: SentRequest[];
  dispatchDelays: number[];
  counters: PointCacheCounters;
  serverSamples: MetricsSample[];
  arrivals?: ArrivalCounts;
}

/** Stage 1: every request at the level (closed or open loop), with the prefix-cache counters read around them. */
async function sendPoint(level: LoadLevel, arrival: Arrival, options: LoadPointOptions): Promise<SentPoint> {
  const jobs = Array.from({ length: options.requests }, (_, i) => ({ plan: options.plans[i % options.plans.length]!, testCase: i % options.plans.length }));
  const concurrency = level.kind === 'concurrency' ? level.concurrency : openLoopCap(level);
  const dispatchDelays: number[] = [];
  let arrivals: ArrivalCounts | undefined;
  const scheduledOf = new Map<number, number>();
  // Through Prometheus both readings wait for a scrape after the moment they stand for (nothing of the previous point, all of this one).
  const countersBefore = options.prefixCacheSource ? await readPrefixCacheCounters(options.prefixCacheSource, { notBeforeMs: Date.now(), ...(options.signal ? { signal: options.signal } : {}) }) : undefined;
  const executed = await executeRunJobs(options.transport, jobs, {
    concurrency, warmup: 0, ...(options.metricsSource ? { metricsSource: options.metricsSource } : {}), timeoutMs: options.timeoutMs, cache: options.cache,
    ...(level.kind === 'rate' ? { onDispatchDelay: (i: number, delay: number, scheduled: number) => (dispatchDelays.push(delay), scheduledOf.set(i, scheduled)) } : {}),
    ...(level.kind === 'rate' ? { ratePerSec: level.ratePerSec, interArrivalMs: interArrivalSampler(arrival, level.ratePerSec, options.random ?? Math.random), maxWaiting: concurrency, onArrivals: (counts: ArrivalCounts) => (arrivals = counts) } : {}),
    keep: 'figures',
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
    .map((outcome, i) => ({ record: outcome.record, start: executed.startedAt[i]!, scheduled: scheduledOf.get(executed.jobOf[i]!) }))
    .filter((r) => r.record.error?.kind !== 'cancelled')
    .sort((a, b) => a.start - b.start);
  return { runs, dispatchDelays, counters, serverSamples: executed.serverMetrics?.samples ?? [], ...(arrivals ? { arrivals } : {}) };
}

/** The cap on requests in flight at a rate: the one given, else the default. */
function openLoopCap(level: Extract<LoadLevel, { kind: 'rate' }>): number {
  return Number.isFinite(level.maxConcurrency) ? level.maxConcurrency : DEFAULT_MAX_IN_FLIGHT;
}

/** What the cap did to the arrivals: how many waited for a place, how many were dropped. */
function inFlightCapOf(level: Extract<LoadLevel, { kind: 'rate' }>, counts: ArrivalCounts | undefined): OpenLoopCap {
  const c = counts ?? { arrived: 0, waited: 0, dropped: 0, unsent: 0, peakInFlight: 0, cap: openLoopCap(level) };
  return { cap: c.cap, source: Number.isFinite(level.maxConcurrency) ? '--max-concurrency' : 'default', reached: c.peakInFlight >= c.cap, maxWaiting: c.cap, arrived: c.arrived, waited: c.waited, dropped: c.dropped, unsent: c.unsent };
}

/** Stage 2: the point's figures over its steady window, every request kept so each can be recomputed. */
function pointFigures(level: LoadLevel, arrival: Arrival, options: LoadPointOptions, { runs, dispatchDelays, counters, serverSamples, arrivals }: SentPoint): LoadPoint {
  const inFlightCap = level.kind === 'rate' ? inFlightCapOf(level, arrivals) : null;
  const inFlight = level.kind === 'concurrency' ? level.concurrency : maxInFlight(runs);
  const limits = latencyObjectives(options.objectives);
  const { steady, counted, windowStart, windowEnd, how, requestsPerSec, outputTokensPerSec, goodput } = steadyWindow(runs, inFlight, limits);
  const records = counted.map((r) => r.record);
  const ok = records.filter((r) => r.ok);
  const cache = cacheStates(records);
  const failed = runs.filter((r) => !r.record.ok);
  const inWindow = serverSamples.filter((m) => m.t >= windowStart && m.t <= windowEnd);
  return {
    level,
    label: levelLabel(level),
    sent: runs.length,
    failed: failed.length,
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
    attainment: attainment(records, options.objectives, options.target, inFlightCap?.dropped ?? 0),
    goodput,
    errors: errorsByKind(failed.map((r) => r.record)),
    dispatchDelayMs: level.kind === 'rate' ? percentileTriple(dispatchDelays) : null,
    server: serverView(inWindow),
    requests: requestRows(runs, new Set(counted), limits),
    notes: [...pointNotes(level, runs.length, failed.length, requestsPerSec, cache.warm, counters), ...(inFlightCap && inFlightCap.dropped > 0 ? [droppedNote(inFlightCap)] : [])],
    inFlightCap,
    cancelled: options.signal?.aborted === true,
    bound: {
      requests: options.requests,
      durationS: options.durationMs !== undefined ? options.durationMs / 1000 : null,
      // At a rate the bound counts arrivals, dropped ones too.
      endedBy: options.signal?.aborted === true ? 'cancelled' : (inFlightCap?.arrived ?? runs.length) >= options.requests ? 'requests' : 'duration',
    },
    arrival: level.kind === 'rate' ? arrivalText(arrival) : null,
    simulated: runs.some((r) => r.record.simulated === true),
    phases: phaseMedians(records),
    hints: serverEvidenceHints(summarizeRuns(records), { records, samples: inWindow }),
  };
}

/** Dropped arrivals were never sent: the figures are of the requests that were, at a lower rate than asked. */
function droppedNote(cap: OpenLoopCap): string {
  return `${cap.dropped.toLocaleString('en-US')} of ${cap.arrived.toLocaleString('en-US')} arrivals were dropped, never sent (${cap.cap} in flight and ${cap.maxWaiting} waiting already): the endpoint did not keep up with this rate; the latency figures are of the requests sent, and SLO attainment counts the dropped arrivals as misses`;
}
