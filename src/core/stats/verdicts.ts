/**
 * Verdicts of head against base, per metric, at α = 0.05:
 * - adherence: Fisher's exact test (z-test when large) on passed/failed runs, Newcombe interval for
 *   the difference; higher is better;
 * - latency (TTFT, E2E): bootstrap interval of the difference of medians; lower is better, and a
 *   difference smaller than the practical margin (5% of the base median, at least 5 ms) is reported
 *   as no difference even when detectable.
 * "insufficient" when a side has fewer than 5 runs: no claim either way.
 */
import { bootstrapMedianDifference, type MedianDifference } from './bootstrap';
import { newcombeDifferenceInterval, proportionTest } from './proportions';
import { medianOf } from './percentile';

export type VerdictKind = 'better' | 'worse' | 'no-difference' | 'insufficient';
export type VerdictMetric = 'adherence' | 'ttftMs' | 'e2eMs';

export interface Verdict {
  metric: VerdictMetric;
  base: string;
  head: string;
  verdict: VerdictKind;
  pValue: number | null;
  /** head − base: percentage points for adherence (0..1 scale), ms for latency. */
  difference: number | null;
  ci95: [number, number] | null;
  test: 'fisher-exact' | 'two-proportion-z' | 'bootstrap-median' | 'sequential-pairs' | null;
  /** One sentence for the verdict card. */
  summary: string;
}

export const ALPHA = 0.05;
export const MIN_RUNS_FOR_CLAIM = 5;
const PRACTICAL_MARGIN_SHARE = 0.05;
const PRACTICAL_MARGIN_MIN_MS = 5;

export function adherenceVerdict(base: { rev: string; passed: number; total: number }, head: { rev: string; passed: number; total: number }): Verdict {
  const common = { metric: 'adherence' as const, base: base.rev, head: head.rev };
  if (base.total < MIN_RUNS_FOR_CLAIM || head.total < MIN_RUNS_FOR_CLAIM) {
    return { ...common, verdict: 'insufficient', pValue: null, difference: null, ci95: null, test: null, summary: `adherence: not enough runs (${base.total} and ${head.total}; ${MIN_RUNS_FOR_CLAIM} each needed)` };
  }
  const difference = head.passed / head.total - base.passed / base.total;
  const { pValue, test } = proportionTest(head.passed, head.total, base.passed, base.total);
  const ci95 = newcombeDifferenceInterval(head.passed, head.total, base.passed, base.total);
  const verdict: VerdictKind = pValue < ALPHA ? (difference > 0 ? 'better' : 'worse') : 'no-difference';
  const points = `${difference >= 0 ? '+' : ''}${Math.round(difference * 100)} pts`;
  const summary = verdict === 'no-difference' ? `adherence ${points}, no significant difference (${formatP(pValue)})` : `adherence ${points}, ${formatP(pValue)}`;
  return { ...common, verdict, pValue, difference, ci95, test, summary };
}

export function latencyVerdict(metric: 'ttftMs' | 'e2eMs', base: { rev: string; values: readonly number[] }, head: { rev: string; values: readonly number[] }): Verdict {
  const common = { metric, base: base.rev, head: head.rev };
  // As core/text/metricNames.ts names them: stats shares its floor and may not import it (its test checks they agree).
  const name = metric === 'ttftMs' ? 'TTFT' : 'E2E latency';
  if (base.values.length < MIN_RUNS_FOR_CLAIM || head.values.length < MIN_RUNS_FOR_CLAIM) {
    return { ...common, verdict: 'insufficient', pValue: null, difference: null, ci95: null, test: null, summary: `${name}: not enough successful runs (${base.values.length} and ${head.values.length}; ${MIN_RUNS_FOR_CLAIM} each needed)` };
  }
  const { result, margin, excludesZero, material } = medianShift(base.values, head.values, (baseMedian) => Math.max(PRACTICAL_MARGIN_MIN_MS, PRACTICAL_MARGIN_SHARE * baseMedian));
  const verdict: VerdictKind = excludesZero && material ? (result.difference < 0 ? 'better' : 'worse') : 'no-difference';
  const change = `${result.difference >= 0 ? '+' : ''}${Math.round(result.difference)} ms`;
  const summary =
    verdict === 'no-difference'
      ? `${name} ${change} (median), no significant change${excludesZero && !material ? ` beyond the ${Math.round(margin)} ms practical margin` : ''}`
      : `${name} ${change} (median), ${formatP(result.pValue)}`;
  return { ...common, verdict, pValue: result.pValue, difference: result.difference, ci95: result.ci95, test: 'bootstrap-median', summary };
}

/**
 * The shift of the median (head − base) with its bootstrap interval, and whether it is detectable
 * (the interval excludes 0) and material (at least the margin, a function of the base median).
 */
export function medianShift(base: readonly number[], head: readonly number[], marginFor: (baseMedian: number) => number): { result: MedianDifference; margin: number; excludesZero: boolean; material: boolean } {
  const result = bootstrapMedianDifference(base, head);
  const margin = marginFor(medianOf(base));
  return { result, margin, excludesZero: result.ci95[0] > 0 || result.ci95[1] < 0, material: Math.abs(result.difference) >= margin };
}

/** `p < 0.001`, `p = 0.004`, `p = 0.31`. */
export function formatP(p: number): string {
  if (p < 0.001) return 'p < 0.001';
  return `p = ${p < 0.01 ? p.toFixed(3) : p.toFixed(2)}`;
}

/** The gradual-rollout rule: ship only without a significant worsening in adherence or latency. */
export function noRegression(verdicts: readonly Verdict[]): boolean {
  return !verdicts.some((v) => v.verdict === 'worse');
}
