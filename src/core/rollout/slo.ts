/**
 * Service-level objectives a prompt's revisions are held to: latency percentiles with a ceiling
 * (`ttftMs.p90 <= 1000`), an adherence floor (`adherence >= 0.9`) and a hallucination-rate ceiling
 * (`hallucination <= 0.02`: the share of judged runs that hallucinate). Written as a `slo:` block
 * (`ttftMs: { p90: 1000 }`, `adherence: { min: 0.9 }`, `hallucination: { max: 0.02 }`) or as CLI text.
 * How each is judged: sloJudgement.ts.
 */

import { formatLimitMs, METRIC_NAMES, percentText } from '../text/metricNames';

export type LatencyMetric = 'ttftMs' | 'e2eMs' | 'tpotMs';
export type Percentile = 'p50' | 'p90' | 'p95' | 'p99';

export type Objective = { metric: LatencyMetric; percentile: Percentile; maxMs: number } | { metric: 'adherence'; min: number } | { metric: 'hallucination'; max: number };

const LATENCY_METRICS: readonly LatencyMetric[] = ['ttftMs', 'e2eMs', 'tpotMs'];
export const PERCENTILES: Record<Percentile, number> = { p50: 0.5, p90: 0.9, p95: 0.95, p99: 0.99 };

export class SloError extends Error {}

/** The machine-readable form (`e2eMs.p90 ≤ 30000`, `adherence ≥ 0.5`): JSON fields and keys scripts read; never shown to people. */
export function objectiveText(o: Objective): string {
  return o.metric === 'adherence' ? `adherence ≥ ${o.min}` : o.metric === 'hallucination' ? `hallucination ≤ ${o.max}` : `${o.metric}.${o.percentile} ≤ ${o.maxMs}`;
}

/** The objective in words people read: `E2E latency p90 ≤ 30 s`, `TTFT p99 ≤ 800 ms`, `adherence ≥ 50%`. */
export function objectiveLabel(o: Objective): string {
  if (o.metric === 'adherence') return `adherence ≥ ${percentText(o.min)}`;
  if (o.metric === 'hallucination') return `hallucination ≤ ${percentText(o.max)}`;
  return `${METRIC_NAMES[o.metric]} ${o.percentile} ≤ ${formatLimitMs(o.maxMs)}`;
}

/**
 * The words for an objective stored in its machine form (`objectiveText`, or the CLI's `e2eMs.p90<=30000`):
 * views that receive JSON (the panels, stored load points) show it plainly; text that does not parse reads as written.
 */
export function objectiveLabelFromText(text: string): string {
  try {
    return objectiveLabel(objectiveFromText(text.replace('≤', '<=').replace('≥', '>=')));
  } catch {
    return text;
  }
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
