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
} as const;

/** The commands a hover may link to (its "all runs" and "production view" links): the client trusts these only. */
export const HOVER_LINK_COMMANDS: readonly string[] = [CLIENT_COMMANDS.showRuns, CLIENT_COMMANDS.showProduction, CLIENT_COMMANDS.showRendered];

export interface PromptCommandArgs {
  uri: string;
  promptName: string;
  promptIndex: number;
}

export function isPromptCommandArgs(value: unknown): value is PromptCommandArgs {
  const v = value as Partial<PromptCommandArgs> | null;
  return typeof v === 'object' && v !== null && typeof v.uri === 'string' && typeof v.promptName === 'string' && Number.isInteger(v.promptIndex);
}
