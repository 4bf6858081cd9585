/**
 * The prompt a review command works on: the one its arguments name, else the active editor's first,
 * read from disk (labels and cards are about the saved file). Says why when there is none.
 */
import * as vscode from 'vscode';
import { loadTestSuite, type TestSuite } from '../../core/adherence/testCases';
import type { Prompt } from '../../core/formats/model';
import { promptsOf } from '../../core/formats/promptFile';
import { isPromptCommandArgs } from '../../protocol/commands';

export interface SavedPrompt {
  uri: vscode.Uri;
  /** The file's text, as read. */
  text: string;
  prompt: Prompt;
  suite: TestSuite;
}

/** `purpose` finishes "open a prompt file saved on disk to …". */
export async function savedPrompt(args: unknown, purpose: string): Promise<SavedPrompt | undefined> {
  const uri = isPromptCommandArgs(args) ? vscode.Uri.parse(args.uri) : vscode.window.activeTextEditor?.document.uri;
  if (!uri || uri.scheme !== 'file') {
    void vscode.window.showInformationMessage(`Prompt Insight: open a prompt file saved on disk to ${purpose}.`);
    return undefined;
  }
  const found = await promptsOf(uri.fsPath, undefined);
  if ('error' in found) {
    void vscode.window.showErrorMessage(`Prompt Insight: ${found.error}`);
    return undefined;
  }
  const prompt = found.prompts[isPromptCommandArgs(args) ? args.promptIndex : 0] ?? found.prompts[0];
  if (!prompt) {
    void vscode.window.showInformationMessage('Prompt Insight: this file has no prompt.');
    return undefined;
  }
  return { uri, text: found.text, prompt, suite: loadTestSuite(uri.fsPath, found.text, found.format, prompt) };
}
