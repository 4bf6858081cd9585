/**
 * Revision comparison: chosen revisions × test cases × N repeats against one endpoint. Runs already
 * in the store under the same key (prompt content with the case's variables, endpoint, model,
 * parameters) are reused unless `fresh`; answers are scored with the judging test cases (the gate
 * policy's: the base revision's unless asked otherwise), so every revision is judged by the same
 * rules. Stages: plan (comparePlan.ts) → run the missing runs interleaved (compareExecute.ts) → assess
 * (compareAssess.ts) → decide (rollout/decision.ts); run until decided (untilDecided.ts) repeats the
 * last three in batches. Result: adherence with Wilson intervals,
 * latency percentiles, per-case matrix with each run's outcome, verdicts of each revision against
 * the first, the rollout decision and the prompt diff.
 */
import type { CacheMode } from '../endpoint/serverKind';
import { decideRollout, type RolloutDecision } from '../rollout/decision';
import { correctedCheckRates, hallucinationJudge, judgeTrustOutcomes, withJudgeTrust, type CorrectedCheckRate, type JudgeTrustOptions, type JudgeTrustOutcome } from './judgeTrustGate';
import type { RolloutPolicy } from '../rollout/scenario';
import type { Statistics } from '../rollout/sloJudgement';
import type { RunCheck } from '../adherence/runChecks';
import { retrievalDestination } from '../retrieval/retrievalStep';
import { onceEach, type Judge } from '../adherence/score';
import type { ChatTransport } from '../endpoint/transport';
import type { RunRecord } from '../metrics/runRecord';
import type { ResultsStore } from '../store/resultsStore';
import { safeUrl } from '../store/runKey';
import { assessRevision, comparisonVerdicts, judgeEvidence, type Evidence } from './compareAssess';
import { runMissing, type Timeline } from './compareExecute';
import { reusableRuns } from './reusableRuns';
import { planComparison, sendSameRequests, type ComparisonPlan } from './comparePlan';
import type { GatePolicy } from './gatePolicy';
import type { PolicyChange } from './policyChange';
import type { RevisionSource } from './revisionSources';
import { lineDiff, type DiffLine } from './lineDiff';
import { sequentialComparison } from './sequentialVerdicts';
import type { UntilDecidedSummary } from './untilDecidedText';
import { emptyResult, rolloutSide, type RevisionResult } from './revisionResult';
import { noRegression, type Verdict } from '../stats/verdicts';

export interface CompareOptions {
  file: string;
  promptName?: string;
  revisions: RevisionSource[];
  /** Scenario, SLOs and test cases that judge the change, resolved from the base revision (gatePolicy.ts). */
  gate: GatePolicy;
  runsPerCase: number;
  transport: ChatTransport;
  modelOverride?: string;
  store?: ResultsStore;
  fresh: boolean;
  timeoutMs: number;
  concurrency: number;
  /** Prompt cache during fresh runs (default cold: both revisions measured without the server's prefix cache). */
  cache?: CacheMode;
  signal?: AbortSignal;
  /** Stored runs older than this (ms) are measured again (default 24 h). */
  freshnessMs?: number;
  /** Order of the interleaved fresh runs (default Math.random); tests pass a seeded one. */
  random?: () => number;
  now?: () => number;
  judge?: Judge;
  /** With a judge: whether the decision may rest on it (judgeTrustGate.ts); without this, judged checks count as they are. */
  judgeTrust?: JudgeTrustOptions;
  onProgress?: (done: number, total: number, message: string) => void;
  /** Each run as scored (telemetry: its check becomes the exported span's evaluation events). */
  onScored?: (record: RunRecord, check: RunCheck) => void;
}

export interface ComparisonResult {
  file: string;
  prompt: string;
  endpoint: string;
  model: string;
  simulated: boolean;
  runsPerCase: number;
  cases: string[];
  suiteSource: string;
  problems: string[];
  revisions: RevisionResult[];
  verdicts: Verdict[];
  noRegression: boolean;
  /**
   * Whether the runs can carry a decision at all. A gate fails closed: when every run of a revision
   * failed (a 401, a dead endpoint), "no significant difference" is no evidence of no regression.
   */
  evidence: Evidence;
  /** Prompt diff between the first and the last revision. */
  diff?: { base: string; head: string; lines: DiffLine[] | null };
  cancelled: boolean;
  /** The scenario and SLOs the decision followed, and where they came from. */
  policy: RolloutPolicy;
  /** Which revision's policy judged the change, and what the other one changes (applied or not). */
  policyOrigin: GatePolicy['origin'];
  policyChanges: PolicyChange[];
  /** Where the judging revision's retrieval step sends its queries (origin and path), for every revision; null without one. */
  policyRetrieval: string | null;
  /** The decision for the last revision against the first; null with one revision. */
  rollout: RolloutDecision | null;
  /** Each judged check's judge, trusted or not against people's labels (asked for with a judge). */
  judgeTrust?: JudgeTrustOutcome[];
  /** Each judged check's pass rate per revision, raw and corrected for its judge's measured error. */
  correctedRates?: CorrectedCheckRate[];
  /** The decision would ship but for a judge that is not trusted: more runs cannot change it. */
  heldByJudgeTrust?: boolean;
  /** Fixed-n (the runs decided in advance) or anytime-valid (runs added until decided). */
  statistics: Statistics;
  /** Run until decided: the runs it took, the batches, and what stopped it. */
  untilDecided?: UntilDecidedSummary;
  /** The fresh runs on one clock (ms from the batch's start) with the server's metrics over the same time; null when every run was reused. */
  timeline: Timeline | null;
}

export async function compareRevisions(options: CompareOptions): Promise<ComparisonResult> {
  const session = await startComparison(options);
  // 2. The missing runs of every revision, interleaved in random order: one time window, one load.
  const timeline = await runMissing(options, session.plan.cells, session.judge, options.runsPerCase);
  return concludeComparison(options, session, timeline);
}

/** What a comparison keeps between its stages (and between the batches of run-until-decided). */
export interface ComparisonSession {
  plan: ComparisonPlan;
  judge: Judge | undefined;
  storeProblem: string | undefined;
  /** Each judged check's judge against people's labels, carded once before the runs. */
  judgeTrust?: JudgeTrustOutcome[];
}

/** Stage 1: the store's reusable runs, and every revision × case planned. */
export async function startComparison(options: CompareOptions): Promise<ComparisonSession> {
  const { stored, storeProblem } = reusableRuns(options);
  const plan = await planComparison({ file: options.file, ...(options.promptName !== undefined ? { promptName: options.promptName } : {}), ...(options.modelOverride ? { modelOverride: options.modelOverride } : {}), transport: options.transport, suite: options.gate.suite, retrieval: options.gate.retrieval, runsPerCase: options.runsPerCase, stored }, options.revisions);
  // A reused answer scored twice asks the judge once (a fresh run is scored for its stored verdict, then again in 3).
  const judge = options.judge ? onceEach(options.judge) : undefined;
  const judgeTrust = judge && options.judgeTrust ? await judgeTrustOutcomes(options.gate.suite, options.gate.labels, judge, options.judgeTrust) : undefined;
  return { plan, judge, storeProblem, ...(judgeTrust ? { judgeTrust } : {}) };
}

/** Stages 3 and 4: every run scored, the verdicts, and the decision for the last revision against the first. */
export async function concludeComparison(options: CompareOptions, session: ComparisonSession, timeline: Timeline | null, statistics: Statistics = 'fixed-n'): Promise<ComparisonResult> {
  const { suite, policy } = options.gate;
  const { plan } = session;
  const revisions = options.revisions.map((source, i) => ({ ...emptyResult(source), ...session.plan.revisions[i] }));
  let simulated = options.transport.endpoint.simulated === true;
  for (const [index, result] of revisions.entries()) {
    if (await assessRevision(result, plan.cells.filter((c) => c.revision === index), suite, session.judge, options.onScored)) simulated = true;
  }
  const base = revisions[0];
  const head = revisions[revisions.length - 1];
  const sequential = statistics === 'anytime' && base && head && head !== base ? sequentialComparison(base, head, policy.scenario) : undefined;
  const verdicts = sequential ? sequential.verdicts : comparisonVerdicts(revisions);
  // Anytime-valid statistics hold whenever the runs stop — a cancel too: what was measured counts.
  const cancelled = options.signal?.aborted === true;
  const evidence = judgeEvidence(revisions, verdicts, cancelled && statistics === 'fixed-n');
  const identical = revisions.length > 1 && sendSameRequests(plan.cells, 0, revisions.length - 1, suite.cases.length);
  // People's labels measured the judge of hallucination: the ceiling is judged on the corrected rate.
  const correction = session.judgeTrust ? hallucinationJudge(suite, session.judgeTrust) : undefined;
  const decided =
    base && head && head !== base
      ? decideRollout({ policy, base: rolloutSide(base, correction), head: rolloutSide(head, correction), verdicts, evidence, identical, cases: suite.cases.length, statistics, ...(sequential ? { changes: sequential.changes } : {}) })
      : null;
  const rollout = decided && session.judgeTrust ? withJudgeTrust(decided, session.judgeTrust) : decided;
  const first = options.revisions[0];
  const last = options.revisions[options.revisions.length - 1];
  return {
    file: options.file,
    prompt: plan.promptName,
    endpoint: safeUrl(options.transport.endpoint.baseUrl),
    model: plan.model,
    simulated,
    runsPerCase: Math.max(0, ...plan.cells.map((c) => c.reused.length + c.fresh.length)),
    cases: suite.cases.map((c) => c.description),
    suiteSource: suite.source,
    problems: session.storeProblem ? [...suite.problems, session.storeProblem] : suite.problems,
    revisions,
    verdicts,
    noRegression: noRegression(verdicts),
    evidence,
    policy,
    policyOrigin: options.gate.origin,
    policyChanges: options.gate.changes,
    policyRetrieval: options.gate.retrieval.step ? retrievalDestination(options.gate.retrieval.step.url) : null,
    rollout,
    ...(session.judgeTrust ? { judgeTrust: session.judgeTrust, correctedRates: correctedCheckRates(revisions, session.judgeTrust), heldByJudgeTrust: decided?.decision === 'ship' && rollout?.decision !== 'ship' } : {}),
    statistics,
    ...(first && last && first !== last ? { diff: { base: first.label, head: last.label, lines: lineDiff(first.text, last.text) ?? null } } : {}),
    cancelled,
    timeline,
  };
}
