/**
 * The text of a new tests file for a prompt that has none: one case with the prompt's sample inputs
 * and an assertion to fill in, so ▶ Run checks its answer as soon as the file is saved.
 */
import { stringify } from 'yaml';

export function starterTestsText(promptFileName: string, sampleInputs: Record<string, unknown>): string {
  const header = [
    `# Test cases of ${promptFileName} (promptfoo-style). ▶ Run checks its answer against the case written for its sample inputs;`,
    '# Compare revisions runs every case. Replace the assertion below with what a good answer must hold.',
  ].join('\n');
  const testCase = { description: 'the sample inputs', ...(Object.keys(sampleInputs).length > 0 ? { vars: sampleInputs } : {}), assert: [{ type: 'icontains', value: 'REPLACE with a phrase a good answer contains' }] };
  return `${header}\n${stringify({ tests: [testCase] }, { lineWidth: 0 })}`;
}
