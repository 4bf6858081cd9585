/**
 * What `prompt-insight run` says about its answers' test cases: pass, fail or unscored per run, with
 * the reason of each assertion that did not pass, and the adherence of the scored runs only.
 */
import type { RunCheck, RunCheckPlan } from '../core/adherence/runChecks';
import { adherenceOf, type AdherenceCounts } from '../core/adherence/score';

/** Runs listed one by one in the text output; the rest are counted. */
const LISTED_RUNS = 20;

export interface RunChecksSummary extends AdherenceCounts {
  /** What the answers were checked against, or why they were not. */
  against?: string;
  notChecked?: string;
}

export function summarizeRunChecks(plan: RunCheckPlan, checks: readonly (RunCheck | undefined)[]): RunChecksSummary {
  const counts = adherenceOf(checks.filter((c): c is RunCheck => c !== undefined).map((c) => ({ status: c.status, ...(c.reason ? { unscoredReason: c.reason } : {}) })));
  if (plan.cases.length === 0) return { notChecked: 'why' in plan ? plan.why : 'no test cases', ...counts };
  return { against: plan.cases.length === 1 ? `test case "${plan.cases[0]!.description}"` : `${plan.cases.length} test cases written for these sample values`, ...counts };
}

export function runChecksText(summary: RunChecksSummary, checks: readonly (RunCheck | undefined)[]): string {
  if (summary.notChecked) return `test cases: answers not checked — ${summary.notChecked}\n`;
  const rate = summary.rate === null ? 'no run could be scored' : `${Math.round(summary.rate * 100)}% of scored runs pass`;
  const lines = [`adherence (${summary.against}): ${summary.passed}/${summary.scored} pass${summary.unscored ? `, ${summary.unscored} unscored (not counted)` : ''} — ${rate}`];
  // Unscored runs share a few reasons (no judge, the endpoint down): one line per reason with its runs.
  const unscored = new Map<string, number[]>();
  let listed = 0;
  checks.forEach((check, i) => {
    if (!check || check.status === 'pass') return;
    if (check.status === 'unscored') {
      const reason = check.reason ?? check.failed.find((f) => f.outcome === 'unscored')?.reason ?? 'the run could not be scored';
      unscored.set(reason, [...(unscored.get(reason) ?? []), i + 1]);
      return;
    }
    if (++listed > LISTED_RUNS) return;
    lines.push(`  run ${i + 1}: fail — ${check.failed.map((f) => `${f.label}: ${f.reason}${f.outcome === 'unscored' ? ' (undecided)' : ''}`).join('; ')}`);
  });
  if (listed > LISTED_RUNS) lines.push(`  … ${listed - LISTED_RUNS} more failed runs (--json lists every run)`);
  for (const [reason, runs] of unscored) lines.push(`  ${runs.length === 1 ? `run ${runs[0]}` : `${runs.length} runs (${runNumbers(runs)})`}: unscored — ${reason}`);
  return `${lines.join('\n')}\n`;
}

/** `1–5, 8, 10–12` */
function runNumbers(runs: readonly number[]): string {
  const spans: string[] = [];
  for (let i = 0; i < runs.length; ) {
    let j = i;
    while (j + 1 < runs.length && runs[j + 1] === runs[j]! + 1) j++;
    spans.push(j > i ? `${runs[i]}–${runs[j]}` : `${runs[i]}`);
    i = j + 1;
  }
  return spans.join(', ');
}
