/**
 * Run until decided in words — each batch's decision with the runs spent, and the summary — shared by
 * the CLI, the panel and the report (no Node imports: the webview bundles it).
 */
import type { RolloutDecisionKind } from '../rollout/decision';

export interface UntilDecidedProgress {
  batch: number;
  runsPerCase: number;
  /** Runs made so far, over every revision and test case (stored runs reused are not spent). */
  runsSpent: number;
  decision: RolloutDecisionKind | null;
  /** The first reason of the decision. */
  reason: string;
}

export interface UntilDecidedSummary {
  batches: number;
  runsPerCase: number;
  runsSpent: number;
  maxRunsPerCase: number;
  stoppedBy: 'decided' | 'cap' | 'cancelled' | 'failing';
}


const HEADLINES: Record<RolloutDecisionKind, string> = { ship: 'ship', hold: 'hold', insufficient: 'insufficient evidence', 'no-change': 'no change' };

/** `batch 3: 23 runs per test case (92 runs spent) — insufficient evidence: SLO …`: the running decision. */
export function batchLine(p: UntilDecidedProgress): string {
  return `  batch ${p.batch}: ${p.runsPerCase} runs per test case (${p.runsSpent} runs spent) — ${p.decision ? HEADLINES[p.decision] : 'no decision'}${p.reason ? `: ${p.reason}` : ''}`;
}

/** What run-until-decided did, in one line: the runs it took and why it stopped. */
export function untilDecidedLine(s: UntilDecidedSummary, decision: RolloutDecisionKind): string {
  const spent = `${s.runsPerCase} runs per test case, ${s.runsSpent} runs spent in ${s.batches} batch${s.batches === 1 ? '' : 'es'}`;
  const why =
    s.stoppedBy === 'decided' ? `decided (${HEADLINES[decision]})`
    : s.stoppedBy === 'cap' ? `not decided within the cap of ${s.maxRunsPerCase} runs per test case (--max-runs)`
    : s.stoppedBy === 'failing' ? 'stopped: every run of a revision failed, more runs would not decide it'
    : 'cancelled: the decision is the one the runs measured so far support';
  return `Run until decided: ${why} after ${spent}; anytime-valid statistics (confidence sequences), so looking after every batch does not inflate the error rates.`;
}
