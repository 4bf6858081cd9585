/**
 * The judge's pass or fail on one answer people labelled, asked as the check asks it in a run: the rubric
 * and choice judges on the answer and its inputs; the grounded evaluators (hallucination, faithfulness…)
 * on the answer against the passages — the test case's own when the label's inputs are a case's (its
 * passages as retrieved, and its reference), else the context the reviewer saw, kept on the label.
 */
import { isDeepStrictEqual } from 'node:util';
import { isGroundedType } from './assertionTypes';
import { groundedCheck } from './groundedChecks';
import { judgeCheck, type Judge } from './judgeChecks';
import type { Assertion, TestCase, TestSuite } from './testCases';

export interface LabelledAnswer {
  answer: string;
  vars: Record<string, unknown>;
  /** The context the reviewer saw (the labels file's `context`). */
  context?: string;
}

export type Grounding = Pick<TestCase, 'context' | 'contextProblem' | 'reference'>;

export type LabelledVerdict = { decided: true; says: 'pass' | 'fail'; reason: string } | { decided: false; reason: string };

/**
 * For a grounded check, the passages and reference of the suite's case with exactly these inputs, if there
 * is one; a check that reads no passages needs none, and no case is looked for.
 */
export function groundingOf(suite: TestSuite | undefined, assertion: Assertion, vars: Record<string, unknown>): Grounding | undefined {
  if (!isGroundedType(assertion.type)) return undefined;
  const testCase = suite?.cases.find((c) => isDeepStrictEqual(c.vars, vars));
  if (!testCase) return undefined;
  return { ...(testCase.context ? { context: testCase.context } : {}), ...(testCase.contextProblem ? { contextProblem: testCase.contextProblem } : {}), ...(testCase.reference !== undefined ? { reference: testCase.reference } : {}) };
}

/** What the judge's verdict on a grounded check depends on beyond the answer: its inputs and passages (the verdict store's key). */
export function labelledQuestion(assertion: Assertion, item: LabelledAnswer, grounding: Grounding | undefined): string {
  if (!isGroundedType(assertion.type)) return JSON.stringify(item.vars);
  return JSON.stringify([item.vars, grounding?.context ?? item.context ?? null, grounding?.reference ?? null]);
}

export async function judgeLabelled(assertion: Assertion, item: LabelledAnswer, judge: Judge, grounding?: Grounding): Promise<LabelledVerdict> {
  let verdict: { decided: true; holds: boolean; reason: string } | { decided: false; reason: string };
  if (isGroundedType(assertion.type)) {
    const passages = grounding?.context ?? (item.context ? [item.context] : undefined);
    verdict = await groundedCheck(assertion, item.answer, { vars: item.vars, ...(passages ? { context: passages } : {}), ...(!passages && grounding?.contextProblem ? { contextProblem: grounding.contextProblem } : {}), ...(grounding?.reference !== undefined ? { reference: grounding.reference } : {}) }, judge);
  } else {
    verdict = await judgeCheck(assertion, { answer: item.answer, vars: item.vars, ttftMs: null, e2eMs: null }, judge);
  }
  if (!verdict.decided) return verdict;
  // A negated check passes when the judge's criterion does not hold.
  return { decided: true, says: verdict.holds !== assertion.negate ? 'pass' : 'fail', reason: verdict.reason };
}
