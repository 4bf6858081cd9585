/**
 * The run document while runs go on: opened beside the prompt before the first request, the first
 * answer streamed into it, each finished run and its check added, the figures written at the end.
 */
import * as vscode from 'vscode';
import type { RunCheck } from '../../core/adherence/runChecks';
import type { RunOutcome } from '../../core/run/runOnce';
import { runDocumentMarkdown, runDocumentTitle, type RunDocumentState, type RunEntry } from './runDocument';
import type { RunDocuments } from './runDocuments';

export class LiveRunDocument {
  private constructor(
    private readonly documents: RunDocuments,
    readonly uri: vscode.Uri,
    readonly state: RunDocumentState,
  ) {}

  /** Creates the document with the plan's heading and shows it beside the prompt, keeping the focus there. */
  static async open(documents: RunDocuments, state: RunDocumentState): Promise<LiveRunDocument> {
    const uri = documents.create(runDocumentTitle(state.promptName, state.runs, new Date()), runDocumentMarkdown(state));
    const shown = await vscode.workspace.openTextDocument(uri);
    await vscode.window.showTextDocument(shown, { viewColumn: vscode.ViewColumn.Beside, preview: true, preserveFocus: true });
    return new LiveRunDocument(documents, uri, state);
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
  finish(): void {
    this.documents.set(this.uri, runDocumentMarkdown(this.state));
  }

  private entry(index: number): RunEntry {
    return (this.state.entries[index] ??= { answer: '', reasoning: '' });
  }

  /** Rebuilt only when the editor asks (the documents throttle refreshes). */
  private refresh(): void {
    this.documents.set(this.uri, () => runDocumentMarkdown(this.state));
  }
}
