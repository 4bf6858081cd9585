/**
 * Verdicts of head against base that stay valid when looked at after every batch (run until
 * decided). Runs are paired — the i-th run of a test case on base with the i-th on head, made in the
 * same interleaved batch — and each pair says which side did better:
 * - adherence (and hallucination): among discordant pairs (one passed, the other not) the head wins
 *   half of them when the revisions do not differ (a sequential McNemar/sign test);
 * - latency (TTFT, E2E) and throughput: a pair counts as worse when the head is slower than the base
 *   by more than the practical margin; with no real change fewer than half the pairs are (a
 *   sequential sign test of the median paired difference beyond the margin).
 * Each share is tested with the beta-binomial mixture confidence sequence (stats/confidenceSequence.ts),
 * two-sided: each direction at α/2. The α of 5% is divided among the figures that can hold the rollout
 * in the scenario (Bonferroni), so the chance of a false "hold for regression" stays under 5% however
 * often the decision is looked at.
 */
import { metricName } from '../text/metricNames';
import { medianOf } from '../stats/percentile';
import type { Change } from '../rollout/decision';
import { SCENARIO_RULES, type Scenario } from '../rollout/scenario';
import { anytimeAbovePValue } from '../stats/confidenceSequence';
import type { CaseSeries, RevisionResult } from './revisionResult';
import { ALPHA, formatP, MIN_RUNS_FOR_CLAIM, type Verdict, type VerdictKind } from '../stats/verdicts';

const PRACTICAL_MARGIN_SHARE = 0.05;
const PRACTICAL_MARGIN_MIN_MS = 5;
const T_OPT_PAIRS = 30;

/** How many figures can hold a rollout in this scenario: the α is shared among them. */
export function gatingFigures(scenario: Scenario, withHallucination: boolean): number {
  const rules = SCENARIO_RULES[scenario];
  return 1 + (withHallucination ? 1 : 0) + (rules.latencyBlocks ? 2 : 0) + (rules.throughputBlocks ? 1 : 0);
}

type Pick<T> = (s: CaseSeries) => readonly (T | null)[];

/** The i-th run of each case on both sides, where both have the figure. */
function pairs<T>(base: RevisionResult, head: RevisionResult, pick: Pick<T>): [T, T][] {
  const out: [T, T][] = [];
  base.series.forEach((b, c) => {
    const h = head.series[c];
    if (!h) return;
    const [bs, hs] = [pick(b), pick(h)];
    for (let i = 0; i < Math.min(bs.length, hs.length); i++) if (bs[i] !== null && bs[i] !== undefined && hs[i] !== null && hs[i] !== undefined) out.push([bs[i]!, hs[i]!]);
  });
  return out;
}

/** Two-sided at α: which way (if any) the share of head-favoured trials departs from ½, and its p-value. */
function sidedTest(headBetter: number, headWorse: number, trials: number, alpha: number): { kind: VerdictKind; pValue: number } {
  const better = anytimeAbovePValue(headBetter, trials, 0.5, { tOpt: T_OPT_PAIRS, alphaOpt: alpha / 2 });
  const worse = anytimeAbovePValue(headWorse, trials, 0.5, { tOpt: T_OPT_PAIRS, alphaOpt: alpha / 2 });
  const pValue = Math.min(1, 2 * Math.min(better, worse));
  return { kind: worse <= alpha / 2 ? 'worse' : better <= alpha / 2 ? 'better' : 'no-difference', pValue };
}

function pText(pValue: number): string {
  return `anytime-valid ${formatP(pValue)}`;
}

/** No difference shown: said in words, with the p-value after them — a bare "p = 1.00" tells a reader nothing. */
function noEvidence(what: string, pValue: number, more = ''): string {
  return `no evidence of a ${what} yet (${pText(pValue)}${more})`;
}

export function sequentialAdherenceVerdict(base: RevisionResult, head: RevisionResult, alpha: number): Verdict {
  const common = { metric: 'adherence' as const, base: base.rev, head: head.rev, test: 'sequential-pairs' as const, ci95: null };
  if (base.adherence.total < MIN_RUNS_FOR_CLAIM || head.adherence.total < MIN_RUNS_FOR_CLAIM) {
    return { ...common, verdict: 'insufficient', pValue: null, difference: null, test: null, summary: `adherence: not enough runs (${base.adherence.total} and ${head.adherence.total}; ${MIN_RUNS_FOR_CLAIM} each needed)` };
  }
  const discordant = pairs(base, head, (s) => s.passed).filter(([b, h]) => b !== h);
  const headWon = discordant.filter(([, h]) => h).length;
  const { kind, pValue } = sidedTest(headWon, discordant.length - headWon, discordant.length, alpha);
  const difference = head.adherence.passed / head.adherence.total - base.adherence.passed / base.adherence.total;
  const points = `${difference >= 0 ? '+' : ''}${Math.round(difference * 100)} pts`;
  const split = `${head.label} passed where ${base.label} failed in ${headWon} paired runs, the reverse in ${discordant.length - headWon}`;
  const summary = kind === 'no-difference' ? `adherence ${points}, ${noEvidence('difference', pValue, `; ${split}`)}` : `adherence ${points}, ${pText(pValue)} (${split})`;
  return { ...common, verdict: kind, pValue, difference, summary };
}

/** Paired shifts of a latency (lower is better) or a throughput (higher is better) beyond the practical margin. */
function shiftTest(paired: [number, number][], lowerIsBetter: boolean, margin: number, alpha: number): { kind: VerdictKind; pValue: number; difference: number } {
  const differences = paired.map(([b, h]) => h - b);
  const slower = differences.filter((d) => (lowerIsBetter ? d > margin : d < -margin)).length;
  const faster = differences.filter((d) => (lowerIsBetter ? d < -margin : d > margin)).length;
  return { ...sidedTest(faster, slower, paired.length, alpha), difference: medianOf(differences) };
}

export function sequentialLatencyVerdict(metric: 'ttftMs' | 'e2eMs', base: RevisionResult, head: RevisionResult, alpha: number): Verdict {
  const name = metricName(metric);
  const common = { metric, base: base.rev, head: head.rev, ci95: null };
  const paired = pairs(base, head, (s) => s[metric]);
  if (paired.length < MIN_RUNS_FOR_CLAIM) return { ...common, verdict: 'insufficient', pValue: null, difference: null, test: null, summary: `${name}: not enough paired successful runs (${paired.length}; ${MIN_RUNS_FOR_CLAIM} needed)` };
  const margin = Math.max(PRACTICAL_MARGIN_MIN_MS, PRACTICAL_MARGIN_SHARE * medianOf(paired.map(([b]) => b)));
  const { kind, pValue, difference } = shiftTest(paired, true, margin, alpha);
  const change = `${difference >= 0 ? '+' : ''}${Math.round(difference)} ms`;
  const summary = kind === 'no-difference' ? `${name} ${change} (median paired difference), ${noEvidence(`change beyond the ${Math.round(margin)} ms practical margin`, pValue)}` : `${name} ${change} (median paired difference), ${pText(pValue)}`;
  return { ...common, verdict: kind, pValue, difference, test: 'sequential-pairs', summary };
}

/** Output tokens/s, paired; worse beyond 5% of the base median. */
export function sequentialThroughputChange(base: RevisionResult, head: RevisionResult, alpha: number): Change {
  const paired = pairs(base, head, (s) => s.tokensPerSec);
  if (paired.length < MIN_RUNS_FOR_CLAIM) return { worse: false, insufficient: true, text: `throughput: not enough paired runs with output tokens/s (${paired.length}; ${MIN_RUNS_FOR_CLAIM} needed)` };
  const { kind, pValue, difference } = shiftTest(paired, false, PRACTICAL_MARGIN_SHARE * medianOf(paired.map(([b]) => b)), alpha);
  return { worse: kind === 'worse', text: `throughput ${difference >= 0 ? '+' : ''}${difference.toFixed(1)} tok/s (median paired output tokens/s), ${kind === 'no-difference' ? noEvidence('change', pValue) : pText(pValue)}` };
}

export function sequentialHallucinationChange(base: RevisionResult, head: RevisionResult, alpha: number): Change | undefined {
  const [b, h] = [base.hallucination, head.hallucination];
  if (!b || !h) return undefined;
  const counts = `${base.label} ${b.hallucinated}/${b.judged}, ${head.label} ${h.hallucinated}/${h.judged} runs`;
  if (b.judged < MIN_RUNS_FOR_CLAIM || h.judged < MIN_RUNS_FOR_CLAIM) return { worse: false, insufficient: true, text: `hallucination: not enough judged runs to compare (${counts}; ${MIN_RUNS_FOR_CLAIM} each needed)` };
  const discordant = pairs(base, head, (s) => s.hallucinated).filter(([x, y]) => x !== y);
  const headOnly = discordant.filter(([, y]) => y).length;
  const { kind, pValue } = sidedTest(discordant.length - headOnly, headOnly, discordant.length, alpha);
  const difference = h.hallucinated / h.judged - b.hallucinated / b.judged;
  const points = `${difference >= 0 ? '+' : ''}${Math.round(difference * 100)} pts`;
  return { worse: kind === 'worse', text: `hallucination ${points} (${counts}), ${kind === 'worse' ? `${pText(pValue)} — significantly more hallucination` : kind === 'better' ? `${pText(pValue)} — less hallucination` : noEvidence('difference', pValue)}` };
}

/** Every anytime-valid verdict of head against base, with α shared among the figures that gate. */
export function sequentialComparison(base: RevisionResult, head: RevisionResult, scenario: Scenario): { verdicts: Verdict[]; changes: { throughput?: Change; hallucination?: Change } } {
  const alpha = ALPHA / gatingFigures(scenario, base.hallucination !== undefined && head.hallucination !== undefined);
  const throughput = sequentialThroughputChange(base, head, alpha);
  const hallucination = sequentialHallucinationChange(base, head, alpha);
  return {
    verdicts: [sequentialAdherenceVerdict(base, head, alpha), sequentialLatencyVerdict('ttftMs', base, head, alpha), sequentialLatencyVerdict('e2eMs', base, head, alpha)],
    changes: { throughput, ...(hallucination ? { hallucination } : {}) },
  };
}
