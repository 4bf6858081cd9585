/**
 * `compare --capacity`: the capacity search (load/capacitySearch.ts) for the base revision's prompt
 * and the head's, on the same endpoint under the same SLOs (the judging policy's, as the gate uses),
 * side by side. Where the scenario gates on capacity (batch), a head that serves fewer concurrent
 * requests within the SLOs holds the rollout — but only when both searches resolved; an unresolved
 * one is said to be insufficient evidence rather than read as a number.
 */
import { targetText } from '../load/attainment';
import type { CacheMode } from '../endpoint/serverKind';
import type { ChatTransport } from '../endpoint/transport';
import { searchMaxConcurrency } from '../load/capacitySearch';
import { runLoadPoint } from '../load/loadPoint';
import { type LoadPoint } from '../load/loadPointRecord';
import { withCriterion } from '../rollout/decision';
import { SCENARIO_RULES, type RolloutPolicy } from '../rollout/scenario';
import { objectiveText } from '../rollout/slo';
import { latencyLimitLabel } from '../text/metricNames';
import { planPromptRun } from '../run/promptRun';
import type { DeclaredRetrieval } from '../retrieval/retrievalStep';
import type { LoadResultsStore } from '../load/loadResults';
import { runKeyOf } from '../store/runKey';
import type { ComparisonResult } from './compare';
import type { RevisionSource } from './revisionSources';

export interface CapacityLevel {
  concurrency: number;
  sent: number;
  failed: number;
  attainment: { met: number; total: number; share: number | null; ci95: [number, number] | null; resolved: 'meets' | 'misses' | null };
  ttftMsP90: number | null;
  requestsPerSec: number | null;
}

export interface CapacitySide {
  rev: string;
  label: string;
  /** The largest concurrency whose attainment reached the target; null when the search could not run. */
  maxConcurrencyMeetingSlo: number | null;
  /** The limit was reached still attaining: the capacity is at least this. */
  atLimit: boolean;
  resolved: boolean;
  levels: CapacityLevel[];
  error?: string;
  /** The search's points kept in the load store (like `load`'s), or why not; absent without a store. */
  kept?: { stored: boolean; message: string };
}

export interface CapacityComparison {
  slo: string[];
  target: number | null;
  requestsPerLevel: number;
  limit: number;
  base: CapacitySide;
  head: CapacitySide;
  cancelled: boolean;
}

export interface CapacityCompareInput {
  file: string;
  promptName?: string;
  modelOverride?: string;
  revisions: readonly [RevisionSource, RevisionSource];
  transport: ChatTransport;
  policy: RolloutPolicy;
  /** The judging revision's retrieval step (gatePolicy.ts), run for both sides. */
  retrieval: DeclaredRetrieval;
  target: number | null;
  limit: number;
  requests: number;
  timeoutMs: number;
  cache: CacheMode;
  signal?: AbortSignal;
  onLevel?: (label: string, concurrency: number) => void;
  /** Where each side's levels are kept as load points, keyed by that revision's prompt (export --kind load). */
  store?: LoadResultsStore;
}

/** The judging policy sets a latency SLO (adherence cannot be attained per request under load). */
export function hasLatencySlo(policy: RolloutPolicy): boolean {
  return policy.objectives.some((o) => o.metric !== 'adherence' && o.metric !== 'hallucination');
}

export async function compareCapacity(input: CapacityCompareInput): Promise<CapacityComparison> {
  const objectives = input.policy.objectives;
  const sides: CapacitySide[] = [];
  for (const revision of input.revisions) sides.push(await searchRevision(input, revision));
  return {
    // Attainment is per request: each latency SLO read as a limit every request must meet (load/attainment.ts).
    slo: objectives.flatMap((o) => (o.metric === 'adherence' || o.metric === 'hallucination' ? [] : [latencyLimitLabel(o.metric, o.maxMs)])),
    target: input.target, requestsPerLevel: input.requests, limit: input.limit,
    base: sides[0]!, head: sides[1]!, cancelled: input.signal?.aborted === true,
  };
}

/**
 * After a comparison: the capacity of its first revision (base) and its last (head), the one the
 * rollout decision is about, under the comparison's judging policy — and the decision with the
 * capacity criterion in it. The CLI (`compare --capacity`) and the editor's compare panel share it.
 */
export async function withCapacity(
  result: ComparisonResult,
  input: Omit<CapacityCompareInput, 'policy' | 'revisions'> & { revisions: readonly RevisionSource[] },
): Promise<{ result: ComparisonResult; capacity: CapacityComparison }> {
  const capacity = await compareCapacity({ ...input, revisions: [input.revisions[0]!, input.revisions[input.revisions.length - 1]!], policy: result.policy });
  const rollout = result.rollout ? withCriterion(result.rollout, capacityCriterion(capacity, result.policy.scenario)) : result.rollout;
  return { result: { ...result, rollout }, capacity };
}

async function searchRevision(input: CapacityCompareInput, revision: RevisionSource): Promise<CapacitySide> {
  const side = { rev: revision.rev, label: revision.label };
  let plan;
  try {
    // The revision's prompt with its own sample inputs, as `load` sends it.
    plan = await planPromptRun(input.file, revision.text, {
      ...(input.promptName !== undefined ? { promptName: input.promptName } : {}),
      ...(input.modelOverride ? { modelOverride: input.modelOverride } : {}),
      ...(input.transport.endpoint.model ? { endpointModel: input.transport.endpoint.model } : {}),
      retrieval: input.retrieval,
    });
  } catch (error) {
    return { ...side, maxConcurrencyMeetingSlo: null, atLimit: false, resolved: false, levels: [], error: `${revision.label}: ${(error as Error).message}` };
  }
  const result = await searchMaxConcurrency((concurrency) => {
    input.onLevel?.(revision.label, concurrency);
    return runLoadPoint({ kind: 'concurrency', concurrency }, { transport: input.transport, plans: [plan], requests: input.requests, timeoutMs: input.timeoutMs, cache: input.cache, objectives: input.policy.objectives, target: input.target, ...(input.signal ? { signal: input.signal } : {}) });
  }, { limit: input.limit, requests: input.requests, ...(input.signal ? { signal: input.signal } : {}) });
  const kept = input.store?.keepPoints(result.points, {
    key: runKeyOf(input.transport.endpoint, plan.request, plan.retrieval), file: input.file, prompt: plan.prompt.name, endpointName: input.transport.endpoint.name,
    simulated: input.transport.endpoint.simulated === true || result.points.some((p) => p.simulated),
    slo: input.policy.objectives.map(objectiveText), target: input.target, inputs: 'the sample inputs',
  });
  return { ...side, maxConcurrencyMeetingSlo: result.maxConcurrency, atLimit: result.atLimit, resolved: result.resolved, levels: result.points.map(levelOf), ...(kept ? { kept } : {}) };
}

function levelOf(p: LoadPoint): CapacityLevel {
  const a = p.attainment;
  return {
    concurrency: p.level.kind === 'concurrency' ? p.level.concurrency : p.level.maxConcurrency,
    sent: p.sent, failed: p.failed,
    attainment: { met: a.met, total: a.total, share: a.share, ci95: a.ci95, resolved: a.resolved },
    ttftMsP90: p.ttftMs.p90, requestsPerSec: p.requestsPerSec,
  };
}

function capacityNumber(s: CapacitySide): string {
  return s.maxConcurrencyMeetingSlo === null ? 'n/a' : `${s.atLimit ? '≥ ' : ''}${s.maxConcurrencyMeetingSlo}`;
}

function resolvedText(c: CapacityComparison): string {
  const [b, h] = [c.base.resolved, c.head.resolved];
  return b && h ? 'resolved both' : !b && !h ? 'resolved neither' : b ? 'head unresolved' : 'base unresolved';
}

/** `capacity under SLO: base 12 → head 10 (resolved both)`, then each side's levels. */
export function capacityComparisonLines(c: CapacityComparison): string[] {
  const pct = (v: number | null) => (v === null ? 'n/a' : `${Math.round(v * 100)}%`);
  const lines = [`capacity under SLO: base ${capacityNumber(c.base)} → head ${capacityNumber(c.head)} (${resolvedText(c)})`];
  lines.push(`  largest concurrency meeting ${c.slo.join(' and ')}, ${targetText(c.target)}; ${c.requestsPerLevel} requests per level, limit ${c.limit}${c.cancelled ? ' · CANCELLED: levels so far' : ''}`);
  for (const [name, s] of [['base', c.base], ['head', c.head]] as const) {
    if (s.error) {
      lines.push(`  ${name} ${s.label}: ${s.error}`);
      continue;
    }
    const levels = s.levels.map((l) => `${l.concurrency}: ${pct(l.attainment.share)}${l.attainment.resolved === 'meets' ? ' ✓' : l.attainment.resolved === 'misses' ? ' ✗' : ' ?'}`);
    lines.push(`  ${name} ${s.label}: ${levels.join(', ')}`);
  }
  return lines;
}

/** How capacity counts in the rollout decision: it gates only where the scenario gates on it. */
export interface CapacityCriterion {
  kind: 'holds' | 'unclear' | 'seen';
  text: string;
}

export function capacityCriterion(c: CapacityComparison, scenario: RolloutPolicy['scenario']): CapacityCriterion {
  const { base, head } = c;
  const numbers = `capacity under SLO: base ${capacityNumber(base)} → head ${capacityNumber(head)} (${resolvedText(c)})`;
  if (!SCENARIO_RULES[scenario].capacityBlocks) return { kind: 'seen', text: `${numbers} — shown, not gating: the ${scenario} scenario does not gate on capacity` };
  const failed = [base, head].find((s) => s.error);
  if (failed) return { kind: 'unclear', text: `capacity under SLO: insufficient evidence — ${failed.error}` };
  if (c.cancelled) return { kind: 'unclear', text: `${numbers}: insufficient evidence — the search was cancelled` };
  if (!base.resolved || !head.resolved) {
    const which = !base.resolved && !head.resolved ? 'both searches' : !base.resolved ? "base's search" : "head's search";
    return { kind: 'unclear', text: `${numbers}: insufficient evidence — ${which} did not resolve (the attainment intervals around the capacity straddle the target; give more --capacity-requests)` };
  }
  if (head.maxConcurrencyMeetingSlo! < base.maxConcurrencyMeetingSlo!) {
    return { kind: 'holds', text: `head's max concurrency under SLO ${head.maxConcurrencyMeetingSlo} is below base's ${capacityNumber(base)} (${c.slo.join(' and ')}, ${targetText(c.target)}) — the batch scenario gates on capacity` };
  }
  return { kind: 'seen', text: `${numbers} — not lower` };
}
