/**
 * A prompt rendered as it would be sent, with the files it refers to: its sample values (and the
 * `${file:}` files they name) and its Dotprompt partials, read inside its workspace. The one path for counting
 * (analysis.ts) and sending (run/promptRequest.ts), so what is counted is what is sent.
 */
import { findWorkspaceRoot } from '../files/workspaceFile';
import type { Prompt } from '../formats/model';
import { promptValues } from './promptValues';
import { loadPartials, type ReferenceNote } from './references';
import { renderPrompt, type PromptRendering } from './renderPrompt';

export interface PromptReferences {
  /** The prompt file on disk (none for unsaved documents and revisions from git history). */
  filePath?: string;
  /** More folders for Dotprompt partials (setting `promptInsight.render.partialFolders`, CLI `--partials`). */
  partialFolders?: readonly string[];
  /**
   * The editor's workspace folders: the one holding the file bounds what it may refer to. Absent (CLI),
   * the bound is the git repository holding the file (core/files/workspaceFile.ts findWorkspaceRoot).
   */
  workspaceFolders?: readonly string[];
}

export async function renderWithReferences(text: string, prompt: Prompt, vars: Record<string, unknown>, references: PromptReferences): Promise<{ rendering: PromptRendering; notes: ReferenceNote[] }> {
  const { filePath } = references;
  const root = filePath ? findWorkspaceRoot(filePath, references.workspaceFolders ? { workspaceFolders: references.workspaceFolders } : {}) : undefined;
  const { values, notes } = promptValues(prompt, filePath, vars, root);
  let partials: Record<string, string> = {};
  if (prompt.body?.engine === 'dotprompt' && filePath) {
    const loaded = loadPartials(filePath, text.slice(prompt.body.bodyStart), references.partialFolders, root);
    partials = loaded.partials;
    notes.push(...loaded.notes);
  }
  return { rendering: await renderPrompt(text, prompt, values, partials), notes };
}
