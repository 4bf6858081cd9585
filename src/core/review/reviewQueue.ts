/**
 * The review queue: answers people label, one check at a time, so that the labels file becomes the
 * team's gold set (issue 40, point 1). An item is one answer (from a stored run or comparison of the
 * prompt) and one of the prompt's checks; the queue leaves out what this reviewer already labelled,
 * so closing the panel and opening it again resumes where they stopped.
 *
 * Judged checks (llm-rubric, GitHub's llm evaluator) are the ones people's labels are the truth for;
 * a prompt without them offers its other checks, so people can still label what the code decides.
 */
import { createHash } from 'node:crypto';
import type { Label } from '../adherence/labelsFile';
import { suiteAssertions, type Assertion, type TestSuite } from '../adherence/testCases';
import { judgedChecks } from '../adherence/trustCard';
import type { StoredRun } from '../store/resultsStore';

/** The labels schema's bounds on a line's answer and context. */
const MAX_LABELLED_ANSWER = 200_000;
const MAX_LABELLED_CONTEXT = 400_000;

export interface ReviewCheck {
  /** The check's name in labels files: the assertion's metric, or its type and value. */
  name: string;
  assertion: Assertion;
  /** A GitHub llm evaluator's choices: labelled by their number as well as pass/fail. */
  choices: string[];
}

export interface ReviewItem {
  /** Stable across sessions: the check, the variables and the answer. */
  id: string;
  check: ReviewCheck;
  vars: Record<string, unknown>;
  answer: string;
  /** Retrieved passages the answer must keep to (RAG prompts). */
  context?: string;
  revision?: string;
  /** Where the answer came from, in words: "run of 2026-12-07 01:02 (working copy)". */
  origin: string;
  /** The judge's verdict on it, when a balanced queue was asked for (never shown before the label). */
  judge?: 'pass' | 'fail';
}

/** The checks people label for this suite: its judged checks, else every check of a content kind. */
export function reviewChecks(suite: TestSuite): ReviewCheck[] {
  const judged = judgedChecks(suite);
  // Latency checks are measured, never labelled.
  const chosen = judged.length > 0 ? judged : suiteAssertions(suite).filter((a) => a.type !== 'latency' && a.type !== 'ttft');
  const byName = new Map<string, ReviewCheck>();
  for (const assertion of chosen) {
    if (!byName.has(assertion.label)) byName.set(assertion.label, { name: assertion.label, assertion, choices: assertion.judge?.choices.map((c) => c.choice) ?? [] });
  }
  return [...byName.values()];
}

export function reviewItemId(check: string, vars: Record<string, unknown>, answer: string): string {
  return createHash('sha256').update(JSON.stringify([check, sortedKeys(vars), answer])).digest('hex').slice(0, 24);
}

/**
 * One item per (answer, check) the answer's test case is judged by: the stored runs that answered,
 * oldest first, the same answer to the same inputs once. A run of no test case (▶ Run with the
 * prompt's sample inputs, `sampleVars`) is offered every check.
 */
export function reviewItemsFromRuns(records: readonly StoredRun[], suite: TestSuite, checks: readonly ReviewCheck[], sampleVars: Record<string, unknown>): ReviewItem[] {
  const items: ReviewItem[] = [];
  const seen = new Set<string>();
  const ordered = [...records].sort((a, b) => a.at.localeCompare(b.at));
  for (const record of ordered) {
    // A label line keeps the whole answer (the labels schema's bound): a longer one is not offered.
    if (!record.run.ok || record.answer.trim() === '' || record.answerTruncated || record.answer.length > MAX_LABELLED_ANSWER) continue;
    const testCase = record.testCase === undefined ? undefined : suite.cases[record.testCase];
    if (record.testCase !== undefined && !testCase) continue;
    const vars = testCase?.vars ?? sampleVars;
    const caseChecks = new Set([...(suite.everyAnswer ?? []), ...(testCase?.assertions ?? [])].map((a) => a.label));
    for (const check of checks) {
      // A check belongs to the answer when its case (or every answer) carries it; a run without a case gets them all.
      if (testCase && !caseChecks.has(check.name)) continue;
      const id = reviewItemId(check.name, vars, record.answer);
      if (seen.has(id)) continue;
      seen.add(id);
      const joined = testCase?.context?.join('\n\n');
      const context = joined && joined.length <= MAX_LABELLED_CONTEXT ? joined : undefined;
      items.push({
        id, check, vars, answer: record.answer,
        ...(context ? { context } : {}),
        ...(record.revision ? { revision: record.revision } : {}),
        origin: `run of ${record.at.slice(0, 16).replace('T', ' ')}${record.revision ? ` (${revisionWords(record.revision)})` : ''}`,
      });
    }
  }
  return items;
}

/** The items this reviewer has not labelled yet (their labels of the same check, inputs and answer). */
export function notYetLabelled(items: readonly ReviewItem[], labels: readonly Label[], author: string): ReviewItem[] {
  const done = new Set(labels.filter((l) => l.source === 'HUMAN' && l.author === author).map((l) => reviewItemId(l.check, l.vars, l.answer)));
  return items.filter((item) => !done.has(item.id));
}

/**
 * Half the judge's passes, half its fails, alternating (so stopping early stays balanced): people see
 * the failures a judge flags as often as its passes, which a trust card needs both of. Items the judge
 * did not decide are left out. As many of each as the smaller side has.
 */
export function balancedQueue(items: readonly ReviewItem[]): ReviewItem[] {
  const passes = items.filter((i) => i.judge === 'pass');
  const fails = items.filter((i) => i.judge === 'fail');
  const each = Math.min(passes.length, fails.length);
  const queue: ReviewItem[] = [];
  for (let i = 0; i < each; i++) queue.push(fails[i]!, passes[i]!);
  return queue;
}

export type ReviewVerdict = { kind: 'pass' } | { kind: 'fail' } | { kind: 'choice'; value: string };

export interface LabelInput {
  item: ReviewItem;
  verdict: ReviewVerdict;
  author: string;
  time: Date;
  comment?: string;
  correction?: string;
}

/** The labels file line (schemas/labels.schema.json) for a reviewer's verdict, with its newline. */
export function labelLine(input: LabelInput): string {
  const { item } = input;
  const label = input.verdict.kind === 'choice' ? input.verdict.value : input.verdict.kind;
  const comment = input.comment?.trim();
  const correction = input.correction?.trim();
  return `${JSON.stringify({
    check: item.check.name,
    vars: item.vars,
    answer: item.answer,
    label,
    source: 'HUMAN',
    author: input.author,
    time: input.time.toISOString().replace(/\.\d{3}Z$/, 'Z'),
    ...(comment ? { comment } : {}),
    ...(correction ? { correction } : {}),
    ...(item.context ? { context: item.context } : {}),
    ...(item.revision ? { revision: item.revision } : {}),
  })}\n`;
}

function revisionWords(revision: string): string {
  if (revision === 'working') return 'working copy';
  if (revision === 'buffer') return 'unsaved editor text';
  return `revision ${revision.slice(0, 12)}`;
}

function sortedKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortedKeys);
  if (value && typeof value === 'object') return Object.fromEntries(Object.keys(value).sort().map((k) => [k, sortedKeys((value as Record<string, unknown>)[k])]));
  return value;
}
