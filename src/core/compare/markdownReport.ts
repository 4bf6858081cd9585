/**
 * A comparison as GitHub-flavoured Markdown, for a CI job summary ($GITHUB_STEP_SUMMARY) or a pull
 * request comment: the decision, its reasons, and a table of revisions × metrics, then the SLOs and
 * the verdicts. Text from the repository (commit subjects, test case names) and from the endpoint
 * (reasons quoting an error) is escaped, so it can neither break the table nor inject HTML,
 * links or @mentions.
 */
import { formatMs } from '../metrics/format';
import { metricName } from '../text/metricNames';
import type { VerdictKind } from '../stats/verdicts';
import type { PercentileTriple } from '../metrics/summary';
import type { RolloutDecisionKind, SloOutcome } from '../rollout/decision';
import type { ObjectiveJudgement } from '../rollout/sloJudgement';
import { policyText } from '../rollout/scenario';
import { longestBacktickRun } from '../text/backtickRuns';
import type { ComparisonResult } from './compare';
import type { RevisionResult } from './revisionResult';

export const DECISION_HEADLINES: Record<RolloutDecisionKind, string> = { ship: 'SHIP', hold: 'HOLD', insufficient: 'INSUFFICIENT EVIDENCE', 'no-change': 'NO CHANGE' };
/** A verdict in words (the JSON keeps its key). */
const VERDICT_WORDS: Record<VerdictKind, string> = { better: 'better', worse: 'worse', 'no-difference': 'no difference shown', insufficient: 'not enough runs' };
const DECISION_MARKS: Record<RolloutDecisionKind, string> = { ship: '✅', hold: '❌', insufficient: '⚠️', 'no-change': '➖' };

/** `extraLines`: more lines shown as written, escaped (compare --capacity's side by side). */
export function comparisonMarkdown(result: ComparisonResult, extras: { extraLines?: readonly string[] } = {}): string {
  const base = result.revisions[0];
  const head = result.revisions[result.revisions.length - 1];
  const decision = result.cancelled ? undefined : result.rollout?.decision;
  const title = decision ? `${DECISION_MARKS[decision]} ${DECISION_HEADLINES[decision]}` : result.cancelled ? '⏹️ CANCELLED' : '⚠️ NO DECISION';
  const lines = [
    `### Prompt gate: ${title} — ${code(result.file)} (${text(result.prompt)})`,
    '',
    `${head ? code(head.label) : '?'} vs ${base ? code(base.label) : '?'} · ${result.cases.length} test case(s) × ${result.runsPerCase} runs on ${text(result.endpoint)} (${text(result.model)})${result.simulated ? ' · **simulated endpoint**' : ''}`,
    '',
    `Scenario: ${text(policyText(result.policy))} — the ${result.policyOrigin} revision's policy judges the change.`,
    '',
  ];
  const reasons = result.rollout?.reasons ?? result.evidence.reasons;
  if (reasons.length > 0) lines.push('**Why**', '', ...reasons.map((reason) => `- ${text(reason)}`), '');
  lines.push(...revisionTable(result.revisions), '');
  if (result.rollout && result.rollout.slo.length > 0) lines.push(...sloTable(result.rollout.slo), '');
  if (result.verdicts.length > 0) {
    lines.push('| metric | change (head − base) | p | verdict |', '|---|---:|---:|---|');
    for (const v of result.verdicts) lines.push(`| ${metricName(v.metric)} | ${v.difference === null ? 'n/a' : v.metric === 'adherence' ? `${signed(v.difference * 100, 1)} pts` : `${signed(v.difference, 0)} ms`} | ${v.pValue === null ? 'n/a' : v.pValue < 0.001 ? '< 0.001' : v.pValue.toFixed(3)} | ${VERDICT_WORDS[v.verdict]} |`);
    lines.push('');
  }
  for (const change of result.policyChanges) lines.push(`- policy change: ${text(change.text)} (${text(change.why)})`);
  for (const line of extras.extraLines ?? []) lines.push(`- ${text(line)}`);
  for (const problem of result.problems) lines.push(`- ⚠️ ${text(problem)}`);
  return `${lines.join('\n').replace(/\n{3,}/g, '\n\n').trimEnd()}\n`;
}

function revisionTable(revisions: readonly RevisionResult[]): string[] {
  const rows = ['| revision | adherence | TTFT p50 | TTFT p90 | E2E p50 | E2E p90 | prompt tokens | runs |', '|---|---:|---:|---:|---:|---:|---:|---:|'];
  revisions.forEach((r, i) => {
    const role = revisions.length > 1 ? (i === 0 ? 'base' : i === revisions.length - 1 ? 'head' : '') : '';
    const name = `${code(r.label)}${role ? ` ${role}` : ''}${r.subject ? ` — ${text(r.subject.slice(0, 80))}` : ''}`;
    const a = r.adherence;
    const adherence = `${a.passed}/${a.total} ${pct(a.rate)}${a.ci95 ? ` [${pct(a.ci95[0])}–${pct(a.ci95[1])}]` : ''}${a.unscored ? ` (+${a.unscored} unscored)` : ''}`;
    const runs = `${r.runsNew} new${r.runsReused ? `, ${r.runsReused} reused` : ''}${r.failedRuns ? `, ${r.failedRuns} failed` : ''}`;
    rows.push(`| ${name} | ${adherence} | ${ms(r.ttftMs, 'p50')} | ${ms(r.ttftMs, 'p90')} | ${ms(r.e2eMs, 'p50')} | ${ms(r.e2eMs, 'p90')} | ${r.tokens ?? '?'} | ${runs}${r.error ? ` · ${text(r.error)}` : ''} |`);
  });
  return rows;
}

function sloTable(slo: readonly SloOutcome[]): string[] {
  const rows = ['| SLO | base | head |', '|---|---|---|'];
  for (const outcome of slo) {
    const settle = outcome.runsNeeded ? ` (≈${outcome.runsNeeded.runs} runs would settle it)` : '';
    rows.push(`| ${text(outcome.label)} | ${judgement(outcome.base)} | ${judgement(outcome.head)}${settle} |`);
  }
  return rows;
}

/** `met 92% [84%–96%] (n = 40)`: an SLO's status for one revision with its estimate and 95% interval. */
export function judgement(j: ObjectiveJudgement): string {
  const isRate = j.objective.metric === 'adherence' || j.objective.metric === 'hallucination';
  const value = (v: number | null) => (v === null ? '?' : isRate ? pct(v) : formatMs(v));
  const interval = j.estimate === null ? '' : ` ${value(j.estimate)} [${value(j.ci95[0])}–${value(j.ci95[1])}]`;
  return `${j.status}${interval} (n = ${j.n})`;
}

function ms(triple: PercentileTriple, at: 'p50' | 'p90'): string {
  const value = triple[at];
  return value === null ? 'n/a' : formatMs(value);
}

function pct(v: number | null): string {
  return v === null ? 'n/a' : `${Math.round(v * 100)}%`;
}

function signed(v: number, digits: number): string {
  return `${v > 0 ? '+' : v < 0 ? '−' : '±'}${Math.abs(v).toFixed(digits)}`;
}

const CONTROL = /[\u0000-\u001f\u007f-\u009f]/g;

/** Inline text from outside: one line, HTML and Markdown syntax escaped (`|` too, for table cells), no @mention. */
export function text(value: string): string {
  return value
    .replace(/[\r\n\t]+/g, ' ')
    .replace(CONTROL, '\ufffd')
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/([\\`*_{}[\]#+|~@])/g, '\\$1')
    .replace(/:\/\//g, '\\://')
    .replace(/\bwww\./gi, (m) => `${m.slice(0, 3)}\\.`);
}

/** A name shown as code: backticks long enough that none inside can close it, and `|` escaped for tables. */
function code(value: string): string {
  const clean = value.replace(/[\r\n\t]+/g, ' ').replace(CONTROL, '\ufffd');
  const fence = '`'.repeat(longestBacktickRun(clean) + 1);
  const pad = clean.startsWith('`') || clean.endsWith('`') ? ' ' : '';
  return `${fence}${pad}${clean.replace(/\|/g, '\\|')}${pad}${fence}`;
}
