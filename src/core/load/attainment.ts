/**
 * SLO attainment under load (goodput's share): a request attains when it succeeded and meets every
 * latency objective of the prompt's scenario by its own value (TTFT, E2E, TPOT under each limit, as
 * GuideLLM and vLLM's goodput judge per request). A failed request does not attain; a one-token answer
 * has no TPOT and meets a TPOT limit, as in vLLM's goodput. Adherence and hallucination objectives
 * are not per-request latency and are left to `compare`. The share carries a Wilson
 * interval, and a level is *resolved* only when that interval lies wholly on one side of the target.
 */
import type { RunRecord } from '../metrics/runRecord';
import type { Objective } from '../rollout/slo';
import { wilsonInterval } from '../stats/proportions';

export interface Attainment {
  met: number;
  total: number;
  share: number | null;
  ci95: [number, number] | null;
  target: number;
  /** `meets`/`misses` when the interval is wholly above/below the target; null when it straddles it. */
  resolved: 'meets' | 'misses' | null;
  /** The per-request limits applied, in words. */
  limits: string[];
}

type LatencyObjective = Extract<Objective, { maxMs: number }>;

/** The per-request latency limits among the objectives (adherence and hallucination are rates over runs, not per request). */
export function latencyObjectives(objectives: readonly Objective[]): LatencyObjective[] {
  return objectives.filter((o): o is LatencyObjective => 'maxMs' in o);
}

export function requestAttains(record: RunRecord, objectives: readonly LatencyObjective[]): boolean {
  if (!record.ok) return false;
  return objectives.every((o) => {
    // A one-token answer has no decode, so no TPOT: it cannot break a TPOT limit (vLLM's goodput counts its TPOT as 0).
    if (o.metric === 'tpotMs' && record.tpotMs === null && record.outputTokens !== null && record.outputTokens <= 1) return true;
    const value = record[o.metric];
    return typeof value === 'number' && Number.isFinite(value) && value <= o.maxMs;
  });
}

export function attainment(records: readonly RunRecord[], objectives: readonly Objective[], target: number): Attainment {
  const limits = latencyObjectives(objectives);
  const met = records.filter((r) => requestAttains(r, limits)).length;
  const total = records.length;
  const ci95 = total > 0 ? wilsonInterval(met, total) : null;
  const resolved = ci95 === null ? null : ci95[0] >= target ? 'meets' : ci95[1] < target ? 'misses' : null;
  return { met, total, share: total > 0 ? met / total : null, ci95, target, resolved, limits: limits.map((o) => `${o.metric} ≤ ${o.maxMs} ms`) };
}
