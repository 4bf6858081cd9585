/** Open Tests File on a prompt without one: the starter is a valid tests file whose one case has the prompt's sample inputs. */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { checkTestsFile } from '../../../src/core/adherence/testsFileCheck';
import { loadTestSuite } from '../../../src/core/adherence/testCases';
import { starterTestsText } from '../../../src/core/adherence/testsStarter';
import { parsePromptFile } from '../../../src/core/formats/detect';
import { runCheckPlan } from '../../../src/core/adherence/runChecks';

describe('starterTestsText', () => {
  it('is clean to the tests-file schema and its case is the one ▶ Run checks against', () => {
    const file = 'examples/homes/homes.prompty';
    const text = readFileSync(file, 'utf8');
    const prompt = parsePromptFile(file, text).prompts[0]!;
    const starter = starterTestsText('homes.prompty', prompt.inputs);
    const checked = checkTestsFile(starter);
    expect(checked.parseErrors).toEqual([]);
    expect(checked.findings).toEqual([]);
    const suite = loadTestSuite(file, text, 'prompty', prompt, () => starter);
    expect(suite.cases).toHaveLength(1);
    expect(suite.cases[0]!.vars).toEqual({ city: 'Bellevue, WA', request: 'Find homes nearby with at least three bedrooms.' });
    expect(runCheckPlan(suite, prompt.inputs).cases).toHaveLength(1);
  });
});
