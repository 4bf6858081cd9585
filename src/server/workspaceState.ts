/**
 * What the server knows of the workspace and the client: its settings, folders, trust, and what the
 * client can do (pull configuration, refresh lenses). Analyses follow from it.
 */
import type { AnalysisOptions } from '../core/analysis';
import { DEFAULT_SERVER_SETTINGS, type ServerSettings } from '../protocol/lsp';

export interface WorkspaceState {
  settings: ServerSettings;
  workspaceFolders: string[];
  /** Restricted Mode until the client says the workspace is trusted (initializationOptions, then workspaceTrustedNotification). */
  workspaceTrusted: boolean;
  canPullConfiguration: boolean;
  canRefreshCodeLens: boolean;
}

export function initialWorkspaceState(): WorkspaceState {
  return { settings: DEFAULT_SERVER_SETTINGS, workspaceFolders: [], workspaceTrusted: false, canPullConfiguration: false, canRefreshCodeLens: false };
}

export function analysisOptions({ settings, workspaceFolders, workspaceTrusted }: WorkspaceState): AnalysisOptions {
  // workspaceFolders: `${file:}` values and partials are read only inside the folder holding the prompt.
  // workspaceTrusted: in Restricted Mode no template engine runs and no referenced file is read.
  // tokenizers: each folder is read by the rules of who named it (core/tokens/tokenizerFolder.ts).
  // tokenizeEndpoint: the endpoint ▶ Run uses counts models with no tokenizer at hand — never in Restricted Mode.
  const endpoint = workspaceTrusted && settings.tokens.tokenizeEndpoint ? { tokenizeEndpoint: { baseUrl: settings.tokens.tokenizeEndpoint } } : {};
  return { defaultModel: settings.tokens.defaultModel, tokenBudget: settings.tokens.budget, tokenizers: settings.tokens.tokenizers, ...endpoint, partialFolders: settings.partialFolders, workspaceFolders, workspaceTrusted };
}
