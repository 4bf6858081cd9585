/**
 * Custom LSP messages between the extension and the language server: one typed definition each,
 * with a guard the receiver runs before trusting the payload.
 */
import { isAbsolute } from 'node:path';
import { NotificationType, RequestType } from 'vscode-languageserver-protocol';

export { CLIENT_COMMANDS, isPromptCommandArgs, isTestCaseCommandArgs, type PromptCommandArgs, type TestCaseCommandArgs } from './commands';
import { readProductionSettings, type ProductionSettings } from '../core/telemetry/productionSettings';
import { readTokenizerSettings, type TokenizerSettings } from './tokenizerSettings';

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

/** What a prompt sends: its messages rendered as its runtime would (the token count lens opens this). */
export interface RenderedPromptParams {
  uri: string;
  promptIndex: number;
}

export interface RenderedPrompt {
  name: string;
  model: string;
  modelFromFile: boolean;
  encoding: string;
  totalTokens: number;
  messages: { role: string; name?: string; content: string; tokens: number; mediaParts: number; line: number }[];
  /** Diagnostics that say what the count assumed (unresolved variables, unread references, template errors). */
  notes: string[];
}

export const renderedPromptRequest = new RequestType<RenderedPromptParams, RenderedPrompt | null, void>('promptInsight/renderedPrompt');

export function isRenderedPromptParams(value: unknown): value is RenderedPromptParams {
  const v = value as Partial<RenderedPromptParams> | null;
  return typeof v === 'object' && v !== null && typeof v.uri === 'string' && Number.isInteger(v.promptIndex);
}

/** The extension appended runs to the results store: the server re-reads it and refreshes lenses. */
export const runsChangedNotification = new NotificationType<RunsChangedParams>('promptInsight/runsChanged');

export interface RunsChangedParams {
  storePath: string;
}

export function isRunsChangedParams(value: unknown): value is RunsChangedParams {
  const v = value as Partial<RunsChangedParams> | null;
  return typeof v === 'object' && v !== null && typeof v.storePath === 'string' && v.storePath.length > 0;
}

/** The user trusted the workspace (VS Code's onDidGrantWorkspaceTrust): the server starts rendering templates. Trust is never withdrawn without a restart. */
export const workspaceTrustedNotification = new NotificationType<Record<string, never>>('promptInsight/workspaceTrusted');

/** What the extension passes at start-up besides settings. */
export interface ServerInitOptions {
  settings?: unknown;
  /** The workspace's results store (JSON lines), read for the run lenses and hover estimates. */
  storePath?: string;
  /** Workspace folder paths, to match stored runs (workspace-relative) to documents. */
  workspaceFolders?: string[];
  /**
   * VS Code's workspace trust. Untrusted — also when the client says nothing — means Restricted
   * Mode: no template is rendered and no file a prompt names is read; sources are counted as written.
   */
  workspaceTrusted?: boolean;
}

export function readServerInitOptions(value: unknown): ServerInitOptions {
  const v = (value ?? {}) as { settings?: unknown; storePath?: unknown; workspaceFolders?: unknown; workspaceTrusted?: unknown };
  return {
    settings: v.settings,
    workspaceTrusted: v.workspaceTrusted === true,
    ...(typeof v.storePath === 'string' && v.storePath ? { storePath: v.storePath } : {}),
    ...(Array.isArray(v.workspaceFolders) ? { workspaceFolders: v.workspaceFolders.filter((f): f is string => typeof f === 'string') } : {}),
  };
}

/** Settings the server reads (section `promptInsight`). */
export interface ServerSettings {
  tokens: { defaultModel: string; budget: number } & TokenizerSettings;
  /** Extra folders for Dotprompt partials (absolute paths). */
  partialFolders: string[];
  run: { repeats: number };
  /** Production sources for the hover and lens (read only in a trusted workspace). */
  production: ProductionSettings;
}

export const DEFAULT_SERVER_SETTINGS: ServerSettings = { tokens: { defaultModel: 'gpt-4o', budget: 0, tokenizers: [] }, run: { repeats: 10 }, partialFolders: [], production: { sources: [], problems: [] } };

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


/** Settings arrive from the user's configuration: take what is well-typed, default the rest. */
export function readServerSettings(value: unknown): ServerSettings {
  const raw = value as { tokens?: { defaultModel?: unknown; budget?: unknown; tokenizers?: unknown }; run?: { repeats?: unknown; endpoint?: unknown }; endpoints?: unknown; render?: { partialFolders?: unknown }; production?: unknown } | null;
  const tokens = raw?.tokens;
  const defaultModel = typeof tokens?.defaultModel === 'string' && tokens.defaultModel.trim() ? tokens.defaultModel.trim() : DEFAULT_SERVER_SETTINGS.tokens.defaultModel;
  const budget = typeof tokens?.budget === 'number' && Number.isFinite(tokens.budget) && tokens.budget > 0 ? tokens.budget : 0;
  const repeats = raw?.run?.repeats;
  const folders = raw?.render?.partialFolders;
  const partialFolders = Array.isArray(folders) ? folders.filter((f): f is string => typeof f === 'string' && isAbsolute(f)) : [];
  return { tokens: { defaultModel, budget, ...readTokenizerSettings(raw) }, run: { repeats: typeof repeats === 'number' && Number.isInteger(repeats) && repeats >= 1 && repeats <= 10_000 ? repeats : DEFAULT_SERVER_SETTINGS.run.repeats }, partialFolders, production: readProductionSettings(raw?.production) };
}
