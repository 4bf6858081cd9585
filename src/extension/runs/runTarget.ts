/**
 * What ▶ Run runs: the prompt the command names (or the active editor's first), only in a trusted
 * workspace, planned with the references and partials the language server counts with.
 */
import * as path from 'node:path';
import * as vscode from 'vscode';
import { loadTestSuite, type TestSuite } from '../../core/adherence/testCases';
import { readTestsFileSync } from '../../core/files/workspaceFile';
import { detectFormat } from '../../core/formats/detect';
import { planPromptRun, type PromptRunPlan } from '../../core/run/promptRun';
import { isPromptCommandArgs, type PromptCommandArgs } from '../../protocol/commands';
import type { EndpointChoice } from '../endpoints/endpoints';

export interface PromptTarget {
  document: vscode.TextDocument;
  promptIndex: number;
}

/** True in a trusted workspace; in Restricted Mode says why nothing is sent and offers to manage trust. */
export async function trustedToSend(): Promise<boolean> {
  if (vscode.workspace.isTrusted) return true;
  const manage = 'Manage Workspace Trust';
  const choice = await vscode.window.showWarningMessage('Prompt Insight does not send prompts in Restricted Mode. Trust this workspace to run prompts; token counts work meanwhile.', manage);
  if (choice === manage) void vscode.commands.executeCommand('workbench.trust.manage');
  return false;
}

/** The document and prompt a command's arguments name, else the active editor's first prompt. */
export async function promptTarget(args: unknown): Promise<PromptTarget | undefined> {
  if (isPromptCommandArgs(args)) {
    const commandArgs: PromptCommandArgs = args;
    const document = vscode.workspace.textDocuments.find((d) => d.uri.toString() === commandArgs.uri) ?? (await vscode.workspace.openTextDocument(vscode.Uri.parse(commandArgs.uri)));
    return { document, promptIndex: commandArgs.promptIndex };
  }
  const editor = vscode.window.activeTextEditor;
  if (!editor) {
    void vscode.window.showInformationMessage('Prompt Insight: open a prompt file to run it.');
    return undefined;
  }
  return { document: editor.document, promptIndex: 0 };
}

/** The request to send; a prompt that cannot be planned is reported and undefined returned. */
export async function planRun({ document, promptIndex }: PromptTarget, file: string, choice: EndpointChoice): Promise<PromptRunPlan | undefined> {
  try {
    return await planPromptRun(file, document.getText(), {
      promptIndex,
      ...(choice.config.model ? { endpointModel: choice.config.model } : {}),
      references: {
        ...(document.uri.scheme === 'file' ? { filePath: document.uri.fsPath } : {}),
        // As the language server counts: references are read only inside the workspace folder holding the prompt.
        workspaceFolders: fileWorkspaceFolders(),
        // The same folders the language server counts with, so what is sent is what was counted.
        partialFolders: (vscode.workspace.getConfiguration('promptInsight').get<unknown[]>('render.partialFolders') ?? []).filter((f): f is string => typeof f === 'string' && path.isAbsolute(f)),
      },
    });
  } catch (error) {
    void vscode.window.showErrorMessage(`Prompt Insight: ${(error as Error).message}`);
    return undefined;
  }
}

/** The prompt's test cases (its tests file or front matter), read only inside the workspace; undefined when none can be read. */
export function testSuiteFor(document: vscode.TextDocument, file: string, plan: PromptRunPlan, warn: (message: string) => void): TestSuite | undefined {
  const workspaceFolders = fileWorkspaceFolders();
  try {
    const path = document.uri.scheme === 'file' ? document.uri.fsPath : file;
    return loadTestSuite(path, document.getText(), detectFormat(path, document.getText()), plan.prompt, (sidecar) => (document.uri.scheme === 'file' ? readTestsFileSync(sidecar, { workspaceFolders }) : undefined));
  } catch (error) {
    warn(`Test cases of '${plan.prompt.name}' not read: ${(error as Error).message}`);
    return undefined;
  }
}

function fileWorkspaceFolders(): string[] {
  return (vscode.workspace.workspaceFolders ?? []).filter((f) => f.uri.scheme === 'file').map((f) => f.uri.fsPath);
}
