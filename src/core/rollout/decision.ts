/**
 * One rollout decision for a change (base → head), following the prompt's scenario and SLOs:
 * - insufficient: the runs cannot carry a decision (too few succeeded, adherence not measurable);
 * - hold: adherence is significantly worse; or the head breaks an SLO (judged with its interval)
 *   that the base did not break; or, where the scenario gates on it, latency (interactive) or
 *   throughput (batch) is significantly worse beyond the practical margin;
 * - ship: otherwise. Latency changes inside the SLOs in decision and batch scenarios are reported,
 *   not blocking. Every reason cites its numbers.
 */
import { formatMs } from '../metrics/format';
import { formatP, medianShift, MIN_RUNS_FOR_CLAIM, type Verdict } from '../compare/verdicts';
import { SCENARIO_RULES, type RolloutPolicy } from './scenario';
import { judgeObjective, objectiveText, type ObjectiveJudgement, type SloEvidence } from './slo';

export type RolloutDecisionKind = 'ship' | 'hold' | 'insufficient';

export interface RolloutSide extends SloEvidence {
  rev: string;
  label: string;
  tokensPerSec: readonly number[];
}

export interface RolloutDecision {
  decision: RolloutDecisionKind;
  scenario: RolloutPolicy['scenario'];
  scenarioSource: string;
  base: string;
  head: string;
  /** Why, most important first: what holds it, then what was seen and did not. */
  reasons: string[];
  slo: { objective: string; base: ObjectiveJudgement; head: ObjectiveJudgement }[];
}

const THROUGHPUT_MARGIN_SHARE = 0.05;

function judgementText(j: ObjectiveJudgement): string {
  if (j.estimate === null) return 'no runs';
  const isRate = j.objective.metric === 'adherence';
  const value = (v: number | null) => (v === null ? '?' : isRate ? `${Math.round(v * 100)}%` : formatMs(v));
  const stat = j.objective.metric === 'adherence' ? 'adherence' : j.objective.percentile;
  return `${stat} ${value(j.estimate)} (95% CI ${value(j.ci95[0])}–${value(j.ci95[1])}, n = ${j.n})`;
}

export function decideRollout(input: { policy: RolloutPolicy; base: RolloutSide; head: RolloutSide; verdicts: readonly Verdict[]; evidence: { sufficient: boolean; reasons: readonly string[] } }): RolloutDecision {
  const { policy, base, head } = input;
  const rules = SCENARIO_RULES[policy.scenario];
  const common = { scenario: policy.scenario, scenarioSource: policy.scenarioSource, base: base.rev, head: head.rev };
  const slo = policy.objectives.map((objective) => ({ objective: objectiveText(objective), base: judgeObjective(objective, base), head: judgeObjective(objective, head) }));
  const verdict = (metric: Verdict['metric']) => input.verdicts.find((v) => v.metric === metric && v.base === base.rev && v.head === head.rev);
  const adherence = verdict('adherence');
  if (!input.evidence.sufficient || !adherence || adherence.verdict === 'insufficient') {
    const reasons = [...input.evidence.reasons];
    if (adherence?.verdict === 'insufficient' && !reasons.includes(adherence.summary)) reasons.push(adherence.summary);
    if (reasons.length === 0) reasons.push('adherence could not be compared');
    return { ...common, decision: 'insufficient', reasons: [...reasons, 'A gate fails closed: no decision without evidence.'], slo };
  }

  const holds: string[] = [];
  const seen: string[] = [];
  if (adherence.verdict === 'worse') holds.push(`${adherence.summary} — significantly worse`);
  else seen.push(adherence.summary + (adherence.verdict === 'better' ? ' — better' : ''));

  for (const s of slo) {
    const where = `SLO ${s.objective}`;
    if (s.head.status === 'broken' && s.base.status !== 'broken') holds.push(`${head.label} breaks ${where}: ${judgementText(s.head)}; ${base.label} did not (${judgementText(s.base)})`);
    else if (s.head.status === 'broken') seen.push(`both break ${where} (${base.label}: ${judgementText(s.base)}; ${head.label}: ${judgementText(s.head)}) — the change does not fix it`);
    else if (s.head.status === 'unclear') seen.push(`${where}: not established for ${head.label} — ${judgementText(s.head)}`);
    else seen.push(`${where} met by ${head.label}: ${judgementText(s.head)}`);
  }

  for (const metric of ['ttftMs', 'e2eMs'] as const) {
    const v = verdict(metric);
    if (!v) continue;
    if (v.verdict === 'worse' && rules.latencyBlocks) holds.push(`${v.summary} — significantly worse beyond the margin; ${rules.why}`);
    else if (v.verdict === 'worse') seen.push(`${v.summary} — worse, not blocking: ${rules.why}`);
    else seen.push(v.summary);
  }

  const throughput = throughputChange(base.tokensPerSec, head.tokensPerSec);
  if (throughput) {
    if (throughput.worse && rules.throughputBlocks) holds.push(`${throughput.text} — significantly worse beyond the margin; ${rules.why}`);
    else seen.push(throughput.text);
  }

  if (holds.length > 0) return { ...common, decision: 'hold', reasons: [...holds, ...seen], slo };
  return { ...common, decision: 'ship', reasons: [`${rules.why}.`, ...seen], slo };
}

/** Output tokens/s, median difference (head − base) with a bootstrap interval; higher is better. */
function throughputChange(base: readonly number[], head: readonly number[]): { worse: boolean; text: string } | undefined {
  if (base.length < MIN_RUNS_FOR_CLAIM || head.length < MIN_RUNS_FOR_CLAIM) return undefined;
  const { result, excludesZero, material } = medianShift(base, head, (baseMedian) => THROUGHPUT_MARGIN_SHARE * baseMedian);
  const worse = excludesZero && material && result.difference < 0;
  const change = `${result.difference >= 0 ? '+' : ''}${result.difference.toFixed(1)} tok/s`;
  return { worse, text: `throughput ${change} (median output tokens/s), ${excludesZero && material ? formatP(result.pValue) : 'no significant change'}` };
}
