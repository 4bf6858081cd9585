import * as vscode from 'vscode';
import type { TokenSummary, TokenSummaryParams } from '../protocol/lsp';

/** Asks the running language server for the token summary; undefined while no server runs. */
export type TokenSummaryRequester = (params: TokenSummaryParams, token: vscode.CancellationToken) => Promise<TokenSummary | null>;

const UPDATE_DELAY_MS = 120;

/** Status bar item: tokens of the prompt under the cursor, and of the selection when there is one. */
export class TokenStatusBar implements vscode.Disposable {
  private readonly item = vscode.window.createStatusBarItem('promptInsight.tokens', vscode.StatusBarAlignment.Right, 100);
  private readonly disposables: vscode.Disposable[] = [this.item];
  private timer: NodeJS.Timeout | undefined;
  private inFlight: vscode.CancellationTokenSource | undefined;

  constructor(private readonly requester: () => TokenSummaryRequester | undefined, private readonly isPromptDocument: (d: vscode.TextDocument) => boolean) {
    this.item.name = 'Prompt Insight: tokens';
    this.disposables.push(
      vscode.window.onDidChangeActiveTextEditor(() => this.schedule()),
      vscode.window.onDidChangeTextEditorSelection(() => this.schedule()),
      vscode.workspace.onDidChangeTextDocument((e) => {
        if (e.document === vscode.window.activeTextEditor?.document) this.schedule();
      }),
    );
    this.schedule();
  }

  schedule(): void {
    clearTimeout(this.timer);
    this.timer = setTimeout(() => void this.update(), UPDATE_DELAY_MS);
  }

  private async update(): Promise<void> {
    const editor = vscode.window.activeTextEditor;
    const request = this.requester();
    if (!editor || !request || !this.isPromptDocument(editor.document)) {
      this.item.hide();
      return;
    }
    this.inFlight?.cancel();
    const source = (this.inFlight = new vscode.CancellationTokenSource());
    try {
      const summary = await request(
        {
          uri: editor.document.uri.toString(),
          position: editor.selection.active,
          selections: editor.selections.filter((s) => !s.isEmpty).map((s) => ({ start: s.start, end: s.end })),
        },
        source.token,
      );
      if (source.token.isCancellationRequested) return;
      this.render(summary);
    } catch {
      if (!source.token.isCancellationRequested) this.item.hide();
    }
  }

  private render(summary: TokenSummary | null): void {
    if (!summary?.prompt) {
      this.item.hide();
      return;
    }
    const approx = summary.prompt.exact ? '' : '≈';
    const selection = summary.selectionTokens !== undefined ? ` · selection ${approx}${summary.selectionTokens.toLocaleString('en-US')}` : '';
    this.item.text = `$(symbol-numeric) ${approx}${summary.prompt.totalTokens.toLocaleString('en-US')} tokens${selection}`;
    this.item.tooltip = `Prompt Insight — ${summary.prompt.name}\n${summary.prompt.model} · ${summary.prompt.encoding} · ${summary.prompt.exact ? 'exact' : 'estimate'}`;
    this.item.show();
  }

  dispose(): void {
    clearTimeout(this.timer);
    this.inFlight?.cancel();
    for (const d of this.disposables) d.dispose();
  }
}
