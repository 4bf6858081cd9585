/**
 * Read-only documents that show a run as it streams: a virtual `prompt-insight-run:` document whose
 * content grows with each delta (change events throttled so the editor is not flooded).
 */
import * as vscode from 'vscode';
import { scrubSecrets } from '../../core/endpoint/secrets';

export const RUN_SCHEME = 'prompt-insight-run';
const REFRESH_MS = 80;

export class RunDocuments implements vscode.TextDocumentContentProvider, vscode.Disposable {
  private readonly contents = new Map<string, string>();
  private readonly pending = new Map<string, NodeJS.Timeout>();
  private readonly changes = new vscode.EventEmitter<vscode.Uri>();
  readonly onDidChange = this.changes.event;
  private counter = 0;

  provideTextDocumentContent(uri: vscode.Uri): string {
    return scrubSecrets(this.contents.get(uri.toString()) ?? '');
  }

  create(title: string, initial: string): vscode.Uri {
    const uri = vscode.Uri.from({ scheme: RUN_SCHEME, path: `/${title.replace(/[\\/:*?"<>|]/g, '_')} (run ${++this.counter}).md` });
    this.contents.set(uri.toString(), initial);
    return uri;
  }

  append(uri: vscode.Uri, text: string): void {
    const key = uri.toString();
    this.contents.set(key, (this.contents.get(key) ?? '') + text);
    if (this.pending.has(key)) return;
    this.pending.set(
      key,
      setTimeout(() => {
        this.pending.delete(key);
        this.changes.fire(uri);
      }, REFRESH_MS),
    );
  }

  forget(uri: vscode.Uri): void {
    this.contents.delete(uri.toString());
  }

  text(uri: vscode.Uri): string {
    return scrubSecrets(this.contents.get(uri.toString()) ?? '');
  }

  dispose(): void {
    for (const timer of this.pending.values()) clearTimeout(timer);
    this.changes.dispose();
  }
}
