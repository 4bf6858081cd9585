/**
 * Add This Answer as a Test Case: the run's inputs and a stub assertion appended to the tests file,
 * its comments and cases kept; the new case is clean to the schema, and the answer it came from passes it.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { checkTestsFile } from '../../../src/core/adherence/testsFileCheck';
import { loadTestSuite } from '../../../src/core/adherence/testCases';
import { scoreRun } from '../../../src/core/adherence/score';
import { parsePromptFile } from '../../../src/core/formats/detect';
import { appendAnswerCase, readTestsFile } from '../../../src/core/sampling/testsFileAppend';

const ANSWER = '\n1. Single-family house · $1,150,000 · 14820 NE 8th St, Bellevue, a quiet street near the park\n2. Single-family house · $985,000\n';
const VARS = { city: 'Bellevue, WA', request: 'Find homes nearby with at least three bedrooms.' };

describe('appendAnswerCase', () => {
  it('appends one case with the run’s inputs after the existing ones, keeping the file’s comments', () => {
    const before = readFileSync('examples/homes/homes.tests.yaml', 'utf8');
    const after = appendAnswerCase(readTestsFile(before, 'homes.tests.yaml'), { vars: VARS, answer: ANSWER, from: 'run at 16:05:09 on llama.cpp' });
    expect(after.startsWith(before.split('tests:')[0]!)).toBe(true); // header comments and scenario unchanged
    const checked = checkTestsFile(after);
    expect(checked.parseErrors).toEqual([]);
    expect(checked.findings).toEqual([]);
    const file = 'examples/homes/homes.prompty';
    const text = readFileSync(file, 'utf8');
    const suite = loadTestSuite(file, text, 'prompty', parsePromptFile(file, text).prompts[0]!, () => after);
    expect(suite.cases).toHaveLength(2);
    expect(suite.cases[1]).toMatchObject({ description: 'answer of the run at 16:05:09 on llama.cpp', vars: VARS, position: 1 });
    // The stub is the answer's first line cut to a phrase at a word: the answer it came from passes it.
    // (The file's defaultTest checks come first in every case; the stub is the case's own.)
    expect(suite.cases[1]!.assertions.find((a) => a.label?.startsWith('stub'))).toMatchObject({ type: 'icontains', value: '1. Single-family house · $1,150,000 · 14820 NE 8th St,', label: 'stub: make this what a good answer must hold' });
    return scoreRun(suite.cases[1]!, { answer: ANSWER, ok: true, ttftMs: 100, e2eMs: 500 }).then((score) => expect(score.pass).toBe(true));
  });

  it('starts a tests file when the prompt has none', () => {
    const text = appendAnswerCase(readTestsFile(undefined, 'greet.tests.yaml'), { vars: {}, answer: 'Hello!', from: 'run at 09:00:00 on sim' });
    expect(checkTestsFile(text).findings).toEqual([]);
    expect(text).toMatch(/tests:\n {2}- description: answer of the run at 09:00:00 on sim\n {4}assert:\n {6}- type: icontains\n {8}value: Hello!/);
  });
});
