/**
 * The revision comparison panel: lists the prompt file's revisions (unsaved buffer and working copy
 * first), runs the chosen ones against the endpoint with progress and cancel — and, when asked, the
 * capacity search of base and head (the batch decision gates on it) — and shows the result drawn by
 * the webview bundle. CSP `default-src 'none'` with a fresh nonce; only the bundle and CSS
 * from the extension are loaded; every message from the webview is validated.
 */
import * as vscode from 'vscode';
import { compareRevisions, type CompareOptions } from '../../core/compare/compare';
import { batchLine, compareUntilDecided, type UntilDecidedProgress } from '../../core/compare/untilDecided';
import { loadRevisionSources } from '../../core/compare/revisionSources';
import { loadGatePolicy } from '../../core/compare/gatePolicy';
import { panelRevisions } from '../../core/compare/panelRevisions';
import { PANEL_POLICY_WORDING } from '../../core/compare/policyChange';
import { comparisonView } from '../../core/compare/view';
import type { FileHistory } from '../../core/history/fileHistory';
import { LoadResultsStore, loadResultsPath } from '../../core/load/loadResults';
import { ResultsStore } from '../../core/store/resultsStore';
import { isWebviewToHost, type HostToWebview, type JudgeWith } from '../../protocol/webview';
import type { EndpointTransports } from '../endpoints/endpointTransports';
import { chooseEndpoint } from '../endpoints/endpoints';
import { judgeOfSettings, judgeTrustOfSettings } from '../endpoints/judgeEndpoint';
import { runCacheMode } from '../shared/runSettings';
import { storePathOf } from '../shared/storePath';
import { capacityUnderSlo } from './capacityUnderSlo';
import { comparePanelHtml } from './comparePanelHtml';
import { confirmComparison } from './revisionConsent';

/** What the command asked for: the prompt in a multi-prompt file, and whose tests judge at first. */
export interface CompareRequest {
  promptName?: string;
  /** 'head': judge with the working copy's tests (new cases sampled from production), working copy vs HEAD preselected. */
  policy?: JudgeWith;
}

export class ComparePanel {
  private static readonly panels = new Map<string, ComparePanel>();
  private readonly disposables: vscode.Disposable[] = [];
  private running: AbortController | undefined;
  private history: FileHistory | undefined;

  static show(context: vscode.ExtensionContext, document: vscode.TextDocument, request: CompareRequest, transports: EndpointTransports, log: vscode.LogOutputChannel, onRunsStored: (path: string) => void): ComparePanel {
    const key = document.uri.toString();
    const existing = ComparePanel.panels.get(key);
    if (existing) {
      existing.panel.reveal();
      // Asked again for a policy (e.g. after new test cases were sampled): preselect it and the revisions anew.
      if (request.policy) {
        existing.request = { ...existing.request, policy: request.policy };
        void existing.sendHistory();
      }
      return existing;
    }
    const panel = vscode.window.createWebviewPanel('promptInsight.compare', `Compare: ${vscode.workspace.asRelativePath(document.uri)}`, vscode.ViewColumn.Beside, {
      enableScripts: true,
      retainContextWhenHidden: true,
      localResourceRoots: [vscode.Uri.joinPath(context.extensionUri, 'dist'), vscode.Uri.joinPath(context.extensionUri, 'media')],
    });
    const created = new ComparePanel(panel, context, document, request, transports, log, onRunsStored);
    ComparePanel.panels.set(key, created);
    return created;
  }

  private constructor(
    readonly panel: vscode.WebviewPanel,
    private readonly context: vscode.ExtensionContext,
    private readonly document: vscode.TextDocument,
    private request: CompareRequest,
    private readonly transports: EndpointTransports,
    private readonly log: vscode.LogOutputChannel,
    private readonly onRunsStored: (path: string) => void,
  ) {
    panel.webview.html = comparePanelHtml(panel.webview, context.extensionUri);
    this.disposables.push(
      panel.webview.onDidReceiveMessage((message: unknown) => void this.receive(message)),
      panel.onDidDispose(() => this.dispose()),
    );
  }

  private post(message: HostToWebview): void {
    void this.panel.webview.postMessage(message);
  }

  private async receive(message: unknown): Promise<void> {
    if (!isWebviewToHost(message)) {
      this.log.warn('Comparison panel: ignored a malformed message from the webview.');
      return;
    }
    if (message.type === 'ready') await this.sendHistory();
    else if (message.type === 'cancel') this.running?.abort();
    else if (message.type === 'compare') await this.compare(message.revs, message.runs, message.fresh, message.capacity === true, message.policy ?? 'base', message.untilDecided?.maxRuns);
  }

  private get promptName(): string | undefined {
    return this.request.promptName;
  }

  private async sendHistory(): Promise<void> {
    // Working copy vs HEAD when the prompt is being changed, or when the head's tests were asked for.
    const listed = await panelRevisions(this.document.uri.fsPath, { dirty: this.document.isDirty, preferWorkingCopy: this.request.policy === 'head', maxCount: 500 });
    this.history = listed.history;
    this.post({
      type: 'history', file: vscode.workspace.asRelativePath(this.document.uri), prompt: this.promptName ?? '', revisions: listed.choices, preselected: listed.preselected,
      ...(this.request.policy ? { judgeWith: this.request.policy } : {}), ...(listed.notice ? { notice: listed.notice } : {}),
    });
  }

  /** `policy`: whose tests judge the change; `maxRuns`: run until decided, at most this many runs per test case. */
  private async compare(revs: string[], runsPerCase: number, fresh: boolean, withCapacitySearch: boolean, policy: JudgeWith, maxRuns?: number): Promise<void> {
    if (this.running) return this.post({ type: 'error', message: 'A comparison is already running.' });
    const choice = await chooseEndpoint((m) => this.log.warn(m));
    if (!choice) return this.post({ type: 'error', message: 'No endpoint chosen.' });
    const controller = new AbortController();
    this.running = controller;
    try {
      const file = this.document.uri.fsPath;
      const workspaceFolders = (vscode.workspace.workspaceFolders ?? []).map((f) => f.uri.fsPath);
      const { sources, history } = await loadRevisionSources(file, revs, { bufferText: this.document.getText(), signal: controller.signal, workspaceFolders, ...(this.history ? { history: this.history } : {}) });
      const settings = vscode.workspace.getConfiguration('promptInsight');
      // The base's scenario, SLOs and test cases judge the change unless the user chose the head's (compare/gatePolicy.ts).
      const gate = await loadGatePolicy(
        sources,
        { file, ...(this.promptName ? { promptName: this.promptName } : {}), ...(history ? { repoRoot: history.repoRoot } : {}), workspaceFolders, signal: controller.signal },
        { from: policy, settingScenario: settings.get<string>('compare.scenario', '').trim(), wording: PANEL_POLICY_WORDING },
      );
      if (gate.suite.cases.length === 0) throw new Error(gate.suite.problems[0] ?? 'No test cases to score.');
      const shownFile = vscode.workspace.asRelativePath(this.document.uri, false);
      await confirmComparison(this.context.workspaceState, { file, shownFile, promptName: this.promptName, sources, retrievalUrl: gate.retrieval.step?.url }, choice);
      const transport = await this.transports.transportFor(choice);
      // A judge that cannot be reached leaves its checks unscored, said in the log and in a warning.
      const judge = await judgeOfSettings(this.transports, (m) => (this.log.warn(m), void vscode.window.showWarningMessage(m)), controller.signal);
      const judgeTrust = judge ? judgeTrustOfSettings(this.context, controller.signal) : undefined;
      if (judgeTrust?.store.problem) this.log.warn(judgeTrust.store.problem);
      const store = new ResultsStore(storePathOf(this.context));
      store.check(); // before any run: a store that cannot take the runs would lose them
      const timeoutMs = settings.get<number>('run.timeoutMs', 60_000);
      const cache = runCacheMode(settings.get<string>('run.cache', 'cold'));
      // Run until decided: the decision after each batch and the runs spent stay in view; Cancel keeps what was measured.
      let running: UntilDecidedProgress | undefined;
      const compareOptions: CompareOptions = {
        file: shownFile,
        ...(this.promptName ? { promptName: this.promptName } : {}),
        revisions: sources,
        gate,
        runsPerCase,
        transport,
        store,
        fresh,
        timeoutMs,
        concurrency: settings.get<number>('run.concurrency', 1),
        cache,
        freshnessMs: Math.max(0, settings.get<number>('compare.maxAgeHours', 24)) * 3_600_000,
        signal: controller.signal,
        ...(judge ? { judge } : {}),
        // A decision that rests on the judge says whether people's labels show it trusted (core/compare/judgeTrustGate.ts).
        ...(judge && judgeTrust ? { judgeTrust } : {}),
        onProgress: (done, total, message) => this.post({ type: 'progress', done, total, message: running ? `${message} · so far: ${batchLine(running).trim()}` : message, ...(running ? { running } : {}) }),
      };
      let result =
        maxRuns !== undefined
          ? await compareUntilDecided(compareOptions, { maxRunsPerCase: Math.max(maxRuns, runsPerCase), onBatch: (p) => ((running = p), this.post({ type: 'progress', done: 0, total: 0, message: batchLine(p).trim(), running: p })) })
          : await compareRevisions(compareOptions);
      this.onRunsStored(store.path);
      const notKept = judgeTrust?.store.saveOrSay();
      if (notKept) this.log.warn(`The judge's verdicts were not kept: ${notKept}`);
      let capacityLines: string[] | undefined;
      if (withCapacitySearch && !result.cancelled) {
        // The same endpoint, under the judging policy's SLOs; the batch scenario's decision gates on it.
        const input = { file: shownFile, ...(this.promptName ? { promptName: this.promptName } : {}), revisions: sources, transport, retrieval: gate.retrieval, timeoutMs, cache, signal: controller.signal, store: new LoadResultsStore(loadResultsPath(store.path)) };
        ({ result, capacityLines } = await capacityUnderSlo(result, input, (message) => this.post({ type: 'progress', done: 0, total: 0, message }), this.log));
      }
      this.post({ type: 'result', result: comparisonView(result, capacityLines ? { capacityLines } : {}) });
    } catch (error) {
      this.post({ type: 'error', message: (error as Error).message });
    } finally {
      this.running = undefined;
    }
  }

  dispose(): void {
    this.running?.abort();
    ComparePanel.panels.delete(this.document.uri.toString());
    for (const d of this.disposables) d.dispose();
    this.panel.dispose();
  }
}
