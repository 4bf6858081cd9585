/**
 * Whether a decision may rest on its judge: every judged check (llm-rubric, GitHub llm evaluators) the
 * judging tests hold is carded against people's labels as the judging revision has them (a pull request
 * cannot bring the labels that make its own judge look trusted). A check whose judge is not trusted
 * keeps a ship from being said — the gate fails closed — unless the user accepted that judge by name,
 * which the reasons then state. Trusted judges are stated too, with their numbers.
 */
import type { Judge } from '../adherence/score';
import { CLAIMS_AGAINST_CONTEXT } from '../adherence/assertionTypes';
import { suiteAssertions, type TestSuite } from '../adherence/testCases';
import type { HallucinationJudge } from '../rollout/correctedCeiling';
import { humanVerdicts, judgedChecks, trustCardOf } from '../adherence/trustCard';
import { correctedPassRate, type CorrectedRate, type JudgeAgreement, type TrustBar } from '../stats/judgeTrust';
import type { RevisionResult } from './revisionResult';
import { withCriterion, type RolloutDecision } from '../rollout/decision';
import type { VerdictStore } from '../store/verdictStore';
import type { LabelsAt } from './revisionDeclarations';

export interface JudgeTrustOptions {
  bar: TrustBar;
  /** The judge by model and endpoint: its kept verdicts are its own. */
  judgeId: string;
  /** Checks whose judge the user accepts untrusted (`--accept-judge CHECK`, a setting). */
  accepted: ReadonlySet<string>;
  /** The judge's verdicts kept between runs (sealed to this machine). */
  store?: VerdictStore;
  signal?: AbortSignal;
}

export interface JudgeTrustOutcome {
  check: string;
  trusted: boolean;
  accepted: boolean;
  /** "TPR ≥ 71%, TNR ≥ 91% on 80 labels (40 fail, 40 pass): …", or why there is no card. */
  why: string;
  /** The sentence the decision's reasons carry. */
  text: string;
  /** The judge against people's labels, when they labelled its answers. */
  agreement?: JudgeAgreement;
}

/** A judged check's pass rate on one revision, as its judge gave it and corrected for the judge's measured error. */
export interface CorrectedCheckRate extends CorrectedRate {
  check: string;
  rev: string;
  label: string;
  passed: number;
  judged: number;
}

export async function judgeTrustOutcomes(suite: TestSuite, labels: LabelsAt | undefined, judge: Judge, options: JudgeTrustOptions): Promise<JudgeTrustOutcome[]> {
  const outcomes: JudgeTrustOutcome[] = [];
  for (const assertion of judgedChecks(suite)) {
    const check = assertion.label;
    const accepted = options.accepted.has(check);
    let trusted = false;
    let why: string;
    let agreement: JudgeAgreement | undefined;
    if (!labels || humanVerdicts(labels.labels, check).length === 0) {
      why = labels ? `no one labelled its answers in ${labels.where}` : 'no labels file beside the prompt';
    } else {
      const card = await trustCardOf(assertion, labels.labels, judge, { bar: options.bar, suite, ...(options.signal ? { signal: options.signal } : {}), ...(options.store ? { cache: { store: options.store, judgeId: options.judgeId } } : {}) });
      trusted = card.trusted;
      why = card.why;
      agreement = card.agreement;
    }
    const text = trusted
      ? `judge trusted for ${check} (${why})`
      : accepted
        ? `judge accepted for ${check} although not trusted (${why}): accepted by the user, so its verdicts count`
        : `judge not trusted for ${check} (${why}): its verdicts do not ship a change — label more of its answers (Review Answers…) or accept it by name (--accept-judge)`;
    outcomes.push({ check, trusted, accepted, why, text, ...(agreement ? { agreement } : {}) });
  }
  return outcomes;
}

/** The decision with each judge's trust folded in: an untrusted, unaccepted judge keeps a ship from being said. */
export function withJudgeTrust(decision: RolloutDecision, outcomes: readonly JudgeTrustOutcome[]): RolloutDecision {
  return outcomes.reduce((d, o) => withCriterion(d, { kind: o.trusted || o.accepted ? 'seen' : 'unclear', text: o.text }), decision);
}

/**
 * Each judged check's pass rate per revision, raw and corrected (Rogan–Gladen, with an interval that
 * carries both the runs' and the labelled set's uncertainty: stats/judgeTrust.ts), where people's labels
 * measured its judge.
 */
export function correctedCheckRates(revisions: readonly RevisionResult[], outcomes: readonly JudgeTrustOutcome[]): CorrectedCheckRate[] {
  const rates: CorrectedCheckRate[] = [];
  for (const o of outcomes) {
    if (!o.agreement) continue;
    for (const r of revisions) {
      const counts = r.judgedChecks?.[o.check];
      if (!counts || counts.judged === 0) continue;
      rates.push({ check: o.check, rev: r.rev, label: r.label, passed: counts.passed, judged: counts.judged, ...correctedPassRate(counts.passed, counts.judged, o.agreement) });
    }
  }
  return rates;
}

/**
 * The judge whose verdicts make the hallucination rate, when people's labels measured it: the suite judges
 * the answer's claims against the context with one check, a `hallucination` check (a run hallucinated ⟺ it
 * failed), and that check has a card. Several such checks, or faithfulness (whose pass is a score over a
 * threshold, not the absence of a hallucination), leave the rate uncorrected.
 */
export function hallucinationJudge(suite: TestSuite, outcomes: readonly JudgeTrustOutcome[]): HallucinationJudge | undefined {
  const claims = suiteAssertions(suite).filter((a) => CLAIMS_AGAINST_CONTEXT.has(a.type));
  const names = new Set(claims.map((a) => a.label));
  if (names.size !== 1 || claims.some((a) => a.type !== 'hallucination' || a.negate)) return undefined;
  const outcome = outcomes.find((o) => names.has(o.check));
  return outcome?.agreement ? { check: outcome.check, agreement: outcome.agreement } : undefined;
}
