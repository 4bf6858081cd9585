/**
 * The production decision for a deployed change (base → head): promote, roll back, or insufficient,
 * by the same rules as `compare`'s rollout decision (rollout/decision.ts) under the base revision's
 * policy (scenario and SLOs), on production evidence: TTFT and E2E from the hours both versions are
 * matched on (matchedHours.ts), adherence and hallucination from their scored production answers (prodAdherence.ts),
 * and the error rate — significantly more failed requests holds the change, as a criterion of its own.
 * It fails closed: unmatched hours, too few requests or no scored answers where the tests file has
 * checks are "insufficient", never "promote".
 */
import { adherenceVerdict, type Verdict } from '../stats/verdicts';
import { decideRollout, withCriterion, type RolloutDecision } from '../rollout/decision';
import type { RolloutPolicy } from '../rollout/scenario';
import type { HallucinationJudge } from '../rollout/correctedCeiling';
import { matchedEvidence, type ProdComparison, type ProdVersion } from './prodReport';
import type { RegistryReading } from './prodVersions';

export type ProdDecisionKind = 'promote' | 'roll-back' | 'insufficient';

export interface ProdDecision {
  decision: ProdDecisionKind;
  base: string;
  head: string;
  /** How the hours were matched, as the comparison says it. */
  matching: string | null;
  reasons: string[];
  /** The rollout decision it is read from (its SLO judgements); absent when the versions could not be compared at all. */
  rollout?: RolloutDecision;
  /** Where the version table that named the base's revision was read (the base's side). */
  registry?: RegistryReading;
}

const KIND: Record<RolloutDecision['decision'], ProdDecisionKind> = { ship: 'promote', 'no-change': 'promote', hold: 'roll-back', insufficient: 'insufficient' };

export interface ProdDecisionInput {
  policy: RolloutPolicy;
  base: ProdVersion;
  head: ProdVersion;
  comparison: ProdComparison;
  /** Why adherence is not measured when the tests file has no reference-free check (then it does not gate). */
  adherenceNotMeasured?: string;
  /** The judge of hallucination as people's labels measured it: the ceiling is judged on the corrected rate. */
  hallucinationJudge?: HallucinationJudge;
}

export function decideProduction(input: ProdDecisionInput): ProdDecision {
  const { base, head, comparison } = input;
  const matched = matchedEvidence.get(comparison);
  const side = (v: ProdVersion, m: { ttftMs: number[]; e2eMs: number[] } | undefined) => ({
    rev: v.version,
    label: v.version,
    ttftMs: m?.ttftMs ?? [],
    e2eMs: m?.e2eMs ?? [],
    tpotMs: [],
    tokensPerSec: [],
    adherence: { passed: v.adherence?.passed ?? 0, total: v.adherence?.scored ?? 0 },
    // Judged against the passages the app retrieved (prodAdherence.ts): ceilings and increases are judged as in compare.
    ...(v.adherence?.hallucination ? { hallucination: { hallucinated: v.adherence.hallucination.hallucinated, total: v.adherence.hallucination.judged, ...(input.hallucinationJudge ? { judge: input.hallucinationJudge } : {}) } } : {}),
  });
  const latency = comparison.verdicts.filter((v): v is Verdict => v.metric !== 'errorRate');
  const adherence: Verdict = input.adherenceNotMeasured
    ? { metric: 'adherence', base: base.version, head: head.version, verdict: 'no-difference', pValue: null, difference: null, ci95: null, test: null, summary: `adherence not measured in production: ${input.adherenceNotMeasured}` }
    : adherenceVerdict({ rev: base.version, passed: base.adherence?.passed ?? 0, total: base.adherence?.scored ?? 0 }, { rev: head.version, passed: head.adherence?.passed ?? 0, total: head.adherence?.scored ?? 0 });
  const unmatched = comparison.matching?.method === 'unmatched';
  const evidence = unmatched ? { sufficient: false, reasons: [comparison.matching!.summary] } : { sufficient: true, reasons: [] };
  let rollout = decideRollout({
    policy: input.policy,
    base: side(base, matched?.base),
    head: side(head, matched?.head),
    verdicts: [...latency, adherence],
    evidence,
    identical: base.revision !== null && base.revision === head.revision,
  });
  const errors = comparison.verdicts.find((v) => v.metric === 'errorRate');
  if (errors) rollout = withCriterion(rollout, { kind: errors.verdict === 'worse' ? 'holds' : errors.verdict === 'insufficient' ? 'unclear' : 'seen', text: errors.verdict === 'worse' ? `${errors.summary} — significantly more failed requests` : errors.summary });
  return { decision: KIND[rollout.decision], base: base.version, head: head.version, matching: comparison.matching?.summary ?? null, reasons: rollout.reasons, rollout };
}

export const DECISION_WORDS: Record<ProdDecisionKind, string> = { promote: 'PROMOTE', 'roll-back': 'ROLL BACK', insufficient: 'INSUFFICIENT EVIDENCE' };
