/**
 * `promptInsight.tokens.tokenizers` as the language server gets it: every mapping tagged with who
 * wrote it. A folder from user settings is the user's to name; one from the workspace's settings
 * (a cloned repository's .vscode/settings.json) is read only inside the workspace, and not at all
 * until the workspace is trusted (the setting is also one of the restricted configurations).
 */
import { homedir } from 'node:os';
import { isAbsolute, join } from 'node:path';
import * as vscode from 'vscode';
import type { Middleware } from 'vscode-languageclient/node';
import type { TokenizerMappingSetting } from '../protocol/tokenizerSettings';

export function taggedTokenizerFolders(): TokenizerMappingSetting[] {
  const inspected = vscode.workspace.getConfiguration('promptInsight').inspect<unknown>('tokens.tokenizers');
  const mappings: TokenizerMappingSetting[] = [];
  const add = (value: unknown, origin: TokenizerMappingSetting['origin'], base: string | undefined) => {
    if (!value || typeof value !== 'object' || Array.isArray(value)) return;
    for (const [pattern, folder] of Object.entries(value)) {
      if (typeof folder !== 'string' || !folder.trim()) continue;
      const expanded = origin === 'user' && /^~[/\\]/.test(folder) ? join(homedir(), folder.slice(2)) : folder;
      const path = isAbsolute(expanded) ? expanded : base ? join(base, expanded) : undefined;
      if (path) mappings.push({ pattern, path, origin });
    }
  };
  if (vscode.workspace.isTrusted) {
    // Workspace values first: they override the user's for the same pattern (machine-overridable).
    const root = vscode.workspace.workspaceFolders?.find((f) => f.uri.scheme === 'file')?.uri.fsPath;
    add(inspected?.workspaceFolderValue, 'workspace', root);
    add(inspected?.workspaceValue, 'workspace', root);
  }
  add(inspected?.globalValue, 'user', undefined);
  return mappings;
}

/** The section `promptInsight` with its tokenizer folders tagged. */
export function withTaggedTokenizers(section: unknown): unknown {
  if (!section || typeof section !== 'object') return section;
  const tokens = (section as { tokens?: unknown }).tokens;
  return { ...section, tokens: { ...(tokens && typeof tokens === 'object' ? tokens : {}), tokenizers: taggedTokenizerFolders() } };
}

/** Answers the server's `workspace/configuration` pulls with the tagged folders. */
export const tokenizerConfigurationMiddleware: Middleware = {
  workspace: {
    configuration: async (params, token, next) => {
      const result = await next(params, token);
      if (!Array.isArray(result)) return result;
      return result.map((value: unknown, index: number) => (params.items[index]?.section === 'promptInsight' ? withTaggedTokenizers(value) : value));
    },
  },
};
