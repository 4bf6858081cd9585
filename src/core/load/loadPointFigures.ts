/** The parts of a load point's figures: cache states, errors, the server's view, phases, notes, the request rows. */
import type { MetricsSample } from '../endpoint/serverMetrics';
import type { RunRecord } from '../metrics/runRecord';
import { isNumber } from '../metrics/summary';
import { medianOf } from '../stats/percentile';
import { requestAttains } from './attainment';
import type { LoadLevel, LoadPoint, LoadRequest, Spread } from './loadPointRecord';
import type { PointCacheCounters } from './prefixCacheCounters';
import type { TimedRun } from './steadyWindow';

/** A request as sent: its record, when it started on the point's clock, and (open loop) when it was due. */
export interface SentRequest {
  record: RunRecord;
  start: number;
  /** Open loop: when the request was due, on the stamps' clock (the batch's start is 0). */
  scheduled: number | undefined;
}

export function cacheStates(records: readonly RunRecord[]): { cold: number; warm: number; unknown: number } {
  const cache = { cold: 0, warm: 0, unknown: 0 };
  for (const r of records) cache[r.cache === 'warm' ? 'warm' : r.cache === 'cold' ? 'cold' : 'unknown']++;
  return cache;
}

/** Failed requests by error kind (a prototype-less map: kinds are data). */
export function errorsByKind(failed: readonly RunRecord[]): Record<string, number> {
  const errors: Record<string, number> = Object.create(null) as Record<string, number>;
  for (const r of failed) errors[r.error?.kind ?? 'error'] = (errors[r.error?.kind ?? 'error'] ?? 0) + 1;
  return errors;
}

/** Every request, in start order, with whether it met the SLOs and was inside the steady window. */
export function requestRows(runs: readonly SentRequest[], counted: ReadonlySet<TimedRun>, limits: Parameters<typeof requestAttains>[1]): LoadRequest[] {
  return runs.map((r) => ({
    startedAtMs: Math.round(r.start * 10) / 10,
    // Open loop: when the arrival process scheduled it (sent late by dispatchDelay when the client lagged).
    ...(r.scheduled !== undefined ? { scheduledAtMs: Math.round(r.scheduled * 10) / 10 } : {}),
    ttftMs: r.record.ttftMs,
    tpotMs: r.record.tpotMs,
    e2eMs: r.record.e2eMs,
    outputTokens: r.record.outputTokens,
    ok: r.record.ok,
    error: r.record.error?.kind ?? null,
    meetsSlo: requestAttains(r.record, limits),
    counted: counted.has(r),
  }));
}

/** Open-loop completions below 90% of the arrival rate: the server cannot keep up, and the point measures its backlog. */
const BACKLOG_SHARE = 0.9;

export function pointNotes(level: LoadLevel, sent: number, failed: number, requestsPerSec: number | null, warm: number, counters: PointCacheCounters): string[] {
  const notes: string[] = [];
  if (sent > 0 && failed === sent) notes.push('every request failed: the endpoint did not answer at this level');
  if (level.kind === 'rate' && requestsPerSec !== null && requestsPerSec < BACKLOG_SHARE * level.ratePerSec) {
    notes.push(`a rate above capacity: ${requestsPerSec.toFixed(2)} req/s completed of ${level.ratePerSec}/s sent, so latency here measures the backlog`);
  }
  if (warm > 0) notes.push(`${warm} requests were served partly from the server's prefix cache (warm)`);
  if (counters.warm) notes.push(`warm: the server's prefix-cache counters show a ${(counters.hitRate! * 100).toFixed(1)}% hit rate over the point (${counters.hits} of ${counters.queries} tokens), so its latency is not a cold figure`);
  return notes;
}

/** The server's running and waiting requests, KV-cache use, preemptions and GPU (when DCGM is exported) over the window's samples. */
export function serverView(inWindow: readonly MetricsSample[]): LoadPoint['server'] {
  if (inWindow.length === 0) return null;
  const spread = (pick: (s: MetricsSample) => number | undefined): Spread | null => {
    const values = inWindow.map(pick).filter((v): v is number => typeof v === 'number' && Number.isFinite(v));
    return values.length > 0 ? { max: values.reduce((m, v) => Math.max(m, v), -Infinity), mean: values.reduce((a, b) => a + b, 0) / values.length } : null;
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

export function phaseMedians(records: readonly RunRecord[]): LoadPoint['phases'] {
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

/**
 * The most requests in flight at once (a sweep over start and end events). A request that never answered (a
 * timeout, a dropped stream) held its place until its stream ended, not for no time: ten overlapping timeouts
 * are ten in flight.
 */
export function maxInFlight(runs: readonly { record: RunRecord; start: number }[]): number {
  const heldMs = (record: RunRecord): number => record.e2eMs ?? (Number.isFinite(record.streamEndMs) && record.streamEndMs > 0 ? record.streamEndMs : 0);
  const events = runs.flatMap((r) => [
    { t: r.start, d: 1 },
    { t: r.start + heldMs(r.record), d: -1 },
  ]);
  events.sort((a, b) => a.t - b.t || a.d - b.d);
  let now = 0;
  let most = 1;
  for (const e of events) most = Math.max(most, (now += e.d));
  return most;
}
