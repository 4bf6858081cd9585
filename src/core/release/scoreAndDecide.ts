/**
 * Production adherence per version and the gray-release decision, for every face: each version's sampled
 * answers scored with the checks every answer can be held to, then — deciding — promote, roll back or
 * insufficient under the base's side's policy and checks (baseSide.ts: the change cannot relax its own
 * gate); not deciding, the tests file on disk. The CLI's `prod` builds the plan from its flags, the
 * editor's *Decide Gray Release* from its pickers (grayRelease.ts).
 */
import { resolve } from 'node:path';
import { loadTestSuite, type TestSuite } from '../adherence/testCases';
import type { Judge } from '../adherence/score';
import { detectFormat } from '../formats/detect';
import { decodePromptBytes } from '../formats/decode';
import { promptsOf } from '../formats/promptFile';
import { readPromptFile } from '../files/workspaceFile';
import type { RolloutPolicy } from '../rollout/scenario';
import { AnswerSample, referenceFreeChecks, scoreAnswers, type ProdAdherence } from '../telemetry/prodAdherence';
import { VerdictStore } from '../store/verdictStore';
import { decideProduction, type ProdDecision } from '../telemetry/prodDecision';
import type { ProdReport } from '../telemetry/prodReport';
import { findVersion } from '../telemetry/prodFromTraces';
import type { FileVersions } from '../telemetry/prodVersions';
import { decisionGate, type DecideFlags } from './baseSide';
import { hallucinationJudge, judgeTrustOutcomes, type JudgeTrustOutcome } from '../compare/judgeTrustGate';
import type { LabelsAt } from '../compare/revisionDeclarations';
import type { TrustBar } from '../stats/judgeTrust';
import { judgeVerdictStoreBeside } from '../store/verdictStore';

export interface AdherencePlan {
  /** Answers scored per version (0: none). */
  cap: number;
  judge?: Judge;
  /** Which judge (model and endpoint): part of a stored score's key, so another judge's verdicts are not reused. */
  judgeId?: string;
  decide?: DecideFlags;
  sample: AnswerSample;
  /** Where scores are kept between runs; absent: not kept. */
  storePath?: string;
  /** Deciding with a judge: the trust bar and the checks whose judge the user accepts untrusted (judgeTrustGate.ts). */
  judgeTrust?: { bar: TrustBar; accepted: ReadonlySet<string> };
}

/** Deciding, the base's side's policy and checks (or why they cannot be read); else the tests file on disk and no policy. */
async function checksSource(file: string, plan: AdherencePlan, report: ProdReport, fileVersions: FileVersions, promptName: string | undefined, signal?: AbortSignal): Promise<{ suite: TestSuite; policy?: RolloutPolicy; notes: string[]; unreadable?: string; labels?: LabelsAt }> {
  const gate = plan.decide ? await decisionGate(file, plan.decide, report, fileVersions, promptName, signal) : undefined;
  if (gate && !('unreadable' in gate)) return gate;
  return { ...(await workingSuite(file, promptName)), notes: [], ...(gate ? { unreadable: gate.unreadable } : {}) };
}

async function workingSuite(file: string, promptName: string | undefined): Promise<{ suite: TestSuite }> {
  const parsed = await promptsOf(file, promptName);
  if ('error' in parsed) return { suite: { cases: [], source: file, problems: [parsed.error] } };
  const decoded = decodePromptBytes(await readPromptFile(file));
  const text = decoded.ok ? decoded.text : '';
  return { suite: loadTestSuite(resolve(file), text, detectFormat(file, text), parsed.prompts[0]!) };
}

/**
 * Whether answers are worth reading: deciding, or the tests file on disk has checks for every answer.
 * (Reading them holds each call until its trace's log records are in: not paid for nothing.)
 */
export async function wantsAnswers(file: string, plan: AdherencePlan, promptName: string | undefined): Promise<boolean> {
  if (plan.cap === 0) return false;
  if (plan.decide) return true;
  const { suite } = await workingSuite(file, promptName);
  return (suite.everyAnswer?.length ?? 0) > 0;
}

/** A promotion that rests on an untrusted, unaccepted judge is not said: insufficient, with the judge first. Every judge is stated. */
function withJudgeTrustProduction(decision: ProdDecision, outcomes: readonly JudgeTrustOutcome[]): ProdDecision {
  let d = decision;
  for (const o of outcomes) {
    if (!o.trusted && !o.accepted && d.decision === 'promote') d = { ...d, decision: 'insufficient', reasons: [o.text, ...d.reasons, 'Promote means every gating criterion is met: not yet shown.'] };
    else d = { ...d, reasons: [...d.reasons, o.text] };
  }
  return d;
}

/** Scores each version's sampled answers into the report (`versions[].adherence`), and decides when asked. */
export async function scoreAndDecide(file: string, plan: AdherencePlan, report: ProdReport, fileVersions: FileVersions, promptName: string | undefined, signal?: AbortSignal): Promise<{ decision?: ProdDecision; notes: string[] }> {
  const { suite, policy, notes: gateNotes, unreadable, labels } = await checksSource(file, plan, report, fileVersions, promptName, signal);
  const notes: string[] = [];
  const { checks, leftOut } = referenceFreeChecks(suite, plan.judge !== undefined);
  if (leftOut.length) notes.push(`production adherence leaves out ${leftOut.join(', ')}.`);
  const noChecks = checks.length === 0 ? `${suite.source} has no check every answer can be held to (defaultTest: assert: contains, regex, is-json, json-schema, llm-rubric …)` : undefined;
  if (plan.cap > 0 && !noChecks) {
    const store = plan.storePath ? new VerdictStore(plan.storePath) : undefined;
    if (store?.problem) notes.push(store.problem);
    for (const v of report.versions) {
      const adherence: ProdAdherence = await scoreAnswers(plan.sample.answersOf(v.promptName, v.version), checks, { ...(plan.judge ? { judge: plan.judge, judgeId: plan.judgeId ?? '' } : {}), ...(store ? { store } : {}) });
      v.adherence = adherence;
    }
    const notStored = store?.saveOrSay();
    if (notStored) notes.push(`production scores were not stored: ${notStored}`);
    if (report.versions.length > 0 && report.versions.every((v) => v.adherence!.withAnswer === 0)) notes.push('no answer was captured on these spans: production adherence needs the output recorded (OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT=true, or the library\'s own switch).');
  } else if (plan.cap > 0 && plan.decide && noChecks) notes.push(`${noChecks}: adherence does not gate this decision.`);
  if (!plan.decide) return { notes };
  const base = findVersion(report.versions, plan.decide.base);
  const head = findVersion(report.versions, plan.decide.head);
  const registry = report.registry ? { registry: report.registry } : {};
  if (!base || !head || !report.comparison || !policy) {
    const why = !base || !head ? `version ${!base ? plan.decide.base : plan.decide.head} served no request of this prompt in the source` : !policy ? (unreadable ?? `version ${plan.decide.base}'s policy cannot be read`) : 'the two versions cannot be compared';
    return { notes, decision: { decision: 'insufficient', base: plan.decide.base, head: plan.decide.head, matching: null, reasons: [why, 'A gate fails closed: no decision without evidence.'], ...registry } };
  }
  notes.push(...gateNotes);
  // Answers a judge scored carry the decision only when people's labels (the base's side's) show the judge trusted.
  let outcomes: JudgeTrustOutcome[] | undefined;
  if (plan.judge && plan.judgeTrust && plan.cap > 0 && !noChecks) {
    for (const problem of labels?.problems ?? []) notes.push(problem);
    const store = plan.storePath ? judgeVerdictStoreBeside(plan.storePath) : undefined;
    outcomes = await judgeTrustOutcomes(suite, labels, plan.judge, { ...plan.judgeTrust, judgeId: plan.judgeId ?? '', ...(store ? { store } : {}), ...(signal ? { signal } : {}) });
    const notKept = store?.saveOrSay();
    if (notKept) notes.push(`the judge's verdicts were not kept: ${notKept}`);
  }
  // People's labels measured the judge of hallucination: the ceiling is judged on the corrected rate.
  const correction = outcomes ? hallucinationJudge(suite, outcomes) : undefined;
  let decision = decideProduction({ policy, base, head, comparison: report.comparison, ...(noChecks || plan.cap === 0 ? { adherenceNotMeasured: noChecks ?? 'no answers scored (--score 0)' } : {}), ...(correction ? { hallucinationJudge: correction } : {}) });
  if (outcomes) decision = withJudgeTrustProduction(decision, outcomes);
  return { decision: { ...decision, ...registry }, notes };
}
