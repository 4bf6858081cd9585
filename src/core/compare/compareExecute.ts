/**
 * Stage 2 of a comparison: the runs each revision × case still needs, shuffled across revisions and
 * cases into one batch (one time window, one load), and their timeline on the batch's clock.
 */
import { checkRun, hasClaimsChecks } from '../adherence/runChecks';
import type { Judge } from '../adherence/score';
import type { TestCase } from '../adherence/testCases';
import type { RunOutcome } from '../run/runOnce';
import type { RunGrounded } from '../metrics/runRecord';
import { executeRunJobs, type RunJob } from '../run/promptRun';
import { scoredRunOf } from '../run/retrievalRun';
import type { MetricsSample } from '../endpoint/serverMetrics';
import type { CacheMode } from '../endpoint/serverKind';
import type { ChatTransport } from '../endpoint/transport';
import type { ResultsStore } from '../store/resultsStore';
import type { Cell } from './comparePlan';
import type { RevisionSource } from './revisionSources';

/** What executing needs of a comparison's options (CompareOptions carries all of it). */
export interface ExecuteOptions {
  revisions: readonly Pick<RevisionSource, 'rev' | 'label'>[];
  gate: { suite: { cases: readonly TestCase[] } };
  transport: ChatTransport;
  concurrency: number;
  timeoutMs: number;
  cache?: CacheMode;
  signal?: AbortSignal;
  store?: ResultsStore;
  /** Order of the interleaved fresh runs (default Math.random). */
  random?: () => number;
  onProgress?: (done: number, total: number, message: string) => void;
}

/** The fresh runs on one clock (ms from the batch's start) with the server's metrics over the same time. */
export interface Timeline {
  serverKind: string;
  runs: { t: number; revision: string; ttftMs: number | null; ok: boolean }[];
  serverMetrics: MetricsSample[];
  metricsGaps: number;
}

/** Runs every cell up to `runsPerCase` (stored, earlier and new runs together); null when none were needed. */
export async function runMissing(options: ExecuteOptions, cells: readonly Cell[], judge: Judge | undefined, runsPerCase: number): Promise<Timeline | null> {
  const jobs: { cell: Cell; job: RunJob }[] = [];
  for (const cell of cells) {
    for (let i = cell.reused.length + cell.fresh.length; i < runsPerCase; i++) jobs.push({ cell, job: { plan: cell.plan, revision: options.revisions[cell.revision]!.rev, testCase: cell.caseIndex } });
  }
  shuffle(jobs, options.random ?? Math.random);
  if (jobs.length === 0 || options.signal?.aborted) return null;
  const cases = options.gate.suite.cases;
  const executed = await executeRunJobs(options.transport, jobs.map((j) => j.job), {
    concurrency: options.concurrency, warmup: 0, timeoutMs: options.timeoutMs,
    cache: options.cache ?? 'cold',
    ...(options.signal ? { signal: options.signal } : {}),
    ...(options.store ? { store: options.store } : {}),
    onRun: (_outcome, finished, jobIndex) => {
      const { cell } = jobs[jobIndex]!;
      options.onProgress?.(finished, jobs.length, `${options.revisions[cell.revision]!.label} · ${cases[cell.caseIndex]!.description}`);
    },
    // Runs of a case judged for hallucination are stored with their verdict.
    ...(options.store && hasClaimsChecks(cases) ? { groundedOf: (outcome: RunOutcome, jobIndex: number) => groundedVerdictOf(cases[jobs[jobIndex]!.cell.caseIndex]!, outcome, judge) } : {}),
  });
  executed.outcomes.forEach((outcome, i) => {
    if (outcome.record.error?.kind === 'cancelled') return;
    jobs[executed.jobOf[i]!]!.cell.fresh.push(outcome);
  });
  return {
    serverKind: executed.serverKind,
    runs: executed.outcomes.map((outcome, i) => {
      const cell = jobs[executed.jobOf[i]!]!.cell;
      return { t: executed.startedAt[i]!, revision: options.revisions[cell.revision]!.rev, ttftMs: outcome.record.ttftMs, ok: outcome.record.ok };
    }),
    serverMetrics: executed.serverMetrics ? executed.serverMetrics.samples : [],
    metricsGaps: executed.serverMetrics?.gaps.length ?? 0,
  };
}

/** A fresh run's hallucination verdict on its case (undefined when the case has no such check or the run failed). */
async function groundedVerdictOf(testCase: TestCase, outcome: RunOutcome, judge: Judge | undefined): Promise<RunGrounded | undefined> {
  if (!hasClaimsChecks([testCase])) return undefined;
  const check = await checkRun({ cases: [testCase] }, scoredRunOf(outcome), judge);
  return check?.grounded;
}

/** Fisher–Yates, in place. */
function shuffle<T>(items: T[], random: () => number): void {
  for (let i = items.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [items[i], items[j]] = [items[j]!, items[i]!];
  }
}
