/**
 * **Add This Answer as a Test Case**, on a run document: the first run's inputs and an assertion stub
 * appended to the prompt's tests file (core/sampling/testsFileAppend.ts keeps its comments and cases),
 * written through core/files/fileWrite.ts, then shown where the new case is.
 */
import { basename, dirname } from 'node:path';
import * as vscode from 'vscode';
import { sidecarPathFor } from '../../core/adherence/testCases';
import { readTestsFileSync } from '../../core/files/workspaceFile';
import { writeOutputFile } from '../../core/files/fileWrite';
import { appendAnswerCase, readTestsFile } from '../../core/sampling/testsFileAppend';
import type { RunEntry } from './runDocument';

/** What a run document knows to make a case of its answer, or why it cannot. */
export type AnswerSource =
  | { promptPath: string; vars: Record<string, unknown>; from: string; firstEntry: () => RunEntry | undefined }
  | { notOffered: string };

export async function addAnswerAsTestCase(source: AnswerSource | undefined): Promise<void> {
  if (!source) {
    void vscode.window.showInformationMessage('Prompt Insight: open the document of a ▶ Run first; its first answer becomes the case.');
    return;
  }
  if ('notOffered' in source) {
    void vscode.window.showInformationMessage(`Prompt Insight: this answer cannot become a case here: ${source.notOffered}.`);
    return;
  }
  const entry = source.firstEntry();
  if (!entry?.record) {
    void vscode.window.showInformationMessage('Prompt Insight: the run has not finished yet.');
    return;
  }
  if (!entry.record.ok) {
    void vscode.window.showInformationMessage('Prompt Insight: the run failed, so it has no answer to keep.');
    return;
  }
  const sidecar = sidecarPathFor(source.promptPath);
  const open = vscode.workspace.textDocuments.find((d) => d.uri.scheme === 'file' && d.uri.fsPath === sidecar);
  if (open?.isDirty) {
    void vscode.window.showWarningMessage(`Prompt Insight: ${basename(sidecar)} has unsaved changes; save them first, then add the answer.`);
    return;
  }
  const workspaceFolders = (vscode.workspace.workspaceFolders ?? []).filter((f) => f.uri.scheme === 'file').map((f) => f.uri.fsPath);
  const root = workspaceFolders.find((f) => sidecar.startsWith(f)) ?? dirname(sidecar);
  let cases: number;
  try {
    const file = readTestsFile(readTestsFileSync(sidecar, { workspaceFolders }), basename(sidecar));
    cases = file.existingCases;
    writeOutputFile(sidecar, appendAnswerCase(file, { vars: source.vars, answer: entry.answer, from: source.from }), { what: 'test cases', cwd: root });
  } catch (error) {
    void vscode.window.showErrorMessage(`Prompt Insight: the case was not added: ${(error as Error).message}`);
    return;
  }
  // Where the tests file is already in view, else beside: the run document stays where it is.
  const column = vscode.window.visibleTextEditors.find((e) => e.document.uri.scheme === 'file' && e.document.uri.fsPath === sidecar)?.viewColumn;
  const shown = await vscode.window.showTextDocument(vscode.Uri.file(sidecar), { preview: false, viewColumn: column ?? vscode.ViewColumn.Beside });
  // The new case is the last one: show its end, where the assertion stub asks to be made precise.
  const end = new vscode.Position(shown.document.lineCount - 1, 0);
  shown.revealRange(new vscode.Range(end, end));
  void vscode.window.showInformationMessage(`Prompt Insight: case #${cases + 1} added to ${basename(sidecar)}; its assertion is a stub (the answer's first line) — make it what a good answer must hold.`);
}
