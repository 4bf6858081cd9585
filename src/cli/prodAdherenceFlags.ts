/**
 * `prod`'s production adherence and decision: `--score N` (answers scored per version; 0: none; scores kept
 * in `--store PATH`, default .prompt-insight/prod-scores.jsonl, or not with `--no-store`),
 * `--judge-endpoint URL --judge-model ID` for judge rubrics, `--decide --base V1 --head V2
 * [--fail-on-regression] [--policy base|head] [--registry-rev REV]`. Deciding, the checks and the policy come
 * from the base's side (prodBaseSide.ts: the change cannot relax its own gate), else from the tests file on disk.
 */
import { resolve } from 'node:path';
import { loadTestSuite, type TestSuite } from '../core/adherence/testCases';
import type { Judge } from '../core/adherence/score';
import { transportJudge } from '../core/run/transportJudge';
import { POLICY_ORIGINS, type PolicyOrigin } from '../core/compare/gatePolicy';
import { detectFormat } from '../core/formats/detect';
import type { RolloutPolicy } from '../core/rollout/scenario';
import { AnswerSample, DEFAULT_SCORED_PER_VERSION, referenceFreeChecks, scoreAnswers, type ProdAdherence, type ProdHallucination } from '../core/telemetry/prodAdherence';
import { DEFAULT_SCORE_STORE, ProdScoreStore } from '../core/telemetry/prodScoreStore';
import { decideProduction, DECISION_WORDS, type ProdDecision } from '../core/telemetry/prodDecision';
import type { ProdReport } from '../core/telemetry/prodReport';
import { findVersion } from '../core/telemetry/prodFromTraces';
import type { FileVersions } from '../core/telemetry/prodVersions';
import { type ParsedArgs, numberFlag, stringFlag, UsageError } from './args';
import { endpointTransport, ENDPOINT_FLAGS } from './endpointArgs';
import { promptsOf } from './promptFile';
import { readPromptFile } from '../core/files/workspaceFile';
import { decodePromptBytes } from '../core/formats/decode';
import { decisionGate, registryLine, type DecideFlags } from './prodBaseSide';

export const ADHERENCE_VALUED = ['score', 'store', 'base', 'head', 'policy', 'registry-rev', ...ENDPOINT_FLAGS.map((f) => `judge-${f}`), 'judge-model'];
export const ADHERENCE_BOOLEAN = ['decide', 'fail-on-regression', 'no-store'];

export interface AdherencePlan {
  cap: number;
  judge?: Judge;
  /** Which judge (model and endpoint): part of a stored score's key, so another judge's verdicts are not reused. */
  judgeId?: string;
  decide?: DecideFlags;
  sample: AnswerSample;
  /** Where scores are kept between runs; absent with --no-store. */
  storePath?: string;
}

export function adherencePlan(args: ParsedArgs, window: { sinceMs?: number; untilMs?: number }, timeoutMs: number, signal?: AbortSignal): AdherencePlan {
  const cap = numberFlag(args, 'score', { min: 0, max: 10_000, integer: true }, DEFAULT_SCORED_PER_VERSION);
  const judgeTransport = endpointTransport(args, 'judge-');
  const judgeModel = stringFlag(args, 'judge-model');
  if (judgeTransport && !judgeModel) throw new UsageError('--judge-endpoint needs --judge-model');
  const base = stringFlag(args, 'base');
  const head = stringFlag(args, 'head');
  const deciding = args.flags.get('decide') === true;
  const policyFrom = stringFlag(args, 'policy') ?? 'base';
  const registryRev = stringFlag(args, 'registry-rev');
  if (!(POLICY_ORIGINS as readonly string[]).includes(policyFrom)) throw new UsageError(`--policy must be base or head (got '${policyFrom}'; base: the base version's checks and SLOs judge the change; head: the head's, applied deliberately and listed)`);
  if (args.flags.has('store') && args.flags.has('no-store')) throw new UsageError('--store and --no-store exclude each other');
  if (deciding && (!base || !head)) throw new UsageError('--decide needs --base V1 --head V2 (the versions as production labels them, or their commits)');
  if (!deciding && (base || head || args.flags.has('fail-on-regression'))) throw new UsageError('--base, --head and --fail-on-regression go with --decide');
  if (!deciding && (args.flags.has('policy') || registryRev !== undefined)) throw new UsageError('--policy and --registry-rev go with --decide');
  return {
    cap,
    ...(judgeTransport && judgeModel ? { judge: transportJudge(judgeTransport, judgeModel, timeoutMs, signal), judgeId: `${judgeModel} at ${stringFlag(args, 'judge-endpoint') ?? ''}` } : {}),
    ...(deciding ? { decide: { base: base!, head: head!, failOnRegression: args.flags.get('fail-on-regression') === true, policyFrom: policyFrom as PolicyOrigin, ...(registryRev !== undefined ? { registryRev } : {}) } } : {}),
    sample: new AnswerSample(cap, window),
    ...(args.flags.has('no-store') ? {} : { storePath: stringFlag(args, 'store') ?? DEFAULT_SCORE_STORE }),
  };
}

/** Deciding, the base's side's policy and checks (or why they cannot be read); else the tests file on disk and no policy. */
async function checksSource(file: string, plan: AdherencePlan, report: ProdReport, fileVersions: FileVersions, promptName: string | undefined, signal?: AbortSignal): Promise<{ suite: TestSuite; policy?: RolloutPolicy; notes: string[]; unreadable?: string }> {
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

/** Scores each version's sampled answers into the report (`versions[].adherence`), and decides when asked. */
export async function scoreAndDecide(file: string, plan: AdherencePlan, report: ProdReport, fileVersions: FileVersions, promptName: string | undefined, signal?: AbortSignal): Promise<{ decision?: ProdDecision; notes: string[] }> {
  const { suite, policy, notes: gateNotes, unreadable } = await checksSource(file, plan, report, fileVersions, promptName, signal);
  const notes: string[] = [];
  const { checks, leftOut } = referenceFreeChecks(suite, plan.judge !== undefined);
  if (leftOut.length) notes.push(`production adherence leaves out ${leftOut.join(', ')}.`);
  const noChecks = checks.length === 0 ? `${suite.source} has no check every answer can be held to (defaultTest: assert: contains, regex, is-json, json-schema, llm-rubric …)` : undefined;
  if (plan.cap > 0 && !noChecks) {
    const store = plan.storePath ? new ProdScoreStore(plan.storePath) : undefined;
    if (store?.problem) notes.push(store.problem);
    for (const v of report.versions) {
      const adherence: ProdAdherence = await scoreAnswers(plan.sample.answersOf(v.promptName, v.version), checks, { ...(plan.judge ? { judge: plan.judge, judgeId: plan.judgeId ?? '' } : {}), ...(store ? { store } : {}) });
      v.adherence = adherence;
    }
    try {
      store?.save();
    } catch (error) {
      notes.push(`production scores were not stored: ${(error as Error).message}`);
    }
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
  const decision = decideProduction({ policy, base, head, comparison: report.comparison, ...(noChecks || plan.cap === 0 ? { adherenceNotMeasured: noChecks ?? '--score 0' } : {}) });
  notes.push(...gateNotes);
  return { decision: { ...decision, ...registry }, notes };
}

/** `promote` 0; with --fail-on-regression `roll-back` 1 and `insufficient` 2 (a gate fails closed; distinct so a pipeline can wait and retry). */
export function decisionExitCode(decision: ProdDecision, failOnRegression: boolean): number {
  if (!failOnRegression || decision.decision === 'promote') return 0;
  return decision.decision === 'roll-back' ? 1 : 2;
}

export function decisionText(d: ProdDecision): string {
  return [`decision: ${DECISION_WORDS[d.decision]} ${d.head} (against ${d.base})${d.matching ? ` · ${d.matching}` : ''}`, ...d.reasons.map((r) => `  - ${r}`), ...(d.registry ? [`  ${registryLine(d.registry)}`] : [])].join('\n');
}

const pct = (x: number) => `${Math.round(x * 100)}%`;

/** The version's adherence line, and its hallucination line when a context check ran. */
export function adherenceLines(a: ProdAdherence): string[] {
  const line = a.rate === null ? `  adherence: no answer scored (${a.withAnswer} captured${a.unscored ? `, ${a.unscored} could not be scored` : ''})` : `  adherence ${pct(a.rate)} [${pct(a.ci95![0])}, ${pct(a.ci95![1])}] · ${a.passed} of ${a.scored} sampled answers pass (of ${a.withAnswer} captured)${a.unscored ? ` · ${a.unscored} unscored` : ''}${a.fromStore ? ` · ${a.fromStore} scored before (stored)` : ''} · checks: ${a.checks.join(', ')}`;
  return a.hallucination ? [line, hallucinationLine(a.hallucination)] : [line];
}

/** Production's hallucination rate against the passages each answer's trace retrieved. */
function hallucinationLine(h: ProdHallucination): string {
  const without = h.withoutContext ? ` · ${h.withoutContext} sampled answers without retrieved passages in their trace (not judged)` : '';
  if (h.judged === 0) return `  hallucination: no answer judged against its retrieved passages${without}`;
  return `  hallucination ${pct(h.hallucinated / h.judged)} [${pct(h.ci95![0])}, ${pct(h.ci95![1])}] · ${h.hallucinated} of ${h.judged} answers judged against the passages their trace retrieved${without}`;
}
