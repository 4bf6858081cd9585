/**
 * SLO attainment under load (goodput's share): a request attains when it succeeded and meets every
 * latency objective of the prompt's scenario by its own value (TTFT, E2E, TPOT under each limit, as
 * GuideLLM and vLLM's goodput judge per request). A failed request does not attain; a one-token answer
 * has no TPOT and meets a TPOT limit, as in vLLM's goodput. Adherence and hallucination objectives
 * are not per-request latency and are left to `compare`.
 *
 * What a level must reach: an SLO's percentile is its attainment target — `ttftMs.p90 <= 930` means
 * at least 90% of requests within 930 ms — each SLO judged on its own share; `--attainment T`
 * overrides that with one target for the share of requests meeting every SLO at once. A level is
 * *resolved* when the one-sided bound of each share settles it (the same exact rule that judges an
 * SLO in `compare`: rollout/sloJudgement.ts), and otherwise says about how many requests would.
 */
import type { RunRecord } from '../metrics/runRecord';
import { latencyLimitLabel } from '../text/metricNames';
import { PERCENTILES, type Objective } from '../rollout/slo';
import { clopperPearsonLower, clopperPearsonUpper, shareSide } from '../stats/oneSided';
import { wilsonInterval } from '../stats/proportions';

export interface SloShare {
  objective: string;
  met: number;
  total: number;
  share: number | null;
  /** The share this SLO must reach: its percentile, or the --attainment override. */
  target: number;
  resolved: 'meets' | 'misses' | null;
}

export interface Attainment {
  /** Requests meeting every latency SLO at once (goodput's count), of those counted. */
  met: number;
  total: number;
  share: number | null;
  ci95: [number, number] | null;
  /** The --attainment override for the share meeting every SLO; null: each SLO's percentile is its target. */
  target: number | null;
  /** Each SLO's share against its target (with an override: the one share against it). */
  perSlo: SloShare[];
  /** Whether the level reaches its targets by the point estimates (what the search follows). */
  attains: boolean;
  /** `meets`/`misses` when the one-sided bounds settle it; null when more requests are needed. */
  resolved: 'meets' | 'misses' | null;
  /** When unresolved: about how many requests at this level would resolve it, if the shares so far are typical. */
  requestsToResolve: number | null;
  /** The per-request limits applied, in words. */
  limits: string[];
}

/** `each SLO's percentile` or `95% (--attainment)`: the target said once, beside the headline. */
export function targetText(target: number | null): string {
  return target === null ? 'each SLO at its percentile (p90: ≥ 90% of requests within its limit)' : `≥ ${Math.round(target * 1000) / 10}% of requests meeting every SLO (--attainment)`;
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

function shareOf(objective: string, met: number, total: number, target: number): SloShare {
  const side = shareSide(met, total, target);
  return { objective, met, total, share: total > 0 ? met / total : null, target, resolved: side === 'above' ? 'meets' : side === 'below' ? 'misses' : null };
}

/** `target`: the --attainment override, or null for each SLO's own percentile. */
export function attainment(records: readonly RunRecord[], objectives: readonly Objective[], target: number | null, neverSent = 0): Attainment {
  const limits = latencyObjectives(objectives);
  const met = records.filter((r) => requestAttains(r, limits)).length;
  // Arrivals dropped at a rate were never served: they count as misses (as errored requests do), so a
  // rate the client could not even send is never said to be met.
  const total = records.length + neverSent;
  const limitText = (o: LatencyObjective) => latencyLimitLabel(o.metric, o.maxMs);
  const perSlo =
    target !== null
      ? [shareOf(limits.map(limitText).join(' and '), met, total, target)]
      : limits.map((o) => shareOf(`${limitText(o)} (${o.percentile})`, records.filter((r) => requestAttains(r, [o])).length, total, PERCENTILES[o.percentile]));
  const attains = total > 0 && perSlo.every((s) => s.share !== null && s.share >= s.target);
  const resolved = perSlo.some((s) => s.resolved === 'misses') ? 'misses' : perSlo.length > 0 && perSlo.every((s) => s.resolved === 'meets') ? 'meets' : null;
  return {
    met, total, share: total > 0 ? met / total : null, ci95: total > 0 ? wilsonInterval(met, total) : null, target, perSlo, attains, resolved,
    requestsToResolve: resolved === null && total > 0 ? requestsToResolve(perSlo) : null,
    limits: limits.map(limitText),
  };
}

/**
 * About how many requests per level would resolve the level: the fewest at which every unresolved
 * share, as seen so far, would be settled by the same one-sided rule (null when a share sits on its
 * target, or past 100,000).
 */
function requestsToResolve(perSlo: readonly SloShare[]): number | null {
  let most = 0;
  for (const s of perSlo) {
    if (s.resolved !== null || s.share === null) continue;
    if (s.share === s.target) return null;
    const above = s.share > s.target;
    const settles = (n: number) => (above ? clopperPearsonLower(s.share! * n, n) > s.target : clopperPearsonUpper(s.share! * n, n) < s.target);
    let n = s.total;
    while (!settles(n)) {
      if (n > 100_000) return null;
      n = Math.ceil(n * 1.25) + 1;
    }
    let low = Math.max(1, Math.floor(n / 1.25) - 1);
    while (n - low > 1) {
      const mid = Math.floor((low + n) / 2);
      if (settles(mid)) n = mid;
      else low = mid;
    }
    most = Math.max(most, n);
  }
  return most;
}
