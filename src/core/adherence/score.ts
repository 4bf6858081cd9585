/**
 * Scores one run's answer against a test case. Every assertion comes out pass, fail or UNDECIDED
 * (no judge configured, a judge that failed or answered off-format, a regex or schema that could not
 * run, an answer too long to score), each with a reason in plain words. The run is:
 * - pass / fail when the decided assertions settle it at the case threshold whatever the undecided
 *   ones would say (a run that already fails a string check fails, judge or not);
 * - UNSCORED otherwise, and whenever the run itself failed (connection refused, timeout, HTTP
 *   error): it is neither a pass nor a 0, and adherence counts scored runs only (adherenceOf).
 * The answer checks run in a worker thread with a deadline (scoreWorkerClient.ts); judges are
 * network calls and run here.
 */
import { JUDGE_TYPES, type CheckVerdict } from './checkText';
import { groundedCheck, type GroundedDetail } from './groundedChecks';
import { isGroundedType } from './assertionTypes';
import { CASE_CHECK_TYPES, contextPrecisionCheck } from './contextPrecision';
import { judgeCheck, type Judge } from './judgeChecks';
import { runChecks, type CheckOptions } from './scoreWorkerClient';
import type { Assertion, TestCase } from './testCases';

export type { Judge } from './judgeChecks';
export { parseJudgeVerdict } from './judgeChecks';

export interface ScoredRun {
  answer: string;
  ok: boolean;
  ttftMs: number | null;
  e2eMs: number | null;
  errorMessage?: string;
  /** Passages the prompt's retrieval step gave this run: the context its grounded evaluators judge against, in place of the case's. */
  retrieved?: readonly { text: string; id?: string }[];
}

export type AssertionOutcome = 'pass' | 'fail' | 'undecided';

export interface AssertionResult {
  label: string;
  outcome: AssertionOutcome;
  /** Why, in plain words: "expected \"single-family\" (case-sensitive); the answer has \"Single-family\"", "no judge configured …". */
  reason: string;
  /** outcome === 'pass' (kept for readers of the earlier shape). */
  pass: boolean;
  /** 0–1: a judge's grade, else 1 for pass and 0 for fail; 0 when undecided. */
  score: number;
  weight: number;
  /** Grounded evaluators: claim counts, hallucination, precision/recall and each verdict cited. */
  grounded?: GroundedDetail;
}

export type RunScoreStatus = 'pass' | 'fail' | 'unscored';

export interface CaseScore {
  status: RunScoreStatus;
  /** Why the run is unscored (only then): the run's error, or the first undecided assertion that mattered. */
  unscoredReason?: string;
  /** Weighted share of assertions passed; null when unscored. */
  score: number | null;
  /** status === 'pass' (kept for readers of the earlier shape). */
  pass: boolean;
  results: AssertionResult[];
}

export type ScoreOptions = CheckOptions;

export async function scoreRun(given: TestCase, run: ScoredRun, judge?: Judge, options: ScoreOptions = {}): Promise<CaseScore> {
  const testCase = run.retrieved ? withRetrievedContext(given, run.retrieved) : given;
  if (!run.ok) {
    const reason = `the run failed${run.errorMessage ? `: ${run.errorMessage}` : ''}, so its answer was not scored`;
    const results = testCase.assertions.map((a) => resultOf(a, { decided: false, reason }));
    return { status: 'unscored', unscoredReason: reason, score: null, pass: false, results };
  }
  const input = { answer: run.answer, vars: testCase.vars, ttftMs: run.ttftMs, e2eMs: run.e2eMs };
  const checked = testCase.assertions.filter((a) => !JUDGE_TYPES.has(a.type) && !CASE_CHECK_TYPES.has(a.type));
  const checkVerdicts = await runChecks(checked, input, options);
  const verdicts = new Map<Assertion, CheckVerdict>(checked.map((a, i) => [a, checkVerdicts[i]!]));
  // One question asked once per run: faithfulness and hallucination on one case share the claims.
  const asked = judge ? onceEach(judge) : undefined;
  for (const assertion of testCase.assertions) {
    if (CASE_CHECK_TYPES.has(assertion.type)) verdicts.set(assertion, contextPrecisionCheck(assertion, testCase));
    else if (isGroundedType(assertion.type)) verdicts.set(assertion, await groundedCheck(assertion, run.answer, testCase, asked));
    else if (JUDGE_TYPES.has(assertion.type)) verdicts.set(assertion, await judgeCheck(assertion, input, asked));
  }
  const results = testCase.assertions.map((a) => resultOf(a, verdicts.get(a)!));
  return settle(results, testCase.threshold);
}

/** The case with the run's retrieved passages as its context (ids kept for context-precision). */
function withRetrievedContext(testCase: TestCase, passages: readonly { text: string; id?: string }[]): TestCase {
  const { contextProblem: _dropped, ...rest } = testCase;
  return { ...rest, context: passages.map((p) => p.text), passageIds: passages.map((p) => p.id ?? null) };
}

/** An assertion's outcome from the check's verdict, with `not-` applied; judges keep their grade. */
function resultOf(assertion: Assertion, verdict: CheckVerdict & { grounded?: GroundedDetail }): AssertionResult {
  const base = { label: assertion.label, weight: assertion.weight, reason: verdict.reason, ...(verdict.decided && verdict.grounded ? { grounded: verdict.grounded } : {}) };
  if (!verdict.decided) return { ...base, outcome: 'undecided', pass: false, score: 0 };
  const pass = assertion.negate ? !verdict.holds : verdict.holds;
  const graded = verdict.score !== undefined ? (assertion.negate ? 1 - verdict.score : verdict.score) : pass ? 1 : 0;
  return { ...base, outcome: pass ? 'pass' : 'fail', pass, score: graded };
}

/** The same judge question is asked once (within a run, and — where a caller keeps it — across runs). */
export function onceEach(judge: Judge): Judge {
  const replies = new Map<string, Promise<string>>();
  return (messages) => {
    const key = JSON.stringify(messages);
    let reply = replies.get(key);
    if (!reply) replies.set(key, (reply = judge(messages)));
    return reply;
  };
}

/** Pass or fail when the undecided assertions cannot change it; else unscored, naming the first that mattered. */
function settle(results: AssertionResult[], threshold: number): CaseScore {
  const total = results.reduce((s, r) => s + r.weight, 0);
  const passed = results.reduce((s, r) => s + (r.outcome === 'pass' ? r.weight : 0), 0);
  const open = results.reduce((s, r) => s + (r.outcome === 'undecided' ? r.weight : 0), 0);
  const share = (w: number): number => (total === 0 ? 0 : w / total);
  const atLeast = share(passed);
  const atMost = share(passed + open);
  const bar = threshold - 1e-12;
  if (atLeast >= bar) return { status: 'pass', score: atLeast, pass: true, results };
  if (atMost < bar) return { status: 'fail', score: atLeast, pass: false, results };
  const first = results.find((r) => r.outcome === 'undecided')!;
  return { status: 'unscored', unscoredReason: `${first.label}: ${first.reason}`, score: null, pass: false, results };
}

export interface AdherenceCounts {
  passed: number;
  /** Runs scored pass or fail: the denominator of adherence. */
  scored: number;
  unscored: number;
  /** passed / scored; null when nothing could be scored. */
  rate: number | null;
  /** Unscored runs by reason, most frequent first. */
  unscoredReasons: { reason: string; runs: number }[];
}

/** Adherence over scored runs only: an unscored run is counted apart with its reason, never as a 0. */
export function adherenceOf(scores: readonly Pick<CaseScore, 'status' | 'unscoredReason'>[]): AdherenceCounts {
  let passed = 0;
  let scored = 0;
  const reasons = new Map<string, number>();
  for (const s of scores) {
    if (s.status === 'unscored') {
      const reason = s.unscoredReason ?? 'the run could not be scored';
      reasons.set(reason, (reasons.get(reason) ?? 0) + 1);
    } else {
      scored++;
      if (s.status === 'pass') passed++;
    }
  }
  const unscoredReasons = [...reasons].map(([reason, runs]) => ({ reason, runs })).sort((a, b) => b.runs - a.runs);
  return { passed, scored, unscored: scores.length - scored, rate: scored > 0 ? passed / scored : null, unscoredReasons };
}
