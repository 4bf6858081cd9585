/**
 * A gray release decided from trace files, as `prod --traces … --decide` decides it, for a face that has
 * no flags: the editor's *Decide Gray Release* names the versions, whose tests judge, and the range;
 * the version table is read from the base's side (baseSide.ts) and production's answers are scored with
 * its checks (scoreAndDecide.ts). Nothing is written: scores are not kept between decisions here.
 */
import type { PolicyOrigin } from '../compare/gatePolicy';
import type { ImportOptions } from '../telemetry/importOtlp';
import { AnswerSample, DEFAULT_SCORED_PER_VERSION } from '../telemetry/prodAdherence';
import type { ProdDecision, ProdDecisionKind } from '../telemetry/prodDecision';
import { prodFromTraces } from '../telemetry/prodFromTraces';
import type { ProdReport } from '../telemetry/prodReport';
import { loadFileVersions } from '../telemetry/prodVersions';
import { baseVersionTable } from './baseSide';
import { scoreAndDecide, type AdherencePlan } from './scoreAndDecide';

export interface GrayReleaseRequest {
  file: string;
  promptName: string;
  traces: readonly string[];
  /** The versions as production labels them, or their commits. */
  base: string;
  head: string;
  /** Whose tests and SLOs judge: the base's (the default) or the head's, applied deliberately. */
  policyFrom: PolicyOrigin;
  /** Where the version table is read; absent: the branch being released into. */
  registryRev?: string;
  sinceMs?: number;
  untilMs?: number;
  /** Answers scored per version (default as the CLI's `--score`). */
  scorePerVersion?: number;
  /** How trace files are opened (the editor's workspace rules). */
  open?: ImportOptions['open'];
  signal?: AbortSignal;
}

export interface GrayReleaseResult {
  decision: ProdDecision;
  report: ProdReport;
  /** What was read, left out or assumed, said. */
  notes: string[];
}

export async function decideGrayRelease(request: GrayReleaseRequest): Promise<GrayReleaseResult> {
  const { file, signal } = request;
  const call = signal ? { signal } : {};
  const window = { ...(request.sinceMs !== undefined ? { sinceMs: request.sinceMs } : {}), ...(request.untilMs !== undefined ? { untilMs: request.untilMs } : {}) };
  const cap = request.scorePerVersion ?? DEFAULT_SCORED_PER_VERSION;
  const plan: AdherencePlan = { cap, decide: { base: request.base, head: request.head, failOnRegression: false, policyFrom: request.policyFrom, ...(request.registryRev !== undefined ? { registryRev: request.registryRev } : {}) }, sample: new AnswerSample(cap, window) };
  const fileVersions = loadFileVersions(file, call);
  // Asked before the traces are read: a clone with no branch to release into is said at once.
  const versionTable = await baseVersionTable(file, request.registryRev, await fileVersions, signal);
  const report = await prodFromTraces(file, request.traces, {
    ...window,
    prompt: request.promptName,
    fileVersions,
    alsoTo: plan.sample,
    keepAnswers: cap > 0,
    compare: { base: request.base, head: request.head },
    ...(versionTable ? { versionTable } : {}),
    ...(request.open ? { open: request.open } : {}),
    ...call,
  });
  const { decision, notes } = await scoreAndDecide(file, plan, report, await fileVersions, request.promptName, signal);
  return { decision: decision!, report, notes: [...report.notes, ...notes] };
}

/** The verdict as a release manager reads it. */
export const VERDICT_WORDS: Record<ProdDecisionKind, string> = { promote: 'PROMOTE', 'roll-back': 'ROLL BACK', insufficient: 'NOT ENOUGH DATA YET' };

/** `PROMOTE a1b2c3d (against 9f8e7d6)`: the one-line verdict. */
export function verdictLine(decision: ProdDecision): string {
  return `${VERDICT_WORDS[decision.decision]} ${decision.head} (against ${decision.base})`;
}
