/**
 * What the judge stage (compareAssess.ts) makes of one revision's runs: its scored runs per case,
 * adherence, hallucination, latency figures and the raw series the verdicts and the decision read.
 */
import type { RolloutSide } from '../rollout/decision';
import type { HallucinationJudge } from '../rollout/correctedCeiling';
import type { ChainSummary, PercentileTriple } from '../metrics/summary';
import type { RevisionSource } from './revisionSources';

/** One run as scored: its outcome, its answer (an excerpt) and each assertion's outcome and reason. */
export interface RunDetail {
  status: 'pass' | 'fail' | 'unscored';
  /** Why it was unscored. */
  reason?: string;
  answer: string;
  assertions: { label: string; outcome: 'pass' | 'fail' | 'undecided'; reason: string }[];
  /** Cases with a hallucination/faithfulness assertion: whether the run hallucinated; null when undetermined. */
  hallucinated?: boolean | null;
}

/** A test case's runs on one revision: scored counts, unscored count, and the first runs in detail. */
export interface CaseRuns {
  description: string;
  passed: number;
  /** Scored runs (passed + failed). */
  total: number;
  unscored: number;
  runs: RunDetail[];
}

export interface HallucinationRate {
  hallucinated: number;
  /** Runs whose claims were judged. */
  judged: number;
  /** Runs whose claims could not be judged (judge failed, off-format, refusal, no claims). */
  undetermined: number;
  rate: number | null;
  ci95: [number, number] | null;
}

export interface RevisionResult {
  rev: string;
  label: string;
  path: string;
  date?: string;
  author?: string;
  subject?: string;
  tokens: number | null;
  /** Over the scored runs: `total` = passed + failed; unscored runs are counted apart, with their reasons. */
  adherence: { passed: number; total: number; unscored: number; rate: number | null; ci95: [number, number] | null };
  /** Runs that hallucinated among those judged (cases with hallucination/faithfulness assertions), with a Wilson 95% interval; undetermined runs apart. Absent when no case asks. */
  hallucination?: HallucinationRate;
  /** A prompt with a retrieval step: retrieval → TTFT → decode per step and over the chain (metrics/chain.ts). */
  chain?: ChainSummary;
  /** Why runs were unscored, with how many each (a prototype-less map: reasons carry server text). */
  unscoredReasons: Record<string, number>;
  /** Each judged check (llm-rubric, llm evaluators): the runs its judge decided, and how many it passed (a prototype-less map by check name). */
  judgedChecks?: Record<string, { passed: number; judged: number }>;
  ttftMs: PercentileTriple;
  e2eMs: PercentileTriple;
  perCase: CaseRuns[];
  runsReused: number;
  runsNew: number;
  failedRuns: number;
  /** What the first failed run said, for the evidence reasons. */
  failureSample?: string;
  /** Why this revision could not be measured (no prompt at it, cancelled…). */
  error?: string;
  /** ISO time of the oldest stored run reused, when any were. */
  reusedSince?: string;
  /** Raw per-run values, for the verdicts and SLOs (not part of the CLI JSON). */
  ttftValues: number[];
  e2eValues: number[];
  tpotValues: number[];
  /** Output tokens / E2E per run. */
  tokensPerSecValues: number[];
  /** Each test case's runs in order, for paired anytime-valid tests (not part of the CLI JSON). */
  series: CaseSeries[];
}

/**
 * One test case's runs on one revision, run by run in the order they were made (null where a run has
 * no such figure: unscored, failed). Runs are only ever appended, so the i-th run of a case on base
 * and on head form a pair that later batches do not change (compare/sequentialVerdicts.ts).
 */
export interface CaseSeries {
  passed: (boolean | null)[];
  ttftMs: (number | null)[];
  e2eMs: (number | null)[];
  tokensPerSec: (number | null)[];
  hallucinated: (boolean | null)[];
}

/** A revision's result before its runs are assessed. */
export function emptyResult(revision: RevisionSource): RevisionResult {
  return {
    rev: revision.rev, label: revision.label, path: revision.path,
    ...(revision.date ? { date: revision.date } : {}), ...(revision.author ? { author: revision.author } : {}), ...(revision.subject ? { subject: revision.subject } : {}),
    tokens: null, adherence: { passed: 0, total: 0, unscored: 0, rate: null, ci95: null }, unscoredReasons: Object.create(null) as Record<string, number>, judgedChecks: Object.create(null) as Record<string, { passed: number; judged: number }>,
    ttftMs: { p50: null, p90: null, p99: null, n: 0 }, e2eMs: { p50: null, p90: null, p99: null, n: 0 },
    perCase: [], runsReused: 0, runsNew: 0, failedRuns: 0, ttftValues: [], e2eValues: [], tpotValues: [], tokensPerSecValues: [], series: [],
  };
}

/** A revision's runs as the rollout decision reads them. */
export function rolloutSide(r: RevisionResult, hallucinationJudge?: HallucinationJudge): RolloutSide {
  return { rev: r.rev, label: r.label, ttftMs: r.ttftValues, e2eMs: r.e2eValues, tpotMs: r.tpotValues, adherence: { passed: r.adherence.passed, total: r.adherence.total }, ...(r.hallucination ? { hallucination: { hallucinated: r.hallucination.hallucinated, total: r.hallucination.judged, ...(hallucinationJudge ? { judge: hallucinationJudge } : {}) } } : {}), tokensPerSec: r.tokensPerSecValues, failedRuns: r.failedRuns };
}
