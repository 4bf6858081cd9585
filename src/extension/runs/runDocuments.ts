/**
 * Read-only documents that show runs as they stream: virtual `prompt-insight-run:` documents (never
 * dirty, never asking to be saved) whose text is replaced as runs finish; change events are
 * throttled so the editor is not flooded.
 */
import * as vscode from 'vscode';
import { scrubSecrets } from '../../core/endpoint/secrets';

export const RUN_SCHEME = 'prompt-insight-run';
const REFRESH_MS = 80;

export class RunDocuments implements vscode.TextDocumentContentProvider, vscode.Disposable {
  /** A document's text, or how to build it: built only when the editor asks, once per refresh. */
  private readonly contents = new Map<string, string | (() => string)>();
  private readonly pending = new Map<string, NodeJS.Timeout>();
  private readonly changes = new vscode.EventEmitter<vscode.Uri>();
  /** Created and not yet shown: nothing holds them yet, and they must not be let go for that. */
  private readonly opening = new Set<string>();
  readonly onDidChange = this.changes.event;

  provideTextDocumentContent(uri: vscode.Uri): string {
    return this.text(uri);
  }

  /** A new document named `title` (the editor tab's text); a second one with the same title gets a number. */
  create(title: string, initial: string): vscode.Uri {
    // Only path separators are replaced: a virtual document's name may hold ':' (its run time), and the tab shows it as written.
    const safe = title.replace(/[\\/]/g, '_');
    let uri = vscode.Uri.from({ scheme: RUN_SCHEME, path: `/${safe}.md` });
    for (let n = 2; this.contents.has(uri.toString()); n++) uri = vscode.Uri.from({ scheme: RUN_SCHEME, path: `/${safe} (${n}).md` });
    this.contents.set(uri.toString(), initial);
    this.opening.add(uri.toString());
    return uri;
  }

  /** Replaces the document's text (or its builder); the editor shows it within REFRESH_MS. */
  set(uri: vscode.Uri, text: string | (() => string)): void {
    const key = uri.toString();
    this.contents.set(key, text);
    if (this.pending.has(key)) return;
    this.pending.set(
      key,
      setTimeout(() => {
        this.pending.delete(key);
        this.changes.fire(uri);
      }, REFRESH_MS),
    );
  }

  /** The document is in view (an editor or a preview holds it). */
  shown(uri: vscode.Uri): void {
    this.opening.delete(uri.toString());
  }

  /** Every document this provider holds the text of and that has been shown. */
  shownUris(): vscode.Uri[] {
    return [...this.contents.keys()].filter((key) => !this.opening.has(key)).map((key) => vscode.Uri.parse(key));
  }

  forget(uri: vscode.Uri): void {
    this.contents.delete(uri.toString());
  }

  text(uri: vscode.Uri): string {
    const content = this.contents.get(uri.toString()) ?? '';
    return scrubSecrets(typeof content === 'string' ? content : content());
  }

  dispose(): void {
    for (const timer of this.pending.values()) clearTimeout(timer);
    this.changes.dispose();
  }
}
