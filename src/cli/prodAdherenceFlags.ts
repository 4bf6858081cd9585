/**
 * `prod`'s flags for production adherence and the decision (the work itself: core/release/scoreAndDecide.ts): `--score N` (answers scored per version; 0: none; scores kept
 * in `--store PATH`, default .prompt-insight/prod-scores.jsonl, or not with `--no-store`),
 * `--judge-endpoint URL --judge-model ID` for judge rubrics, `--decide --base V1 --head V2
 * [--fail-on-regression] [--policy base|head] [--registry-rev REV]`. Deciding, the checks and the policy come
 * from the base's side (core/release/baseSide.ts: the change cannot relax its own gate), else from the tests file on disk.
 */
import { transportJudge } from '../core/run/transportJudge';
import { POLICY_ORIGINS, type PolicyOrigin } from '../core/compare/gatePolicy';
import { registryLine, type ReleaseError } from '../core/release/baseSide';
import type { AdherencePlan } from '../core/release/scoreAndDecide';
import { AnswerSample, DEFAULT_SCORED_PER_VERSION, type ProdAdherence, type ProdHallucination } from '../core/telemetry/prodAdherence';
import { DEFAULT_SCORE_STORE } from '../core/store/verdictStore';
import { DEFAULT_TRUST_BAR } from '../core/stats/judgeTrust';
import { DECISION_WORDS, type ProdDecision } from '../core/telemetry/prodDecision';
import { type ParsedArgs, numberFlag, stringFlag, UsageError } from './args';
import { endpointTransport, ENDPOINT_FLAGS } from './endpointArgs';

export const ADHERENCE_VALUED = ['score', 'store', 'base', 'head', 'policy', 'registry-rev', ...ENDPOINT_FLAGS.map((f) => `judge-${f}`), 'judge-model', 'judge-min-lower-bound', 'judge-min-labels'];
export const ADHERENCE_REPEATABLE = ['accept-judge'];
export const ADHERENCE_BOOLEAN = ['decide', 'fail-on-regression', 'no-store'];

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
  const accepted = new Set(args.lists.get('accept-judge') ?? []);
  if ((!deciding || !judgeTransport) && (accepted.size > 0 || args.flags.has('judge-min-lower-bound') || args.flags.has('judge-min-labels'))) throw new UsageError('--accept-judge, --judge-min-lower-bound and --judge-min-labels go with --decide and --judge-endpoint');
  const trustBar = {
    minLowerBound: numberFlag(args, 'judge-min-lower-bound', { min: 0, max: 1 }, DEFAULT_TRUST_BAR.minLowerBound),
    minEach: numberFlag(args, 'judge-min-labels', { min: 1, max: 1_000_000, integer: true }, DEFAULT_TRUST_BAR.minEach),
  };
  return {
    cap,
    ...(judgeTransport && judgeModel ? { judge: transportJudge(judgeTransport, judgeModel, timeoutMs, signal), judgeId: `${judgeModel} at ${stringFlag(args, 'judge-endpoint') ?? ''}` } : {}),
    ...(deciding ? { decide: { base: base!, head: head!, failOnRegression: args.flags.get('fail-on-regression') === true, policyFrom: policyFrom as PolicyOrigin, ...(registryRev !== undefined ? { registryRev } : {}) } } : {}),
    ...(deciding && judgeTransport ? { judgeTrust: { bar: trustBar, accepted } } : {}),
    sample: new AnswerSample(cap, window),
    ...(args.flags.has('no-store') ? {} : { storePath: stringFlag(args, 'store') ?? DEFAULT_SCORE_STORE }),
  };
}

/** A base's side that cannot be read, in the flags' words (core/release/baseSide.ts words it for any face). */
export function releaseUsageError(error: ReleaseError): UsageError {
  if (error.kind === 'no-release-branch') return new UsageError(`--decide ${error.message.replace(/^the decision /, '')}: name it with --registry-rev (for example --registry-rev origin/main)`);
  if (error.kind === 'bad-registry-revision') return new UsageError(`--registry-rev ${error.message}`);
  return new UsageError(error.message);
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
