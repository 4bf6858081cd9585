/**
 * Pass/fail of a ▶ Run's answers. A run sends the prompt with its sample values, so it is checked
 * against the test cases written for exactly those values (Compare revisions runs every case). Each
 * answer gets a status — pass, fail, or unscored with the reason (a failed request is not a wrong
 * answer) — and the reason of each assertion that did not pass.
 */
import { canonicalJson } from '../endpoint/params';
import { combineGrounded, runGroundedOf } from './runGrounded';
import type { RunGrounded } from '../metrics/runRecord';
import { scoreRun, type CaseScore, type Judge, type ScoredRun } from './score';
import type { TestCase, TestSuite } from './testCases';
import { CLAIMS_AGAINST_CONTEXT } from './assertionTypes';

export type RunCheckStatus = 'pass' | 'fail' | 'unscored';

export interface RunCheck {
  status: RunCheckStatus;
  /** Why the run is unscored. */
  reason?: string;
  /** The test case it was checked against. */
  caseName?: string;
  /** Assertions that did not pass (failed or could not be decided), with their reasons. */
  failed: { label: string; reason: string; outcome: 'fail' | 'unscored' }[];
  /** The grounded verdict over the cases with grounded checks (kept on the stored run); absent when none has one. */
  grounded?: RunGrounded;
}

/** What the answers of a run are checked against: the matching cases, or why there are none. */
export type RunCheckPlan = { cases: TestCase[] } | { cases: []; why: string };

/**
 * The cases whose every input equals the value the run used (a case without inputs fits any run); a case
 * with production's turns never does: the run sent the prompt's own turns, not those.
 */
export function runCheckPlan(suite: TestSuite | undefined, inputs: Record<string, unknown>): RunCheckPlan {
  if (!suite || suite.cases.length === 0) return { cases: [], why: suite?.problems[0] ?? 'this prompt has no test cases' };
  const cases = suite.cases.filter((c) => !c.turns && Object.entries(c.vars).every(([name, value]) => name in inputs && canonicalJson(inputs[name]) === canonicalJson(value)));
  if (cases.length > 0) return { cases };
  return { cases: [], why: `none of the ${suite.cases.length} test case${suite.cases.length === 1 ? '' : 's'} in ${suite.source} uses the sample values this run sends; Compare revisions runs every case` };
}

/** Whether any of these cases judges the answer's claims against the context (then a run is stored with its verdict). */
export function hasClaimsChecks(cases: readonly TestCase[]): boolean {
  return cases.some((c) => c.assertions.some((a) => CLAIMS_AGAINST_CONTEXT.has(a.type)));
}

/** Optional fields a newer scorer sets (unscored runs and assertions); read when present. */
type ScoreWithStatus = Omit<CaseScore, 'status'> & { status?: RunCheckStatus; unscoredReason?: string };

/** Checks one answer against the plan's cases: it passes when it passes every one of them. */
export async function checkRun(plan: RunCheckPlan, run: ScoredRun, judge?: Judge): Promise<RunCheck | undefined> {
  if (plan.cases.length === 0) return undefined;
  if (!run.ok) return { status: 'unscored', reason: `the request failed${run.errorMessage ? `: ${run.errorMessage}` : ''}`, failed: [] };
  const failed: RunCheck['failed'] = [];
  let status: RunCheckStatus = 'pass';
  let reason: string | undefined;
  const grounded: (RunGrounded | undefined)[] = [];
  for (const testCase of plan.cases) {
    const score = (await scoreRun(testCase, run, judge)) as ScoreWithStatus;
    grounded.push(runGroundedOf(score.results.filter((_, i) => CLAIMS_AGAINST_CONTEXT.has(testCase.assertions[i]!.type))));
    const caseStatus: RunCheckStatus = score.status ?? (score.pass ? 'pass' : 'fail');
    for (const result of score.results) {
      const raw = (result as { outcome?: unknown }).outcome;
      // An assertion that could not decide (a judge missing, a regex past its deadline) is unscored, not failed.
      const outcome = raw === undefined ? (result.pass ? 'pass' : 'fail') : raw === 'pass' ? 'pass' : raw === 'undecided' || raw === 'unscored' ? 'unscored' : 'fail';
      if (outcome !== 'pass') failed.push({ label: result.label, reason: result.reason, outcome });
    }
    if (caseStatus === 'fail') status = 'fail';
    else if (caseStatus === 'unscored' && status === 'pass') {
      status = 'unscored';
      reason = score.unscoredReason ?? failed.find((f) => f.outcome === 'unscored')?.reason;
    }
  }
  const verdict = combineGrounded(grounded);
  return { status, ...(status === 'unscored' && reason ? { reason } : {}), ...(plan.cases.length === 1 ? { caseName: plan.cases[0]!.description } : {}), failed, ...(verdict ? { grounded: verdict } : {}) };
}
