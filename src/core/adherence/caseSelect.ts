/**
 * One test case picked out of a suite — `run --case 2`, `run --case "Bellevue family"`, the editor's
 * ▶ Run this case lens — so a single case can be run and checked on its own with its own inputs.
 */
import type { TestCase, TestSuite } from './testCases';

export interface SelectedCase {
  testCase: TestCase;
  /** Its index among the suite's cases (what stored runs of a comparison name as `testCase`). */
  index: number;
}

export class CaseSelectError extends Error {}

/**
 * `selector`: a number is the case's place in `tests:` as written, from 1 (`#1` as cases are named);
 * anything else is a case's description. Throws a CaseSelectError that says what the suite has.
 */
export function selectCase(suite: TestSuite, selector: string): SelectedCase {
  const wanted = selector.trim();
  if (suite.cases.length === 0) throw new CaseSelectError(`no test case to run: ${suite.problems[0] ?? `${suite.source} has none`}`);
  const positionOf = (c: TestCase, i: number): number => (c.position ?? i) + 1;
  if (/^\d+$/.test(wanted)) {
    const number = Number(wanted);
    const index = suite.cases.findIndex((c, i) => positionOf(c, i) === number);
    if (index >= 0) return { testCase: suite.cases[index]!, index };
    const skipped = suite.problems.find((p) => p.includes(`tests[${number - 1}]`));
    throw new CaseSelectError(skipped ?? `${suite.source} has no test case #${number} (it has ${suite.cases.map((c, i) => `#${positionOf(c, i)}`).join(', ')})`);
  }
  const matches = suite.cases.flatMap((c, index) => (c.description.trim() === wanted ? [{ testCase: c, index }] : []));
  if (matches.length === 1) return matches[0]!;
  if (matches.length > 1) throw new CaseSelectError(`${matches.length} test cases in ${suite.source} are described “${wanted}”: give its number instead (${matches.map((m) => `#${positionOf(m.testCase, m.index)}`).join(', ')})`);
  throw new CaseSelectError(`${suite.source} has no test case described “${wanted}” (its cases: ${suite.cases.map((c, i) => `#${positionOf(c, i)} ${c.description}`).join('; ')})`);
}
