/**
 * The run document while runs go on: opened beside the prompt before the first request, the first
 * answer streamed into it, each finished run and its check added, the figures written at the end.
 * While runs go on it is text (the answer streams into it); at the end, in the `rendered` view, the
 * Markdown preview takes its place. The preview is opened on the final text, not before: it drops
 * changes that reach it while its webview loads, so a batch that ended within a second of opening
 * stayed at its first lines.
 */
import * as vscode from 'vscode';
import type { RunCheck } from '../../core/adherence/runChecks';
import type { RunOutcome } from '../../core/run/runOnce';
import { runDocumentMarkdown, runDocumentTitle, type RunDocumentState, type RunDocumentView, type RunEntry } from './runDocument';
import type { RunDocuments } from './runDocuments';

/** How long the final text may take to reach the editor before the preview opens on what it has. */
const FINAL_TEXT_WAIT_MS = 5_000;

export class LiveRunDocument {
  private constructor(
    private readonly documents: RunDocuments,
    readonly uri: vscode.Uri,
    readonly state: RunDocumentState,
    private readonly view: RunDocumentView,
  ) {}

  /** Creates the document with the plan's heading and shows it beside the prompt, keeping the focus there. */
  static async open(documents: RunDocuments, state: RunDocumentState, view: RunDocumentView): Promise<LiveRunDocument> {
    const uri = documents.create(runDocumentTitle(state.promptName, state.runs, new Date()), runDocumentMarkdown(state, 'text'));
    const shown = await vscode.workspace.openTextDocument(uri);
    await vscode.window.showTextDocument(shown, { viewColumn: vscode.ViewColumn.Beside, preview: true, preserveFocus: true });
    documents.shown(uri);
    return new LiveRunDocument(documents, uri, state, view);
  }

  /** More of the first run's streamed text. */
  appendFirstText(delta: string, kind: 'token' | 'reasoning'): void {
    this.entry(0)[kind === 'reasoning' ? 'reasoning' : 'answer'] += delta;
    this.refresh();
  }

  runFinished(index: number, outcome: RunOutcome): void {
    Object.assign(this.entry(index), { answer: outcome.text.answer, reasoning: outcome.text.reasoning, record: outcome.record });
    this.refresh();
  }

  checked(index: number, check: RunCheck | undefined): void {
    if (check) this.entry(index).check = check;
    this.refresh();
  }

  /** The final text, with the figures and the lens note the caller set on the state. */
  async finish(): Promise<void> {
    this.documents.set(this.uri, runDocumentMarkdown(this.state, this.view));
    if (this.view !== 'rendered') return;
    await textHeld(this.uri, this.documents.text(this.uri));
    if (!(await renderInPlace(this.uri))) this.documents.set(this.uri, runDocumentMarkdown(this.state, 'text'));
  }

  private entry(index: number): RunEntry {
    return (this.state.entries[index] ??= { answer: '', reasoning: '' });
  }

  /** Rebuilt only when the editor asks (the documents throttle refreshes). */
  private refresh(): void {
    this.documents.set(this.uri, () => runDocumentMarkdown(this.state, 'text'));
  }
}

/** Resolves once the editor holds the document's final text (or after FINAL_TEXT_WAIT_MS). */
async function textHeld(uri: vscode.Uri, finalText: string): Promise<void> {
  const held = (): boolean => vscode.workspace.textDocuments.some((d) => d.uri.toString() === uri.toString() && d.getText() === finalText);
  if (held()) return;
  await new Promise<void>((resolve) => {
    const timer = setTimeout(done, FINAL_TEXT_WAIT_MS);
    const listener = vscode.workspace.onDidChangeTextDocument((event) => {
      if (event.document.uri.toString() === uri.toString() && held()) done();
    });
    function done(): void {
      clearTimeout(timer);
      listener.dispose();
      resolve();
    }
  });
}

/**
 * The document's tab becomes its Markdown preview (locked to it), in the same group; the focus goes
 * back where it was. False when there is no preview to open (the built-in Markdown extension is
 * disabled); nothing happens when the user has closed the document's tab.
 */
async function renderInPlace(uri: vscode.Uri): Promise<boolean> {
  const textTab = (): vscode.Tab | undefined =>
    vscode.window.tabGroups.all.flatMap((g) => g.tabs).find((t) => t.input instanceof vscode.TabInputText && t.input.uri.toString() === uri.toString());
  const tab = textTab();
  if (!tab) return true;
  const before = vscode.window.activeTextEditor;
  const beforeColumn = before?.viewColumn;
  const document = await vscode.workspace.openTextDocument(uri);
  await vscode.window.showTextDocument(document, { viewColumn: tab.group.viewColumn, preserveFocus: false });
  try {
    // In the active group, as the run document is now: the preview opens in its place.
    await vscode.commands.executeCommand('markdown.showPreview', uri, undefined, { locked: true });
  } catch {
    return false;
  }
  const still = textTab();
  if (still) await vscode.window.tabGroups.close(still, true);
  if (before && beforeColumn !== undefined && before.document.uri.toString() !== uri.toString()) {
    await vscode.window.showTextDocument(before.document, { viewColumn: beforeColumn, preserveFocus: false });
  }
  return true;
}
