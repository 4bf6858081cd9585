/**
 * Service-level objectives a prompt's revisions are held to: latency percentiles with a ceiling
 * (`ttftMs.p90 <= 1000`), an adherence floor (`adherence >= 0.9`) and a hallucination-rate ceiling
 * (`hallucination <= 0.02`: the share of judged runs that hallucinate). Written as a `slo:` block
 * (`ttftMs: { p90: 1000 }`, `adherence: { min: 0.9 }`, `hallucination: { max: 0.02 }`) or as CLI text. Each is judged with its
 * interval, not its point estimate: *met* when the whole 95% interval is inside, *broken* when it is
 * wholly outside, *unclear* otherwise (too few runs for the percentile, or too close to call).
 */
import { quantileInterval, quantileRanks } from '../stats/quantileInterval';
import { wilsonInterval } from '../stats/proportions';

export type LatencyMetric = 'ttftMs' | 'e2eMs' | 'tpotMs';
export type Percentile = 'p50' | 'p90' | 'p95' | 'p99';

export type Objective = { metric: LatencyMetric; percentile: Percentile; maxMs: number } | { metric: 'adherence'; min: number } | { metric: 'hallucination'; max: number };

const LATENCY_METRICS: readonly LatencyMetric[] = ['ttftMs', 'e2eMs', 'tpotMs'];
const PERCENTILES: Record<Percentile, number> = { p50: 0.5, p90: 0.9, p95: 0.95, p99: 0.99 };

export class SloError extends Error {}

export function objectiveText(o: Objective): string {
  return o.metric === 'adherence' ? `adherence ≥ ${o.min}` : o.metric === 'hallucination' ? `hallucination ≤ ${o.max}` : `${o.metric}.${o.percentile} ≤ ${o.maxMs}`;
}

/** A `slo:` block as written in a prompt or tests file. */
export function objectivesFromBlock(block: unknown, where: string): Objective[] {
  if (block === undefined || block === null) return [];
  if (typeof block !== 'object' || Array.isArray(block)) throw new SloError(`${where}: \`slo\` must be a map, e.g. slo: { ttftMs: { p90: 1000 }, adherence: { min: 0.9 } }`);
  const objectives: Objective[] = [];
  for (const [metric, spec] of Object.entries(block as Record<string, unknown>)) {
    if (typeof spec !== 'object' || spec === null || Array.isArray(spec)) throw new SloError(`${where}: slo.${metric} must be a map (e.g. { p90: 1000 } or { min: 0.9 })`);
    for (const [stat, value] of Object.entries(spec as Record<string, unknown>)) {
      objectives.push(objective(metric, stat, typeof value === 'number' ? value : Number.NaN, `${where}: slo.${metric}.${stat}`));
    }
  }
  return objectives;
}

/** `ttftMs.p90<=1000`, `e2eMs.p99 <= 8000`, `adherence>=0.9` (CLI `--slo`). */
export function objectiveFromText(text: string): Objective {
  const match = /^\s*(\w+)(?:\.(\w+))?\s*(<=|>=)\s*([0-9.]+)\s*$/.exec(text);
  if (!match) throw new SloError(`--slo '${text}': write it as metric.percentile<=ms (ttftMs.p90<=1000) or adherence>=rate (adherence>=0.9)`);
  const [, metric, stat, op, value] = match;
  if (metric === 'adherence') {
    if (op !== '>=' || (stat && stat !== 'min')) throw new SloError(`--slo '${text}': adherence takes a floor: adherence>=0.9`);
    return objective('adherence', 'min', Number(value), `--slo '${text}'`);
  }
  if (metric === 'hallucination') {
    if (op !== '<=' || (stat && stat !== 'max')) throw new SloError(`--slo '${text}': hallucination takes a ceiling on the rate: hallucination<=0.02`);
    return objective('hallucination', 'max', Number(value), `--slo '${text}'`);
  }
  if (op !== '<=' || !stat) throw new SloError(`--slo '${text}': a latency takes a ceiling on a percentile: ${metric}.p90<=1000`);
  return objective(metric!, stat, Number(value), `--slo '${text}'`);
}

function objective(metric: string, stat: string, value: number, where: string): Objective {
  if (metric === 'adherence') {
    if (stat !== 'min') throw new SloError(`${where}: adherence takes \`min\` (a rate from 0 to 1)`);
    if (!(value >= 0 && value <= 1)) throw new SloError(`${where}: the adherence floor must be a rate from 0 to 1`);
    return { metric: 'adherence', min: value };
  }
  if (metric === 'hallucination') {
    if (stat !== 'max') throw new SloError(`${where}: hallucination takes \`max\` (a rate from 0 to 1)`);
    if (!(value >= 0 && value <= 1)) throw new SloError(`${where}: the hallucination ceiling must be a rate from 0 to 1`);
    return { metric: 'hallucination', max: value };
  }
  if (!(LATENCY_METRICS as readonly string[]).includes(metric)) throw new SloError(`${where}: unknown metric '${metric}' (use ttftMs, e2eMs, tpotMs, adherence or hallucination)`);
  if (!(stat in PERCENTILES)) throw new SloError(`${where}: unknown percentile '${stat}' (use p50, p90, p95 or p99)`);
  if (!(value > 0 && Number.isFinite(value))) throw new SloError(`${where}: the ceiling must be a positive number of milliseconds`);
  return { metric: metric as LatencyMetric, percentile: stat as Percentile, maxMs: value };
}

export type ObjectiveStatus = 'met' | 'broken' | 'unclear';

export interface ObjectiveJudgement {
  objective: Objective;
  status: ObjectiveStatus;
  /** Point estimate (ms or rate) and its 95% interval (a side is null when the runs cannot bound it). */
  estimate: number | null;
  ci95: [number | null, number | null];
  n: number;
}

export interface SloEvidence {
  ttftMs: readonly number[];
  e2eMs: readonly number[];
  tpotMs: readonly number[];
  adherence: { passed: number; total: number };
  /** Runs that hallucinated among the judged ones; absent when no test case judges hallucination. */
  hallucination?: { hallucinated: number; total: number };
}

export function judgeObjective(objective: Objective, evidence: SloEvidence): ObjectiveJudgement {
  if (objective.metric === 'adherence') {
    const { passed, total } = evidence.adherence;
    if (total === 0) return { objective, status: 'unclear', estimate: null, ci95: [null, null], n: 0 };
    const [lo, hi] = wilsonInterval(passed, total);
    const status: ObjectiveStatus = lo >= objective.min ? 'met' : hi < objective.min ? 'broken' : 'unclear';
    return { objective, status, estimate: passed / total, ci95: [lo, hi], n: total };
  }
  if (objective.metric === 'hallucination') {
    const { hallucinated, total } = evidence.hallucination ?? { hallucinated: 0, total: 0 };
    if (total === 0) return { objective, status: 'unclear', estimate: null, ci95: [null, null], n: 0 };
    const [lo, hi] = wilsonInterval(hallucinated, total);
    const status: ObjectiveStatus = hi <= objective.max ? 'met' : lo > objective.max ? 'broken' : 'unclear';
    return { objective, status, estimate: hallucinated / total, ci95: [lo, hi], n: total };
  }
  const values = evidence[objective.metric];
  const p = PERCENTILES[objective.percentile];
  const [lo, hi] = quantileInterval(values, p);
  const sorted = [...values].sort((a, b) => a - b);
  const estimate = sorted.length > 0 ? sorted[Math.min(sorted.length - 1, Math.ceil(p * sorted.length) - 1)]! : null;
  const status: ObjectiveStatus = hi !== null && hi <= objective.maxMs ? 'met' : lo !== null && lo > objective.maxMs ? 'broken' : 'unclear';
  return { objective, status, estimate, ci95: [lo, hi], n: values.length };
}

/** More runs than this are not suggested: a question that needs them is not settled by running more. */
const MAX_SUGGESTED_RUNS = 100_000;

/**
 * About how many runs (in all, for this revision) would settle an unclear objective if the runs so
 * far are representative: the interval moves wholly to the side of the limit the estimate is on.
 * Null when the estimate sits on the limit (more runs would not tell) or it would take more than
 * 100,000 runs.
 */
export function runsToSettle(objective: Objective, evidence: SloEvidence): { runs: number; side: 'met' | 'broken' } | null {
  if (objective.metric === 'adherence') {
    const { passed, total } = evidence.adherence;
    if (total === 0) return null;
    const rate = passed / total;
    if (rate === objective.min) return null;
    const side = rate > objective.min ? 'met' : 'broken';
    const settles = (n: number) => {
      const [lo, hi] = wilsonInterval(rate * n, n);
      return side === 'met' ? lo >= objective.min : hi < objective.min;
    };
    return smallestRuns(total, settles, side);
  }
  if (objective.metric === 'hallucination') {
    const { hallucinated, total } = evidence.hallucination ?? { hallucinated: 0, total: 0 };
    if (total === 0) return null;
    const rate = hallucinated / total;
    if (rate === objective.max) return null;
    const side = rate < objective.max ? 'met' : 'broken';
    const settles = (n: number) => {
      const [lo, hi] = wilsonInterval(rate * n, n);
      return side === 'met' ? hi <= objective.max : lo > objective.max;
    };
    return smallestRuns(total, settles, side);
  }
  const values = evidence[objective.metric].filter(Number.isFinite);
  if (values.length === 0) return null;
  const p = PERCENTILES[objective.percentile];
  // The share of runs within the limit stands in for the true distribution: the interval's upper
  // order statistic is within the limit when its rank is within that share of n (and the lower one
  // beyond it when it is above).
  const withinShare = values.filter((v) => v <= objective.maxMs).length / values.length;
  if (withinShare === p) return null;
  const side = withinShare > p ? 'met' : 'broken';
  const settles = (n: number) => {
    const [l, u] = quantileRanks(n, p);
    return side === 'met' ? u !== null && u <= Math.floor(withinShare * n) : l !== null && l > Math.ceil(withinShare * n);
  };
  return smallestRuns(values.length, settles, side);
}

/** The smallest n above `from` for which `settles(n)` holds: doubling, then bisection. */
function smallestRuns(from: number, settles: (n: number) => boolean, side: 'met' | 'broken'): { runs: number; side: 'met' | 'broken' } | null {
  let low = Math.max(1, from);
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
