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
  sampleIntoTests: 'promptInsight.sampleIntoTests',
  decideGrayRelease: 'promptInsight.decideGrayRelease',
  runTestCase: 'promptInsight.runTestCase',
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

/**
 * What `promptInsight.compareRevisions` accepts: the CodeLens's prompt arguments, or `{ uri, policy? }`
 * from another command — e.g. after production samples became test cases, `policy: 'head'` opens the
 * panel judging with the working copy's tests, working copy vs HEAD preselected.
 */
export interface CompareCommandArgs {
  uri: string;
  promptName?: string;
  policy?: 'base' | 'head';
}

export function isCompareCommandArgs(value: unknown): value is CompareCommandArgs {
  const v = value as Partial<Record<keyof CompareCommandArgs, unknown>> | null;
  return (
    typeof v === 'object' && v !== null && typeof v.uri === 'string' &&
    (v.promptName === undefined || typeof v.promptName === 'string') &&
    (v.policy === undefined || v.policy === 'base' || v.policy === 'head')
  );
}

/**
 * The production actions' argument (*Sample Production into Tests…*, *Decide Gray Release*), from the
 * Production page's buttons: the prompt, and what the page showed — a version, a range of ISO times.
 * From the palette there is none: the active prompt file, and the pickers' defaults.
 */
export interface ProductionActionArgs {
  uri: string;
  promptIndex?: number;
  version?: string;
  since?: string;
  until?: string;
}

const isIsoTime = (v: unknown): boolean => typeof v === 'string' && v.length <= 40 && /^\d{4}-\d{2}-\d{2}/.test(v) && Number.isFinite(Date.parse(v));

export function isProductionActionArgs(value: unknown): value is ProductionActionArgs {
  const v = value as Partial<ProductionActionArgs> | null;
  return (
    typeof v === 'object' && v !== null && typeof v.uri === 'string' &&
    (v.promptIndex === undefined || (Number.isInteger(v.promptIndex) && v.promptIndex >= 0)) &&
    (v.version === undefined || (typeof v.version === 'string' && v.version.length > 0 && v.version.length <= 256)) &&
    (v.since === undefined || isIsoTime(v.since)) && (v.until === undefined || isIsoTime(v.until))
  );
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
