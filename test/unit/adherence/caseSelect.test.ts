/** ▶ Run this case and `run --case`: which case a number or description names, and which prompt a tests file belongs to. */
import { describe, expect, it } from 'vitest';
import { selectCase } from '../../../src/core/adherence/caseSelect';
import { promptsOfTestsFile } from '../../../src/core/adherence/testsFilePrompts';
import type { TestCase, TestSuite } from '../../../src/core/adherence/testCases';

const testCase = (description: string, position: number): TestCase => ({ description, vars: { city: description }, assertions: [{ type: 'contains', negate: false, value: 'x', weight: 1, label: 'contains "x"' }], threshold: 1, position });
// tests[1] had no usable assertion: skipped, so the third case written is the second one here.
const suite: TestSuite = { cases: [testCase('Paris', 0), testCase('Oslo', 2), testCase('Oslo', 3)], source: 'greet.tests.yaml', problems: ['greet.tests.yaml: tests[1] has no usable assertion; it is skipped.'] };

describe('selectCase', () => {
  it('a number is the place in tests: as written, not the index among usable cases', () => {
    expect(selectCase(suite, '3')).toEqual({ testCase: suite.cases[1], index: 1 });
    expect(selectCase(suite, ' 1 ')).toEqual({ testCase: suite.cases[0], index: 0 });
  });

  it('a skipped case says why; a missing number lists the cases there are', () => {
    expect(() => selectCase(suite, '2')).toThrow('tests[1] has no usable assertion');
    expect(() => selectCase(suite, '7')).toThrow('greet.tests.yaml has no test case #7 (it has #1, #3, #4)');
  });

  it('a description names one case; two cases of one description ask for the number', () => {
    expect(selectCase(suite, 'Paris').index).toBe(0);
    expect(() => selectCase(suite, 'Oslo')).toThrow('give its number instead (#3, #4)');
    expect(() => selectCase(suite, 'Rome')).toThrow('no test case described “Rome”');
    expect(() => selectCase({ cases: [], source: 'x.tests.yaml', problems: ['No test cases: add x.tests.yaml'] }, '1')).toThrow('No test cases');
  });
});

describe('promptsOfTestsFile', () => {
  it('lists the prompt files beside it that read it, never a .prompt.yml or another file', () => {
    const names = ['homes.prompty', 'homes.prompt.md', 'homes.prompt.yml', 'homes.tests.yaml', 'homes.sim.yaml', 'homes.md', 'listings.prompty', 'README.md'];
    expect(promptsOfTestsFile('homes.tests.yaml', names)).toEqual(['homes.prompt.md', 'homes.prompty']);
    expect(promptsOfTestsFile('listings.tests.yaml', names)).toEqual(['listings.prompty']);
    expect(promptsOfTestsFile('other.tests.yaml', names)).toEqual([]);
  });
});
