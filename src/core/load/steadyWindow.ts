/** The steady window of a load point: which requests its figures count, and its throughput. */
import type { RunRecord } from '../metrics/runRecord';
import { requestAttains, type latencyObjectives } from './attainment';

export interface TimedRun {
  record: RunRecord;
  /** When the request was sent (ms on the point's clock). */
  start: number;
}

/** Fewer requests than this inside the steady window give no steady rate (the whole-run rate is reported instead). */
export const MIN_STEADY_REQUESTS = 10;

/**
 * The steady window of a point's runs and its throughput and goodput. The window is a time interval:
 * from the moment the first `inFlight` requests have completed (the ramp: the server has turned over
 * once at full load) to the last send (the drain: after it fewer are in flight). The requests counted
 * are those that completed inside it, and throughput is their number over its length — so it obeys
 * Little's law (at most in-flight ÷ mean E2E) up to sampling error, however few there are. With fewer
 * than MIN_STEADY_REQUESTS completions inside, there is no steady rate: every request is counted and
 * the rate is the whole run's, completed requests over first send to last completion, as vLLM's
 * benchmark reports it (exactly within Little's bound). Goodput counts the completions that met
 * every latency limit.
 */
export function steadyWindow(runs: readonly TimedRun[], inFlight: number, limits: ReturnType<typeof latencyObjectives>, minCounted = MIN_STEADY_REQUESTS) {
  const endOf = (r: TimedRun): number | null => (r.record.e2eMs !== null ? r.start + r.record.e2eMs : null);
  const ends = runs.map(endOf).filter((e): e is number => e !== null).sort((a, b) => a - b);
  const rampOver = ends[Math.max(0, inFlight - 1)];
  const lastSend = runs.reduce((latest, r) => Math.max(latest, r.start), -Infinity);
  const inside = rampOver === undefined ? [] : runs.filter((r) => {
    const end = endOf(r) ?? r.start;
    return end > rampOver && end <= lastSend;
  });
  const steady = rampOver !== undefined && lastSend > rampOver && inside.length >= minCounted;
  const counted = steady ? inside : [...runs];
  const windowStart = steady ? rampOver : (runs[0]?.start ?? 0);
  const windowEnd = steady ? lastSend : Math.max(windowStart, ...ends);
  const seconds = (windowEnd - windowStart) / 1000;
  const completedInWindow = counted.filter((r) => r.record.ok && r.record.e2eMs !== null);
  const good = completedInWindow.filter((r) => requestAttains(r.record, limits));
  const perSec = (n: number): number | null => (seconds > 0 ? n / seconds : null);
  const tokens = (rs: readonly TimedRun[]): number => rs.reduce((s, r) => s + (r.record.outputTokens ?? 0), 0);
  const how = steady
    ? `the ${counted.length} requests that completed between the ${ordinal(inFlight)} completion (ramp over at ${inFlight} in flight) and the last send (drain begins)`
    : `too few requests for a steady rate (${inside.length} completed between the ramp and the drain; ${minCounted} needed, so give --requests ${2 * inFlight + minCounted} or more): every request counted, and the whole-run rate — completed requests over first send to last completion, as vLLM reports it`;
  return {
    steady, counted, windowStart, windowEnd, seconds, completedInWindow, good, how,
    requestsPerSec: perSec(completedInWindow.length),
    outputTokensPerSec: perSec(tokens(completedInWindow)),
    goodput: { requestsPerSec: perSec(good.length), outputTokensPerSec: perSec(tokens(good)) },
  };
}

function ordinal(n: number): string {
  const tens = n % 100;
  const suffix = tens >= 11 && tens <= 13 ? 'th' : n % 10 === 1 ? 'st' : n % 10 === 2 ? 'nd' : n % 10 === 3 ? 'rd' : 'th';
  return `${n}${suffix}`;
}

