/**
 * A hallucination ceiling judged on the rate corrected for the judge's measured error. The judge that
 * says whether a run hallucinated errs at rates people's labels measured (its TPR and TNR for *fail*);
 * the raw share of runs it flags is biased by them. Where that judge has a card, the ceiling is judged
 * on the Rogan–Gladen corrected rate, whose interval carries both the runs' and the labels' uncertainty
 * (stats/judgeTrust.ts): *met* when its one-sided 95% upper bound is under the ceiling, *broken* when its
 * one-sided lower bound is over it. Fixed-n only: run-until-decided keeps its anytime-valid raw bounds.
 */
import { correctedPassRate, type JudgeAgreement } from '../stats/judgeTrust';
import { percentText } from '../text/metricNames';

/** The judge of the one check that says whether a run hallucinated, as people's labels measured it. */
export interface HallucinationJudge {
  check: string;
  agreement: Pick<JudgeAgreement, 'tpr' | 'tnr'>;
}

export interface CorrectedCeiling {
  status: 'met' | 'broken' | 'unclear';
  /** The corrected hallucination rate and its two-sided 95% interval; null when no correction exists. */
  estimate: number | null;
  ci95: [number | null, number | null];
  text: string;
}

/** z of a one-sided 95% bound: each end of the two-sided 90% interval. */
const Z_ONE_SIDED_95 = 1.6448536269514722;

export function correctedCeiling(max: number, hallucinated: number, judged: number, judge: HallucinationJudge): CorrectedCeiling {
  const ceiling = `hallucination ≤ ${percentText(max)}`;
  const counted = `${hallucinated} of ${judged} judged runs hallucinate`;
  const passed = judged - hallucinated;
  const bounds = correctedPassRate(passed, judged, judge.agreement, Z_ONE_SIDED_95).corrected;
  const shown = correctedPassRate(passed, judged, judge.agreement).corrected;
  if (!bounds || !shown) {
    return { status: 'unclear', estimate: null, ci95: [null, null], text: `${counted}, but the judge of ${judge.check} is no better than chance on people's labels: whether ${ceiling} holds cannot be told from it` };
  }
  // The rate is of failing runs: the pass rate's bounds turned around.
  const upper = 1 - bounds.ci95[0];
  const lower = 1 - bounds.ci95[1];
  const status = upper <= max ? 'met' : lower > max ? 'broken' : 'unclear';
  const estimate = 1 - shown.value;
  const ci95: [number, number] = [1 - shown.ci95[1], 1 - shown.ci95[0]];
  const corrected = `${percentText(estimate)} corrected for the judge's measured error (95% interval ${percentText(ci95[0])}–${percentText(ci95[1])})`;
  const verdict = status === 'met' ? `${ceiling} holds with 95% confidence` : status === 'broken' ? `${ceiling} is broken with 95% confidence` : `not yet enough to tell whether ${ceiling} holds`;
  return { status, estimate, ci95, text: `${counted}, ${corrected}: ${verdict}` };
}
