/**
 * "What will be sent" (and the production actions' preview and decision) as read-only virtual documents (`prompt-insight-rendered:`): never dirty, so
 * closing one never asks to save an Untitled buffer; showing a prompt again refreshes its document.
 */
import * as vscode from 'vscode';

export const RENDERED_SCHEME = 'prompt-insight-rendered';

export class RenderedDocuments implements vscode.TextDocumentContentProvider, vscode.Disposable {
  private readonly contents = new Map<string, string>();
  private readonly changes = new vscode.EventEmitter<vscode.Uri>();
  readonly onDidChange = this.changes.event;

  provideTextDocumentContent(uri: vscode.Uri): string {
    return this.contents.get(uri.toString()) ?? '';
  }

  /** The document for one prompt of one file, with this text (an open one is updated in place). */
  set(fileLabel: string, promptName: string, text: string): vscode.Uri {
    return this.setTitled(`What will be sent — ${promptName}`, fileLabel, text);
  }

  /** A document titled `title` (the production actions' preview and decision) for one file. */
  setTitled(title: string, fileLabel: string, text: string): vscode.Uri {
    // The file rides in the query, so two files with a prompt of the same name get two documents.
    const uri = vscode.Uri.from({ scheme: RENDERED_SCHEME, path: `/${title.replace(/[\\/:*?"<>|]/g, '_')}.md`, query: fileLabel });
    const key = uri.toString();
    const known = this.contents.has(key);
    this.contents.set(key, text);
    if (known) this.changes.fire(uri);
    return uri;
  }

  forget(uri: vscode.Uri): void {
    this.contents.delete(uri.toString());
  }

  dispose(): void {
    this.changes.dispose();
  }
}
