/**
 * Custom LSP messages between the extension and the language server: one typed definition each,
 * with a guard the receiver runs before trusting the payload.
 */
import { RequestType } from 'vscode-languageserver-protocol';

export interface WireRange {
  start: { line: number; character: number };
  end: { line: number; character: number };
}

export interface TokenSummaryParams {
  uri: string;
  position: { line: number; character: number };
  selections: WireRange[];
}

export interface TokenSummary {
  /** The prompt the cursor is in, if the document has any. */
  prompt?: { name: string; totalTokens: number; model: string; encoding: string; exact: boolean };
  /** Tokens of the selected text (raw, no template substitution), when something is selected. */
  selectionTokens?: number;
}

export const tokenSummaryRequest = new RequestType<TokenSummaryParams, TokenSummary | null, void>('promptInsight/tokenSummary');

/** Settings the server reads (section `promptInsight`). */
export interface ServerSettings {
  tokens: { defaultModel: string; budget: number };
}

export const DEFAULT_SERVER_SETTINGS: ServerSettings = { tokens: { defaultModel: 'gpt-4o', budget: 0 } };

/** Commands the server's CodeLenses invoke; the extension registers them. */
export const CLIENT_COMMANDS = {
  runPrompt: 'promptInsight.runPrompt',
  compareRevisions: 'promptInsight.compareRevisions',
} as const;

export interface PromptCommandArgs {
  uri: string;
  promptName: string;
  promptIndex: number;
}

function isPosition(value: unknown): value is { line: number; character: number } {
  const v = value as { line?: unknown; character?: unknown } | null;
  return typeof v === 'object' && v !== null && Number.isInteger(v.line) && Number.isInteger(v.character) && (v.line as number) >= 0 && (v.character as number) >= 0;
}

function isRange(value: unknown): value is WireRange {
  const v = value as { start?: unknown; end?: unknown } | null;
  return typeof v === 'object' && v !== null && isPosition(v.start) && isPosition(v.end);
}

export function isTokenSummaryParams(value: unknown): value is TokenSummaryParams {
  const v = value as Partial<TokenSummaryParams> | null;
  return typeof v === 'object' && v !== null && typeof v.uri === 'string' && isPosition(v.position) && Array.isArray(v.selections) && v.selections.length <= 1000 && v.selections.every(isRange);
}

export function isPromptCommandArgs(value: unknown): value is PromptCommandArgs {
  const v = value as Partial<PromptCommandArgs> | null;
  return typeof v === 'object' && v !== null && typeof v.uri === 'string' && typeof v.promptName === 'string' && Number.isInteger(v.promptIndex);
}

/** Settings arrive from the user's configuration: take what is well-typed, default the rest. */
export function readServerSettings(value: unknown): ServerSettings {
  const tokens = (value as { tokens?: { defaultModel?: unknown; budget?: unknown } } | null)?.tokens;
  const defaultModel = typeof tokens?.defaultModel === 'string' && tokens.defaultModel.trim() ? tokens.defaultModel.trim() : DEFAULT_SERVER_SETTINGS.tokens.defaultModel;
  const budget = typeof tokens?.budget === 'number' && Number.isFinite(tokens.budget) && tokens.budget > 0 ? tokens.budget : 0;
  return { tokens: { defaultModel, budget } };
}
