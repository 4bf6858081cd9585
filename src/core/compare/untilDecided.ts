/**
 * Run until decided: a comparison that adds runs in batches until its decision is ship, hold or no
 * change — or the cap on runs is reached, or it is cancelled. After every batch the decision is taken
 * again with anytime-valid statistics (SLOs with confidence sequences, regressions with sequential
 * paired tests: stats/confidenceSequence.ts), so looking after every batch does not make a wrong
 * decision more likely. A cancel keeps what was measured: the decision is the one those runs support.
 */
import { concludeComparison, startComparison, type CompareOptions, type ComparisonResult } from './compare';
import { runMissing } from './compareExecute';
import type { RolloutDecisionKind } from '../rollout/decision';
import type { UntilDecidedProgress, UntilDecidedSummary } from './untilDecidedText';

export type { UntilDecidedProgress, UntilDecidedSummary } from './untilDecidedText';
export { batchLine, untilDecidedLine } from './untilDecidedText';

export interface UntilDecidedOptions {
  /** At most this many runs per test case and revision (the cap). */
  maxRunsPerCase: number;
  /** After every batch: the decision so far and the runs spent. */
  onBatch?: (progress: UntilDecidedProgress) => void;
}

/** The default cap, per test case and revision. */
export const DEFAULT_MAX_RUNS_PER_CASE = 200;
const MIN_BATCH = 5;
const DECIDED: ReadonlySet<RolloutDecisionKind> = new Set(['ship', 'hold', 'no-change']);

export async function compareUntilDecided(options: CompareOptions, until: UntilDecidedOptions): Promise<ComparisonResult> {
  const session = await startComparison(options);
  const cells = session.plan.cells;
  const cases = Math.max(1, options.gate.suite.cases.length);
  const timelines: { offset: number; timeline: NonNullable<ComparisonResult['timeline']> }[] = [];
  const clockStart = performance.now();
  let target = Math.min(options.runsPerCase, until.maxRunsPerCase);
  for (let batch = 1; ; batch++) {
    const offset = performance.now() - clockStart;
    // Runs this batch should add (none when stored runs already reach the target: the decision is taken on them).
    const wanted = cells.reduce((sum, c) => sum + Math.max(0, target - c.reused.length - c.fresh.length), 0);
    const timeline = await runMissing(options, cells, session.judge, target);
    if (timeline) timelines.push({ offset, timeline });
    const result = await concludeComparison(options, session, mergeTimelines(timelines), 'anytime');
    const runsSpent = cells.reduce((sum, c) => sum + c.fresh.length, 0);
    const decision = result.rollout?.decision ?? null;
    until.onBatch?.({ batch, runsPerCase: result.runsPerCase, runsSpent, decision, reason: result.rollout?.reasons[0] ?? result.evidence.reasons[0] ?? '' });
    const stoppedBy: UntilDecidedSummary['stoppedBy'] | undefined =
      // A judge that is not trusted keeps a ship from being said however many runs are added.
      decision === null || DECIDED.has(decision) || result.heldByJudgeTrust ? 'decided'
      : options.signal?.aborted ? 'cancelled'
      : result.revisions.some((r) => r.runsNew > 0 && r.failedRuns === r.runsNew + r.runsReused) ? 'failing'
      : target >= until.maxRunsPerCase || cells.length === 0 || (wanted > 0 && !timeline) ? 'cap'
      : undefined;
    if (stoppedBy) return { ...result, untilDecided: { batches: batch, runsPerCase: result.runsPerCase, runsSpent, maxRunsPerCase: until.maxRunsPerCase, stoppedBy } };
    target = nextTarget(result, target, cases, until.maxRunsPerCase);
  }
}

/**
 * Runs per case for the next batch: half again as many, or what the head's unsettled SLOs suggest
 * (their "about N runs") when that is more — at least 5 more and at most twice as many. The
 * statistics allow any such rule; this one keeps batches near what is still needed.
 */
function nextTarget(result: ComparisonResult, target: number, cases: number, cap: number): number {
  const suggested = (result.rollout?.slo ?? []).map((s) => (s.runsNeeded ? Math.ceil(s.runsNeeded.runs / cases) : 0));
  return Math.min(cap, Math.max(target + MIN_BATCH, Math.min(2 * target, Math.max(Math.ceil(target * 1.5), ...suggested))));
}

/** The batches' timelines on one clock: each batch's times shifted by when it started. */
function mergeTimelines(parts: readonly { offset: number; timeline: NonNullable<ComparisonResult['timeline']> }[]): ComparisonResult['timeline'] {
  if (parts.length === 0) return null;
  return {
    serverKind: parts[0]!.timeline.serverKind,
    runs: parts.flatMap(({ offset, timeline }) => timeline.runs.map((r) => ({ ...r, t: r.t + offset }))),
    serverMetrics: parts.flatMap(({ offset, timeline }) => timeline.serverMetrics.map((m) => ({ ...m, t: m.t + offset }))),
    metricsGaps: parts.reduce((sum, p) => sum + p.timeline.metricsGaps, 0),
  };
}
