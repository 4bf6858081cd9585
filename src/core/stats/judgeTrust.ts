/**
 * How far a judge can be trusted, from items people labelled: its agreement with the people, and the
 * pass rate it reports corrected for the error it was measured to make (issue 40).
 *
 * A judge's job is to catch failures, so *fail* is the positive class: TPR is the share of the
 * answers people failed that the judge failed too, TNR the share of those people passed that the
 * judge passed. Each comes with a Wilson 95% interval; Cohen's κ gives agreement beyond chance.
 *
 * The corrected rate is Rogan–Gladen's estimator (1978): with p the share the judge passes,
 *   true pass rate = (p + TPR − 1) / (TPR + TNR − 1),
 * and its interval carries both the sample's and the labelled set's uncertainty (the delta method,
 * Greenland 1996), on counts adjusted as Lang & Reiczigel (2014) do for coverage at small n: the
 * judged sample gets z²/2 passes and z²/2 fails (Agresti–Coull), the labelled rates one of each.
 */
import { wilsonInterval, Z95 } from './proportions';

export type Verdict = 'pass' | 'fail';

/** One labelled item: what the person said, and what the judge said of the same answer. */
export interface LabelledPair {
  human: Verdict;
  judge: Verdict;
}

export interface RateWithInterval {
  /** Null when nothing was there to count (no labelled fails, say). */
  value: number | null;
  ci95: [number, number] | null;
  /** The count behind it: `successes` of `trials`. */
  successes: number;
  trials: number;
}

export interface JudgeAgreement {
  /** Labelled items, and how many of them people passed and failed. */
  n: number;
  passes: number;
  fails: number;
  /** Of the answers people failed, the share the judge failed. */
  tpr: RateWithInterval;
  /** Of the answers people passed, the share the judge passed. */
  tnr: RateWithInterval;
  accuracy: number | null;
  /** Cohen's κ; null when chance agreement is total (one side said one thing only). */
  kappa: number | null;
  disagreements: number;
}

/** A judged check is trusted when both lower bounds reach `minLowerBound` on at least `minEach` labelled passes and fails. */
export interface TrustBar {
  minLowerBound: number;
  minEach: number;
}

export const DEFAULT_TRUST_BAR: TrustBar = { minLowerBound: 0.8, minEach: 30 };

function rate(successes: number, trials: number): RateWithInterval {
  return trials === 0 ? { value: null, ci95: null, successes, trials } : { value: successes / trials, ci95: wilsonInterval(successes, trials), successes, trials };
}

export function judgeAgreement(pairs: readonly LabelledPair[]): JudgeAgreement {
  let bothFail = 0;
  let bothPass = 0;
  let humanFail = 0;
  let judgeFail = 0;
  for (const pair of pairs) {
    if (pair.human === 'fail') humanFail++;
    if (pair.judge === 'fail') judgeFail++;
    if (pair.human === 'fail' && pair.judge === 'fail') bothFail++;
    if (pair.human === 'pass' && pair.judge === 'pass') bothPass++;
  }
  const n = pairs.length;
  const humanPass = n - humanFail;
  const agreed = bothFail + bothPass;
  const observed = n === 0 ? null : agreed / n;
  const chance = n === 0 ? null : (humanFail / n) * (judgeFail / n) + (humanPass / n) * ((n - judgeFail) / n);
  return {
    n,
    passes: humanPass,
    fails: humanFail,
    tpr: rate(bothFail, humanFail),
    tnr: rate(bothPass, humanPass),
    accuracy: observed,
    kappa: observed === null || chance === null || chance >= 1 ? null : (observed - chance) / (1 - chance),
    disagreements: n - agreed,
  };
}

/** Whether the judge may decide on this check, and in words why (or why not). */
export function judgeTrusted(agreement: JudgeAgreement, bar: TrustBar = DEFAULT_TRUST_BAR): { trusted: boolean; why: string } {
  const lower = (r: RateWithInterval): number => r.ci95?.[0] ?? 0;
  const pct = (x: number): string => `${Math.round(x * 100)}%`;
  const measured = `TPR ≥ ${pct(lower(agreement.tpr))}, TNR ≥ ${pct(lower(agreement.tnr))} on ${agreement.n} labels (${agreement.fails} fail, ${agreement.passes} pass)`;
  if (agreement.fails < bar.minEach || agreement.passes < bar.minEach) {
    return { trusted: false, why: `${measured}: too few labels — ${bar.minEach} labelled passes and ${bar.minEach} fails are needed` };
  }
  const under = [lower(agreement.tpr) < bar.minLowerBound ? 'TPR' : '', lower(agreement.tnr) < bar.minLowerBound ? 'TNR' : ''].filter(Boolean);
  if (under.length > 0) {
    return { trusted: false, why: `${measured}: ${under.length === 2 ? 'both' : under[0]} under the bar of ${pct(bar.minLowerBound)} (95% lower bounds; both must reach it)` };
  }
  return { trusted: true, why: `${measured}: both at or above ${pct(bar.minLowerBound)} (95% lower bounds)` };
}

export interface CorrectedRate {
  raw: { value: number; ci95: [number, number] };
  /** Null when the judge is no better than a coin on these labels (TPR + TNR ≤ 1): no correction exists. */
  corrected: { value: number; ci95: [number, number] } | null;
}

/** The judge's pass rate on `judged` answers (`judgedPasses` passed), raw and corrected for its measured TPR and TNR. */
export function correctedPassRate(judgedPasses: number, judged: number, agreement: Pick<JudgeAgreement, 'tpr' | 'tnr'>, z = Z95): CorrectedRate {
  const raw = { value: judged === 0 ? 0 : judgedPasses / judged, ci95: wilsonInterval(judgedPasses, judged, z) };
  const z2 = z * z;
  // Adjusted counts (Lang & Reiczigel 2014): the sample as Agresti–Coull, the labelled rates with one success and one failure added.
  const p = (judgedPasses + z2 / 2) / (judged + z2);
  const tpr = (agreement.tpr.successes + 1) / (agreement.tpr.trials + 2);
  const tnr = (agreement.tnr.successes + 1) / (agreement.tnr.trials + 2);
  const youden = tpr + tnr - 1;
  if (judged === 0 || youden <= 0) return { raw, corrected: null };
  const estimate = clamp01((p + tpr - 1) / youden);
  // Delta method: ∂π/∂p = 1/J, ∂π/∂TPR = (1 − π)/J, ∂π/∂TNR = −π/J (J = TPR + TNR − 1).
  const varP = (p * (1 - p)) / (judged + z2);
  const varTpr = (tpr * (1 - tpr)) / (agreement.tpr.trials + 2);
  const varTnr = (tnr * (1 - tnr)) / (agreement.tnr.trials + 2);
  const variance = (varP + (1 - estimate) ** 2 * varTpr + estimate ** 2 * varTnr) / youden ** 2;
  const half = z * Math.sqrt(variance);
  // The point is Rogan–Gladen on the plain counts; the interval is centred on the adjusted one.
  const plainYouden = (agreement.tpr.value ?? 0) + (agreement.tnr.value ?? 0) - 1;
  const point = plainYouden > 0 ? clamp01((judgedPasses / judged + (agreement.tpr.value ?? 0) - 1) / plainYouden) : estimate;
  return { raw, corrected: { value: point, ci95: [Math.min(point, clamp01(estimate - half)), Math.max(point, clamp01(estimate + half))] } };
}

function clamp01(x: number): number {
  return Math.min(1, Math.max(0, x));
}
