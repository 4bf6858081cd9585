/**
 * One rollout decision for a change (base → head), following the prompt's scenario and SLOs. "Ship"
 * is read blindly, so it means what its readers take it to mean — the head meets its SLOs:
 * - insufficient: the runs cannot carry a decision (too few succeeded or could be scored), or an
 *   SLO is not yet established for the head — with about how many runs would settle it;
 * - hold: the head breaks an SLO (judged with its interval) — also when the base broke it too, since
 *   the change does not fix it; or adherence is significantly worse; or, where the scenario gates on
 *   it, latency (interactive) or throughput (batch) is significantly worse beyond the practical margin;
 *   or the hallucination rate is significantly higher (every scenario);
 * - no-change: base and head send the same requests, so there is no change to roll out;
 * - ship: every SLO is met by the head (its whole interval on the right side) and nothing that gates
 *   regressed significantly. Latency changes inside the SLOs in decision and batch scenarios are
 *   reported, not blocking. Every reason cites its numbers.
 */
import { formatLimitMs } from '../text/metricNames';
import { ALPHA, formatP, medianShift, MIN_RUNS_FOR_CLAIM, type Verdict } from '../stats/verdicts';
import { SCENARIO_RULES, type RolloutPolicy } from './scenario';
import { proportionTest } from '../stats/proportions';
import { objectiveLabel, objectiveText } from './slo';
import { judgeObjective, pct, runsToSettle, type ObjectiveJudgement, type SloEvidence, type Statistics } from './sloJudgement';

export type RolloutDecisionKind = 'ship' | 'hold' | 'insufficient' | 'no-change';

export interface RolloutSide extends SloEvidence {
  rev: string;
  label: string;
  tokensPerSec: readonly number[];
}

export interface SloOutcome {
  /** Machine-readable (`e2eMs.p90 ≤ 30000`), for scripts reading the JSON. */
  objective: string;
  /** In words (`E2E latency p90 ≤ 30 s`), for everything people read. */
  label: string;
  base: ObjectiveJudgement;
  head: ObjectiveJudgement;
  /** For an objective not established for the head: about how many runs in all would settle it, and which way. */
  runsNeeded?: { runs: number; side: 'met' | 'broken' };
}

export interface RolloutDecision {
  decision: RolloutDecisionKind;
  scenario: RolloutPolicy['scenario'];
  scenarioSource: string;
  base: string;
  head: string;
  /** Why, most important first: what holds it, then what was seen and did not. */
  reasons: string[];
  slo: SloOutcome[];
}

export interface RolloutInput {
  policy: RolloutPolicy;
  base: RolloutSide;
  head: RolloutSide;
  verdicts: readonly Verdict[];
  evidence: { sufficient: boolean; reasons: readonly string[] };
  /** Base and head send exactly the same requests for every test case. */
  identical?: boolean;
  /** Test cases each revision runs, to say how many runs per case a suggestion means. */
  cases?: number;
  /** Fixed-n (default) or anytime-valid (run until decided): how SLOs are judged and settled. */
  statistics?: Statistics;
  /** Anytime: throughput and hallucination changes from the sequential tests (compare/sequentialVerdicts.ts), in place of the fixed-n ones. */
  changes?: { throughput?: Change; hallucination?: Change };
}

/** A change of a gating figure, head against base, as the decision reads it; `insufficient`: the runs could not compare it. */
export interface Change {
  worse: boolean;
  text: string;
  insufficient?: boolean;
}

const THROUGHPUT_MARGIN_SHARE = 0.05;

/** The claim in plain words: `0 of 30 runs above 30.00 s: E2E p90 ≤ 30.00 s holds with 95% confidence (p90 1.40 s)`. */
export function judgementText(j: ObjectiveJudgement): string {
  return j.text;
}

function limitText(j: ObjectiveJudgement): string {
  const o = j.objective;
  return o.metric === 'adherence' ? `adherence above ${pct(o.min)}` : o.metric === 'hallucination' ? `hallucination under ${pct(o.max)}` : `${o.percentile} under ${formatLimitMs(o.maxMs)}`;
}

function settleText(s: SloOutcome, cases: number): string {
  const needed = s.runsNeeded;
  if (!needed) return 'more runs would not settle it: the estimate sits on the limit';
  const perCase = cases > 1 ? ` (${Math.ceil(needed.runs / cases)} per test case)` : '';
  const o = s.head.objective;
  const what = needed.side === 'met' ? `bound ${limitText(s.head)}` : o.metric === 'adherence' ? `show adherence below ${pct(o.min)}` : o.metric === 'hallucination' ? `show hallucination above ${pct(o.max)}` : `show ${o.percentile} over ${formatLimitMs(o.maxMs)}`;
  return `about ${needed.runs} runs${perCase} would ${what}, if the runs so far are typical`;
}

export function decideRollout(input: RolloutInput): RolloutDecision {
  const { policy, base, head } = input;
  const rules = SCENARIO_RULES[policy.scenario];
  const cases = Math.max(1, input.cases ?? 1);
  const common = { scenario: policy.scenario, scenarioSource: policy.scenarioSource, base: base.rev, head: head.rev };
  const statistics = input.statistics ?? 'fixed-n';
  const slo: SloOutcome[] = policy.objectives.map((objective) => {
    const outcome: SloOutcome = { objective: objectiveText(objective), label: objectiveLabel(objective), base: judgeObjective(objective, base, statistics), head: judgeObjective(objective, head, statistics) };
    if (outcome.head.status === 'unclear') {
      const needed = runsToSettle(objective, head, statistics);
      if (needed) outcome.runsNeeded = needed;
    }
    return outcome;
  });
  const sloLines = slo.map((s) => {
    const where = `SLO ${s.label}`;
    if (s.head.status === 'broken') {
      return s.base.status === 'broken'
        ? { kind: 'broken' as const, text: `both break ${where} — ${head.label} does not fix it (${base.label}: ${judgementText(s.base)}; ${head.label}: ${judgementText(s.head)})` }
        : { kind: 'broken' as const, text: `${head.label} breaks ${where}: ${judgementText(s.head)}; ${base.label}: ${judgementText(s.base)}` };
    }
    if (s.head.status === 'unclear') return { kind: 'unclear' as const, text: `${where} not established for ${head.label}: ${judgementText(s.head)} — ${settleText(s, cases)}` };
    return { kind: 'met' as const, text: `${where} met by ${head.label}: ${judgementText(s.head)}` };
  });

  if (input.identical) {
    // Same requests: whatever the runs show is noise or the server, not the change. SLO notes say where the prompt stands.
    const notes = input.evidence.sufficient ? sloLines.map((l) => (l.kind === 'broken' ? `${l.text} — not caused by this change` : l.text)) : [];
    return { ...common, decision: 'no-change', reasons: [`${base.label} and ${head.label} send the same requests for every test case: there is no prompt change to roll out.`, ...notes], slo };
  }

  const verdict = (metric: Verdict['metric']) => input.verdicts.find((v) => v.metric === metric && v.base === base.rev && v.head === head.rev);
  const adherence = verdict('adherence');
  if (!input.evidence.sufficient || !adherence || adherence.verdict === 'insufficient') {
    const reasons = [...input.evidence.reasons];
    if (adherence?.verdict === 'insufficient' && !reasons.includes(adherence.summary)) reasons.push(adherence.summary);
    if (reasons.length === 0) reasons.push('adherence could not be compared');
    return { ...common, decision: 'insufficient', reasons: [...reasons, 'A gate fails closed: no decision without evidence.'], slo };
  }

  const holds: string[] = [];
  const unclear: string[] = [];
  const seen: string[] = [];
  if (adherence.verdict === 'worse') holds.push(`${adherence.summary} — significantly worse`);
  else seen.push(adherence.summary + (adherence.verdict === 'better' ? ' — better' : ''));
  for (const line of sloLines) (line.kind === 'broken' ? holds : line.kind === 'unclear' ? unclear : seen).push(line.text);
  // A figure that gates (hallucination everywhere, latency or throughput where the scenario says) and that the
  // runs could not compare keeps a ship from being said: a gate fails closed on what it could not see.
  const hallucination = statistics === 'anytime' ? input.changes?.hallucination : hallucinationChange(base, head);
  if (hallucination) (hallucination.worse ? holds : hallucination.insufficient ? unclear : seen).push(hallucination.text);

  for (const metric of ['ttftMs', 'e2eMs'] as const) {
    const v = verdict(metric);
    if (!v) continue;
    if (v.verdict === 'worse' && rules.latencyBlocks) holds.push(`${v.summary} — significantly worse beyond the margin; ${rules.why}`);
    else if (v.verdict === 'worse') seen.push(`${v.summary} — worse, not blocking: ${rules.why}`);
    else if (v.verdict === 'insufficient' && rules.latencyBlocks) unclear.push(`${v.summary} — latency gates the ${policy.scenario} scenario, so it must be compared`);
    else seen.push(v.summary);
  }

  const throughput = statistics === 'anytime' ? input.changes?.throughput : throughputChange(base.tokensPerSec, head.tokensPerSec);
  if (throughput) {
    if (throughput.worse && rules.throughputBlocks) holds.push(`${throughput.text} — significantly worse beyond the margin; ${rules.why}`);
    else if (throughput.insufficient && rules.throughputBlocks) unclear.push(`${throughput.text} — throughput gates the ${policy.scenario} scenario, so it must be compared`);
    else seen.push(throughput.text);
  }

  if (holds.length > 0) return { ...common, decision: 'hold', reasons: [...holds, ...unclear, ...seen], slo };
  if (unclear.length > 0) return { ...common, decision: 'insufficient', reasons: [...unclear, ...seen, 'Ship means the head meets every SLO: not yet shown.'], slo };
  const sloSummary = slo.length > 0 ? `${head.label} meets every SLO of the ${policy.scenario} scenario (${slo.map((s) => s.label).join(', ')}) and nothing that gates regressed` : `nothing that gates regressed (the ${policy.scenario} scenario sets no SLO)`;
  return { ...common, decision: 'ship', reasons: [`${sloSummary}; ${rules.why}.`, ...seen], slo };
}

/**
 * The hallucination rate, head against base (Fisher's exact test, as adherence): significantly higher
 * holds in every scenario — a wrong fact is a red line in knowledge-heavy use, whatever the latency.
 */
function hallucinationChange(base: RolloutSide, head: RolloutSide): Change | undefined {
  const b = base.hallucination;
  const h = head.hallucination;
  if (!b || !h) return undefined;
  const counts = `${base.label} ${b.hallucinated}/${b.total}, ${head.label} ${h.hallucinated}/${h.total} runs`;
  if (b.total < MIN_RUNS_FOR_CLAIM || h.total < MIN_RUNS_FOR_CLAIM) return { worse: false, insufficient: true, text: `hallucination: not enough judged runs to compare (${counts}; ${MIN_RUNS_FOR_CLAIM} each needed)` };
  const difference = h.hallucinated / h.total - b.hallucinated / b.total;
  const { pValue } = proportionTest(h.hallucinated, h.total, b.hallucinated, b.total);
  const worse = difference > 0 && pValue < ALPHA;
  const points = `${difference >= 0 ? '+' : ''}${Math.round(difference * 100)} pts`;
  return { worse, text: `hallucination ${points} (${counts}), ${worse ? `${formatP(pValue)} — significantly more hallucination` : pValue < ALPHA ? `${formatP(pValue)} — less hallucination` : `no significant difference (${formatP(pValue)})`}` };
}

/** Output tokens/s, median difference (head − base) with a bootstrap interval; higher is better. */
function throughputChange(base: readonly number[], head: readonly number[]): Change {
  if (base.length < MIN_RUNS_FOR_CLAIM || head.length < MIN_RUNS_FOR_CLAIM) return { worse: false, insufficient: true, text: `throughput: not enough runs with output tokens/s to compare (${base.length} and ${head.length}; ${MIN_RUNS_FOR_CLAIM} each needed)` };
  const { result, excludesZero, material } = medianShift(base, head, (baseMedian) => THROUGHPUT_MARGIN_SHARE * baseMedian);
  const worse = excludesZero && material && result.difference < 0;
  const change = `${result.difference >= 0 ? '+' : ''}${result.difference.toFixed(1)} tok/s`;
  return { worse, text: `throughput ${change} (median output tokens/s), ${excludesZero && material ? formatP(result.pValue) : 'no significant change'}` };
}

/**
 * A criterion measured outside the runs (capacity under load: compare/capacityCompare.ts) folded into
 * a decision with decideRollout's precedence: a hold wins over an unsettled criterion, which keeps a
 * ship from being said; a criterion only seen is reported. No change stays no change.
 */
export function withCriterion(d: RolloutDecision, c: { kind: 'holds' | 'unclear' | 'seen'; text: string }): RolloutDecision {
  if (d.decision === 'no-change' || c.kind === 'seen') return { ...d, reasons: [...d.reasons, c.text] };
  if (c.kind === 'holds') return { ...d, decision: 'hold', reasons: [c.text, ...(d.decision === 'ship' ? d.reasons.slice(1) : d.reasons)] };
  if (d.decision === 'ship') return { ...d, decision: 'insufficient', reasons: [c.text, ...d.reasons.slice(1), 'Ship means every gating criterion is met: not yet shown.'] };
  return { ...d, reasons: d.decision === 'hold' ? [d.reasons[0]!, c.text, ...d.reasons.slice(1)] : [c.text, ...d.reasons] };
}
