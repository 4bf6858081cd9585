/**
 * Commands the server's CodeLenses invoke and the extension registers, with their argument type.
 * No dependencies, so the extension can register them at activation without loading the LSP stack.
 */
export const CLIENT_COMMANDS = {
  runPrompt: 'promptInsight.runPrompt',
  runPromptRepeated: 'promptInsight.runPromptRepeated',
  showRuns: 'promptInsight.showRuns',
  compareRevisions: 'promptInsight.compareRevisions',
  showRendered: 'promptInsight.showRendered',
  showProduction: 'promptInsight.showProduction',
  runTestCase: 'promptInsight.runTestCase',
} as const;

export interface PromptCommandArgs {
  uri: string;
  promptName: string;
  promptIndex: number;
}

export function isPromptCommandArgs(value: unknown): value is PromptCommandArgs {
  const v = value as Partial<PromptCommandArgs> | null;
  return typeof v === 'object' && v !== null && typeof v.uri === 'string' && typeof v.promptName === 'string' && Number.isInteger(v.promptIndex);
}

/** ▶ Run this case, on a case of a tests file: the tests file, and the case's place in its `tests:` list (from 0). */
export interface TestCaseCommandArgs {
  uri: string;
  position: number;
  /** The case's description as written, for messages (empty when it has none). */
  description: string;
}

export function isTestCaseCommandArgs(value: unknown): value is TestCaseCommandArgs {
  const v = value as Partial<TestCaseCommandArgs> | null;
  return typeof v === 'object' && v !== null && typeof v.uri === 'string' && Number.isInteger(v.position) && (v.position ?? -1) >= 0 && typeof v.description === 'string';
}
