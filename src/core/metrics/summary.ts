/**
 * The one run summary (percentiles from stats/percentile). Percentiles are honest about sample size:
 * p-th percentile needs at least 1/(1−p) samples (p90: 10, p99: 100, p99.9: 1000); below that it
 * would only restate the maximum, so it is reported as null and listed in `tooFewFor`.
 */
import type { ErrorKind } from '../endpoint/types';
import { medianOf, percentile } from '../stats/percentile';
import { decodeTokensPerSec, type PhaseSource, type RunRecord } from './runRecord';

export interface MetricSummary {
  n: number;
  mean: number | null;
  min: number | null;
  max: number | null;
  p50: number | null;
  p90: number | null;
  p99: number | null;
  p999: number | null;
  /** Percentiles left out because n cannot support them. */
  tooFewFor: PercentileName[];
}

/** TTFT = queue + transfer + prefill; decode after the first token (medians, ms). */
export interface PhaseSummary {
  n: number;
  queueMs: number | null;
  prefillMs: number;
  decodeMs: number | null;
  sources: PhaseSource[];
}

export type PercentileName = 'p50' | 'p90' | 'p99' | 'p999';
const PERCENTILES: [PercentileName, number][] = [['p50', 0.5], ['p90', 0.9], ['p99', 0.99], ['p999', 0.999]];

export interface RunSummary {
  runs: number;
  ok: number;
  ttftMs: MetricSummary;
  e2eMs: MetricSummary;
  tpotMs: MetricSummary;
  /** Output tokens / E2E (the whole request, TTFT included). */
  outputTokensPerSec: MetricSummary;
  /** 1000 / TPOT: the rate after the first token (vLLM's decode rate). */
  decodeTokensPerSec: MetricSummary;
  errors: Partial<Record<ErrorKind, number>>;
  /** Runs by prefix-cache state; latencies above are over the cold and unknown ones (warm runs: summarizeWarmRuns). */
  cache: { cold: number; warm: number; unknown: number };
  /** Medians of the server-reported phases over the measured runs that have them. */
  phases?: PhaseSummary | null;
  /** A prompt with a retrieval step: retrieval → TTFT → decode, per step and over the chain (chainSummary). */
  chain?: ChainSummary;
}

/** Smallest n for which the p-th percentile is reported. */
export function minSamplesFor(p: number): number {
  return p <= 0.5 ? 1 : Math.ceil(1 / (1 - p) - 1e-9);
}

export function summarize(values: readonly number[]): MetricSummary {
  const sorted = values.filter((v) => Number.isFinite(v)).sort((a, b) => a - b);
  const n = sorted.length;
  const summary: MetricSummary = { n, mean: null, min: null, max: null, p50: null, p90: null, p99: null, p999: null, tooFewFor: [] };
  if (n > 0) {
    summary.mean = sorted.reduce((a, b) => a + b, 0) / n;
    summary.min = sorted[0]!;
    summary.max = sorted[n - 1]!;
  }
  for (const [name, p] of PERCENTILES) {
    if (n >= minSamplesFor(p)) summary[name] = percentile(sorted, p);
    else summary.tooFewFor.push(name);
  }
  return summary;
}

/**
 * Latency metrics over successful runs only (a partial run has no E2E); errors counted by kind.
 * Runs the server served partly from its prefix cache are never mixed in: `summarizeRuns` covers
 * cold (and unknown) runs, `summarizeWarmRuns` the warm ones.
 */
/** p50, p90, p99 and n: the figures a comparison and a load point show per metric. */
export interface PercentileTriple {
  p50: number | null;
  p90: number | null;
  p99: number | null;
  n: number;
}

/** The triple of the finite values (nulls, as a run without a first token gives, left out). */
export function percentileTriple(values: readonly (number | null)[]): PercentileTriple {
  const s = summarize(values.filter(isNumber));
  return { p50: s.p50, p90: s.p90, p99: s.p99, n: s.n };
}

export function summarizeRuns(runs: readonly RunRecord[]): RunSummary {
  return summarizeSome(runs, (r) => r.cache !== 'warm');
}

export function summarizeWarmRuns(runs: readonly RunRecord[]): RunSummary | null {
  return runs.some((r) => r.cache === 'warm') ? summarizeSome(runs, (r) => r.cache === 'warm') : null;
}

function summarizeSome(runs: readonly RunRecord[], measured: (run: RunRecord) => boolean): RunSummary {
  // A run that shared the server with an earlier run's leftover work measured that work too: not counted.
  const ok = runs.filter((r) => r.ok && measured(r) && !r.overlappedLeftover);
  const okRuns = runs.filter((r) => r.ok).length;
  const cache = { cold: 0, warm: 0, unknown: 0 };
  for (const run of runs) cache[run.cache ?? 'unknown']++;
  const errors: Partial<Record<ErrorKind, number>> = {};
  for (const run of runs) if (run.error) errors[run.error.kind] = (errors[run.error.kind] ?? 0) + 1;
  return {
    runs: runs.length,
    ok: okRuns,
    ttftMs: summarize(ok.map((r) => r.ttftMs).filter(isNumber)),
    e2eMs: summarize(ok.map((r) => r.e2eMs).filter(isNumber)),
    tpotMs: summarize(ok.map((r) => r.tpotMs).filter(isNumber)),
    outputTokensPerSec: summarize(ok.map(outputTokensPerSec).filter(isNumber)),
    decodeTokensPerSec: summarize(ok.map(decodeTokensPerSec).filter(isNumber)),
    errors,
    cache,
    phases: phaseSummary(ok),
    ...chainOf(runs.filter((r) => measured(r) && !r.overlappedLeftover)),
  };
}

function chainOf(runs: readonly RunRecord[]): { chain?: ChainSummary } {
  const chain = chainSummary(runs);
  return chain ? { chain } : {};
}

function phaseSummary(runs: readonly RunRecord[]): PhaseSummary | null {
  const phased = runs.filter((r) => r.phases);
  if (phased.length === 0) return null;
  const median = (values: (number | null)[]): number | null => {
    const known = values.filter(isNumber);
    return known.length > 0 ? medianOf(known) : null;
  };
  return {
    n: phased.length,
    queueMs: median(phased.map((r) => r.phases!.queueMs)),
    prefillMs: medianOf(phased.map((r) => r.phases!.prefillMs)),
    decodeMs: median(phased.map((r) => r.phases!.decodeMs)),
    sources: [...new Set(phased.map((r) => r.phases!.source))],
  };
}

/** Output tokens over E2E, per run. */
export function outputTokensPerSec(run: RunRecord): number | null {
  if (run.outputTokens === null || run.e2eMs === null || run.e2eMs <= 0) return null;
  return run.outputTokens / (run.e2eMs / 1000);
}

export function isNumber(value: number | null): value is number {
  return value !== null;
}

/**
 * The RAG chain of a prompt with a retrieval step (issue 25, "measure the chain"): per step and over
 * the whole chain (retrieval + E2E of the same run), percentiles as every other metric.
 */
export interface ChainSummary {
  /** Runs whose retrieval step ran (failed ones included). */
  runs: number;
  retrievalMs: MetricSummary;
  ttftMs: MetricSummary;
  /** E2E − TTFT. */
  decodeMs: MetricSummary;
  /** retrieval + E2E, per run. */
  chainMs: MetricSummary;
}

/** Over the runs that retrieved and then answered; null when the prompt has no retrieval step. */
export function chainSummary(runs: readonly RunRecord[]): ChainSummary | null {
  const retrieving = runs.filter((r) => r.retrievalMs !== undefined);
  if (retrieving.length === 0) return null;
  const whole = retrieving.filter((r) => r.ok && r.retrievalMs != null && r.ttftMs !== null && r.e2eMs !== null);
  return {
    runs: retrieving.length,
    retrievalMs: summarize(retrieving.map((r) => r.retrievalMs).filter((v): v is number => typeof v === 'number')),
    ttftMs: summarize(whole.map((r) => r.ttftMs!)),
    decodeMs: summarize(whole.map((r) => r.e2eMs! - r.ttftMs!)),
    chainMs: summarize(whole.map((r) => r.retrievalMs! + r.e2eMs!)),
  };
}
