/**
 * Messages between the comparison panel (webview) and the extension host: one typed definition
 * each, validated on receipt on both sides. Imports nothing from vscode or node.
 */
import type { ComparisonView } from '../core/compare/view';
import type { RevisionChoice } from '../core/compare/panelRevisions';

export type { RevisionChoice };

/** Whose tests (scenario, SLOs, test cases, retrieval step) judge the change: the base's unless the user picks the head's. */
export type JudgeWith = 'base' | 'head';
export const JUDGE_WITH: readonly JudgeWith[] = ['base', 'head'];

function isJudgeWith(value: unknown): value is JudgeWith {
  return (JUDGE_WITH as readonly unknown[]).includes(value);
}

export type HostToWebview =
  /** `preselected`: the revisions ticked at first; `judgeWith`: the policy chosen at first (the command's argument). */
  | { type: 'history'; file: string; prompt: string; revisions: RevisionChoice[]; notice?: string; preselected?: string[]; judgeWith?: JudgeWith }
  /** `running`: run until decided — the decision so far after the last batch, and the runs spent. */
  | { type: 'progress'; done: number; total: number; message: string; running?: { batch: number; runsPerCase: number; runsSpent: number; decision: string | null; reason: string } }
  | { type: 'result'; result: ComparisonView }
  | { type: 'error'; message: string };

export type WebviewToHost =
  | { type: 'ready' }
  /**
   * `capacity`: also search base's and head's capacity under the SLOs (the batch scenario gates on it).
   * `untilDecided`: start with `runs` per test case and add runs in batches until decided, at most `maxRuns`.
   * `policy`: whose tests judge the change (the base's when absent).
   */
  | { type: 'compare'; revs: string[]; runs: number; fresh: boolean; capacity?: boolean; untilDecided?: { maxRuns: number }; policy?: JudgeWith }
  | { type: 'cancel' };

export const MAX_PANEL_RUNS = 1000;
const REV = /^(working|buffer|[0-9a-f]{7,64})$/;

export function isWebviewToHost(value: unknown): value is WebviewToHost {
  const v = value as { type?: unknown; revs?: unknown; runs?: unknown; fresh?: unknown; capacity?: unknown; untilDecided?: { maxRuns?: unknown }; policy?: unknown } | null;
  if (typeof v !== 'object' || v === null) return false;
  if (v.type === 'ready' || v.type === 'cancel') return true;
  return (
    v.type === 'compare' &&
    Array.isArray(v.revs) && v.revs.length >= 2 && v.revs.length <= 100 && v.revs.every((r) => typeof r === 'string' && REV.test(r)) &&
    Number.isInteger(v.runs) && (v.runs as number) >= 1 && (v.runs as number) <= MAX_PANEL_RUNS &&
    typeof v.fresh === 'boolean' &&
    (v.capacity === undefined || typeof v.capacity === 'boolean') &&
    (v.policy === undefined || isJudgeWith(v.policy)) &&
    (v.untilDecided === undefined || (typeof v.untilDecided === 'object' && v.untilDecided !== null && Number.isInteger(v.untilDecided.maxRuns) && (v.untilDecided.maxRuns as number) >= 1 && (v.untilDecided.maxRuns as number) <= MAX_PANEL_RUNS))
  );
}

export function isHostToWebview(value: unknown): value is HostToWebview {
  const v = value as { type?: unknown; revisions?: unknown; preselected?: unknown; judgeWith?: unknown; done?: unknown; total?: unknown; message?: unknown; result?: unknown; running?: { runsSpent?: unknown; runsPerCase?: unknown; batch?: unknown; reason?: unknown } } | null;
  if (typeof v !== 'object' || v === null) return false;
  switch (v.type) {
    case 'history':
      return (
        Array.isArray(v.revisions) && v.revisions.every((r) => typeof (r as RevisionChoice)?.rev === 'string' && typeof (r as RevisionChoice)?.label === 'string') &&
        (v.preselected === undefined || (Array.isArray(v.preselected) && v.preselected.every((r) => typeof r === 'string'))) &&
        (v.judgeWith === undefined || isJudgeWith(v.judgeWith))
      );
    case 'progress':
      return typeof v.done === 'number' && typeof v.total === 'number' && typeof v.message === 'string' && (v.running === undefined || (typeof v.running === 'object' && v.running !== null && typeof v.running.runsSpent === 'number' && typeof v.running.runsPerCase === 'number' && typeof v.running.batch === 'number' && typeof v.running.reason === 'string'));
    case 'result':
      return isComparisonView(v.result);
    case 'error':
      return typeof v.message === 'string';
    default:
      return false;
  }
}

export function isComparisonView(value: unknown): value is ComparisonView {
  const v = value as Partial<ComparisonView> | null;
  return (
    typeof v === 'object' && v !== null && Array.isArray(v.revisions) && Array.isArray(v.verdicts) && Array.isArray(v.cases) && typeof v.prompt === 'string' && typeof v.evidence?.sufficient === 'boolean' && Array.isArray(v.evidence.reasons) &&
    typeof v.policy?.scenario === 'string' && Array.isArray(v.policy.slo) && Array.isArray(v.policy.changes) &&
    v.revisions.every((r) => Array.isArray(r?.perCase) && r.perCase.every((c) => Array.isArray(c?.runs))) &&
    (v.rollout === null || (typeof v.rollout?.decision === 'string' && Array.isArray(v.rollout.reasons))) &&
    (v.timeline === null || (Array.isArray(v.timeline?.runs) && Array.isArray(v.timeline.server)))
  );
}
