/**
 * What ▶ Run runs: the prompt the command names (or the active editor's first), only in a trusted
 * workspace, planned with the references and partials the language server counts with.
 */
import * as path from 'node:path';
import * as vscode from 'vscode';
import { loadTestSuite, type TestCase, type TestSuite } from '../../core/adherence/testCases';
import { promptsOfTestsFile } from '../../core/adherence/testsFilePrompts';
import { readTestsFileSync } from '../../core/files/workspaceFile';
import { detectFormat } from '../../core/formats/detect';
import { planPromptRun, type PromptRunPlan } from '../../core/run/promptRun';
import { isPromptCommandArgs, type PromptCommandArgs } from '../../protocol/commands';
import type { EndpointChoice } from '../endpoints/endpoints';
import { fileWorkspaceFolders } from '../shared/workspaceFolders';

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

/**
 * ▶ Run this case: the prompt file beside the tests file that reads it (asked when several do, as
 * homes.prompty and homes.prompt.md share homes.tests.yaml), its first prompt.
 */
export async function promptBesideTestsFile(testsUri: vscode.Uri): Promise<PromptTarget | undefined> {
  const folder = vscode.Uri.joinPath(testsUri, '..');
  const testsName = path.posix.basename(testsUri.path);
  let names: string[] = [];
  try {
    names = (await vscode.workspace.fs.readDirectory(folder)).filter(([, type]) => (type & vscode.FileType.File) !== 0).map(([name]) => name);
  } catch {
    // An unreadable folder has no prompt to offer: said below.
  }
  const prompts = promptsOfTestsFile(testsName, names);
  if (prompts.length === 0) {
    void vscode.window.showInformationMessage(`Prompt Insight: no prompt file beside ${testsName} reads it (a prompt NAME.prompty, NAME.prompt, NAME.prompt.md or NAME.prompt.txt reads NAME.tests.yaml).`);
    return undefined;
  }
  const picked = prompts.length === 1 ? prompts[0] : (await vscode.window.showQuickPick(prompts, { title: `Prompt Insight: run this case of ${testsName} with which prompt?` }));
  if (!picked) return undefined;
  const uri = vscode.Uri.joinPath(folder, picked);
  const document = vscode.workspace.textDocuments.find((d) => d.uri.toString() === uri.toString()) ?? (await vscode.workspace.openTextDocument(uri));
  return { document, promptIndex: 0 };
}

/** The request to send (with a test case's inputs when one is given); a prompt that cannot be planned is reported and undefined returned. */
export async function planRun({ document, promptIndex }: PromptTarget, file: string, choice: EndpointChoice, testCase?: TestCase): Promise<PromptRunPlan | undefined> {
  try {
    return await planPromptRun(file, document.getText(), {
      promptIndex,
      ...(testCase ? { vars: testCase.vars, ...(testCase.turns ? { turns: testCase.turns } : {}) } : {}),
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
