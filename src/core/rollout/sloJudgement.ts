/**
 * How an SLO is judged: as the one-sided claim it is. "p90 ≤ L" holds when at most 10% of runs take
 * longer than L — so it is judged by how many runs exceed L (all of the revision's runs, across its
 * test cases: a latency SLO is about the prompt), with a one-sided bound on that share; an adherence
 * floor by a one-sided lower bound of the pass rate; a hallucination ceiling by a one-sided upper
 * bound. *Met* when the bound is on the right side of the limit, *broken* when the opposite one-sided
 * bound is on the wrong side, *unclear* otherwise. Fixed-n comparisons use exact Clopper–Pearson
 * bounds; run-until-decided uses anytime-valid confidence sequences (stats/confidenceSequence.ts),
 * which stay valid however often the runs are looked at.
 */
import { formatMs } from '../metrics/format';
import { anytimeShareSide } from '../stats/confidenceSequence';
import { shareSide } from '../stats/oneSided';
import { wilsonInterval } from '../stats/proportions';
import { quantileInterval } from '../stats/quantileInterval';
import { percentText } from '../text/metricNames';
import { correctedCeiling, type HallucinationJudge } from './correctedCeiling';
import { objectiveLabel, PERCENTILES, type Objective } from './slo';

export type ObjectiveStatus = 'met' | 'broken' | 'unclear';
/** Fixed-n: the runs were decided on in advance. Anytime: runs are added until decided (confidence sequences). */
export type Statistics = 'fixed-n' | 'anytime';

export interface ObjectiveJudgement {
  objective: Objective;
  status: ObjectiveStatus;
  /** Point estimate (ms or rate) and its two-sided 95% interval for display (a side is null when the runs cannot bound it). */
  estimate: number | null;
  ci95: [number | null, number | null];
  n: number;
  /** What the claim rests on: runs above the limit (latency), runs passing (adherence), runs hallucinating. */
  count: { events: number; trials: number };
  statistics: Statistics;
  /** The claim in plain words: "0 of 30 runs above 30.00 s: p90 ≤ 30.00 s holds with 95% confidence". */
  text: string;
  /** Judged on the rate corrected for the judge's measured error (a hallucination ceiling whose judge was carded). */
  corrected?: true;
}

export interface SloEvidence {
  ttftMs: readonly number[];
  e2eMs: readonly number[];
  tpotMs: readonly number[];
  adherence: { passed: number; total: number };
  /**
   * Runs that hallucinated among the judged ones; absent when no test case judges hallucination. `judge`:
   * the measured error of the one check that judges it, when people's labels carded it — the ceiling is
   * then judged on the corrected rate (fixed-n).
   */
  hallucination?: { hallucinated: number; total: number; judge?: HallucinationJudge };
  /**
   * Runs that failed (no answer: an error, a timeout). Each counts against a latency SLO as a run above the
   * limit — a request that never answered did not answer in time (load's attainment counts them so too).
   */
  failedRuns?: number;
}

/** The trials, the events and the share limit a claim is about; `metWhen` is the side of the limit the share must be on. */
interface Claim {
  events: number;
  trials: number;
  /** Failed runs among the events (latency claims). */
  failed?: number;
  limit: number;
  metWhen: 'below' | 'above';
  estimate: number | null;
  ci95: [number | null, number | null];
}

function claimOf(objective: Objective, evidence: SloEvidence): Claim {
  if (objective.metric === 'adherence') {
    const { passed, total } = evidence.adherence;
    return { events: passed, trials: total, limit: objective.min, metWhen: 'above', estimate: total > 0 ? passed / total : null, ci95: total > 0 ? wilsonInterval(passed, total) : [null, null] };
  }
  if (objective.metric === 'hallucination') {
    const { hallucinated, total } = evidence.hallucination ?? { hallucinated: 0, total: 0 };
    return { events: hallucinated, trials: total, limit: objective.max, metWhen: 'below', estimate: total > 0 ? hallucinated / total : null, ci95: total > 0 ? wilsonInterval(hallucinated, total) : [null, null] };
  }
  const values = evidence[objective.metric].filter(Number.isFinite);
  const failed = evidence.failedRuns ?? 0;
  const p = PERCENTILES[objective.percentile];
  const sorted = [...values].sort((a, b) => a - b);
  const estimate = sorted.length > 0 ? sorted[Math.min(sorted.length - 1, Math.ceil(p * sorted.length) - 1)]! : null;
  // "p90 ≤ L" ⟺ the share of runs above L is at most 10%; a failed run is one of them. (The estimate and its
  // interval, shown beside the claim, are of the runs that answered.)
  return { events: values.filter((v) => v > objective.maxMs).length + failed, trials: values.length + failed, failed, limit: 1 - p, metWhen: 'below', estimate, ci95: quantileInterval(values, p) };
}

/** A hallucination ceiling whose judge people's labels measured, judged on the corrected rate (fixed-n, runs judged). */
function correctedHallucination(objective: Objective, evidence: SloEvidence, statistics: Statistics): ObjectiveJudgement | undefined {
  const h = evidence.hallucination;
  if (objective.metric !== 'hallucination' || !h?.judge || h.total === 0 || statistics !== 'fixed-n') return undefined;
  const c = correctedCeiling(objective.max, h.hallucinated, h.total, h.judge);
  return { objective, status: c.status, estimate: c.estimate, ci95: c.ci95, n: h.total, count: { events: h.hallucinated, trials: h.total }, statistics, text: c.text, corrected: true };
}

/** The anytime mixture is tuned to be tightest near this many runs: the run counts people use. */
export const ANYTIME_T_OPT = 30;

function sideOf(events: number, trials: number, limit: number, statistics: Statistics): 'below' | 'above' | null {
  return statistics === 'anytime' ? anytimeShareSide(events, trials, limit, 0.05, { tOpt: ANYTIME_T_OPT }) : shareSide(events, trials, limit);
}

export function judgeObjective(objective: Objective, evidence: SloEvidence, statistics: Statistics = 'fixed-n'): ObjectiveJudgement {
  const corrected = correctedHallucination(objective, evidence, statistics);
  if (corrected) return corrected;
  const claim = claimOf(objective, evidence);
  const side = sideOf(claim.events, claim.trials, claim.limit, statistics);
  const status: ObjectiveStatus = side === null ? 'unclear' : side === claim.metWhen ? 'met' : 'broken';
  return { objective, status, estimate: claim.estimate, ci95: claim.ci95, n: claim.trials, count: { events: claim.events, trials: claim.trials }, statistics, text: claimText(objective, claim, status, statistics) };
}

/** `E2E latency p90 ≤ 30 s`, `adherence ≥ 80%`, `hallucination ≤ 2%`: the objective as people read it. */
export const claimName = objectiveLabel;

/** Small rates keep a decimal: a 2% ceiling is read against 0.5%, not 1%. */
export const pct = percentText;

function claimText(o: Objective, claim: Claim, status: ObjectiveStatus, statistics: Statistics): string {
  if (claim.trials === 0) return `no runs to judge ${claimName(o)} on`;
  const counted =
    o.metric === 'adherence' ? `${claim.events} of ${claim.trials} runs pass` : o.metric === 'hallucination' ? `${claim.events} of ${claim.trials} judged runs hallucinate` : `${claim.events} of ${claim.trials} runs above ${formatMs(o.maxMs)}${claim.failed ? ` (${claim.failed} of them failed)` : ''}`;
  const confidence = statistics === 'anytime' ? '95% confidence (anytime-valid)' : '95% confidence';
  const verdict = status === 'met' ? `${claimName(o)} holds with ${confidence}` : status === 'broken' ? `${claimName(o)} is broken with ${confidence}` : `not yet enough to tell whether ${claimName(o)} holds`;
  const estimate = 'maxMs' in o && claim.estimate !== null ? ` (${o.percentile} ${formatMs(claim.estimate)})` : '';
  return `${counted}: ${verdict}${estimate}`;
}

/** More runs than this are not suggested: a question that needs them is not settled by running more. */
const MAX_SUGGESTED_RUNS = 100_000;

/**
 * About how many runs (in all, for this revision) would settle an unclear objective by the same
 * one-sided rule, if the share seen so far is typical. Null when the share sits on the limit (more
 * runs would not tell) or it would take more than 100,000 runs.
 */
export function runsToSettle(objective: Objective, evidence: SloEvidence, statistics: Statistics = 'fixed-n'): { runs: number; side: 'met' | 'broken' } | null {
  // A corrected rate's interval also carries the labels' uncertainty, which more runs do not shrink.
  if (correctedHallucination(objective, evidence, statistics)) return null;
  const claim = claimOf(objective, evidence);
  if (claim.trials === 0) return null;
  const share = claim.events / claim.trials;
  if (share === claim.limit) return null;
  const shareSideNow = share < claim.limit ? 'below' : 'above';
  const side = shareSideNow === claim.metWhen ? 'met' : 'broken';
  const settles = (n: number) => sideOf(share * n, n, claim.limit, statistics) === shareSideNow;
  let low = Math.max(1, claim.trials);
  let high = low * 2;
  while (!settles(high)) {
    if (high >= MAX_SUGGESTED_RUNS) return null;
    low = high;
    high = Math.min(MAX_SUGGESTED_RUNS, high * 2);
  }
  while (high - low > 1) {
    const mid = Math.floor((low + high) / 2);
    if (settles(mid)) high = mid;
    else low = mid;
  }
  return { runs: high, side };
}
