/**
 * The status bar's production signal: while the active prompt file's newest hours depart from the
 * dynamic baseline (an anomaly going on now), "$(warning) Production: TTFT p99 over baseline", the
 * anomaly in its tooltip, a click opening the Production page. Asked of the language server from its
 * cache, on the production lens's cadence (a minute) and when the active editor changes.
 */
import * as vscode from 'vscode';
import { CLIENT_COMMANDS } from '../../protocol/commands';
import type { ProductionAlert, ProductionAlertParams } from '../../protocol/productionRequest';

export type ProductionAlertRequester = (params: ProductionAlertParams) => Promise<ProductionAlert | null>;

/** The language server's production cache lives a minute; asking more often learns nothing new. */
const POLL_MS = 60_000;

export class ProductionStatusBar implements vscode.Disposable {
  private readonly item = vscode.window.createStatusBarItem('promptInsight.production', vscode.StatusBarAlignment.Right, 99);
  private readonly disposables: vscode.Disposable[] = [this.item];
  private readonly timer: NodeJS.Timeout;
  private asked = 0;

  constructor(private readonly requester: () => ProductionAlertRequester | undefined, private readonly isPromptDocument: (d: vscode.TextDocument) => boolean) {
    this.item.name = 'Prompt Insight: production anomaly';
    this.disposables.push(vscode.window.onDidChangeActiveTextEditor(() => void this.update()));
    this.timer = setInterval(() => void this.update(), POLL_MS);
    void this.update();
  }

  async update(): Promise<void> {
    const document = vscode.window.activeTextEditor?.document;
    const request = this.requester();
    if (!document || !request || !this.isPromptDocument(document)) {
      this.item.hide();
      return;
    }
    const asked = ++this.asked;
    const uri = document.uri.toString();
    const alert = await request({ uri }).catch(() => null);
    if (asked !== this.asked) return; // a newer question (another editor) answers instead
    if (!alert) {
      this.item.hide();
      return;
    }
    this.item.text = `$(warning) Production: ${alert.title}`;
    this.item.tooltip = `${alert.prompt}: ${alert.detail}\nClick to open the Production page.`;
    this.item.backgroundColor = new vscode.ThemeColor('statusBarItem.warningBackground');
    this.item.command = { title: 'Show Production', command: CLIENT_COMMANDS.showProduction, arguments: [{ uri, promptName: alert.prompt, promptIndex: alert.promptIndex }] };
    this.item.show();
  }

  dispose(): void {
    clearInterval(this.timer);
    for (const d of this.disposables) d.dispose();
  }
}
