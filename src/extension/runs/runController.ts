/**
 * ▶ Run and Run ×N in the editor: refuses in Restricted Mode, picks the endpoint, fetches its key
 * (origin-checked), streams the first answer into a read-only document, shows progress with
 * cancel, keeps every finished run in the workspace store, and tells the server to refresh lenses.
 */
import * as path from 'node:path';
import * as vscode from 'vscode';
import { CACHE_MODES, type CacheMode } from '../../core/endpoint/serverKind';
import { runReportMarkdown } from '../../core/metrics/runReport';
import { configureProxy } from '../../core/endpoint/httpExchange';
import { scrubSecrets } from '../../core/endpoint/secrets';
import { httpTransport, type ChatTransport } from '../../core/endpoint/transport';
import { formatMs, runSummaryLine } from '../../core/metrics/format';
import { fitLatency } from '../../core/metrics/latencyModel';
import { executePromptRuns, planPromptRun, type RunStage } from '../../core/run/promptRun';
import { runsToCsv, runsToJson } from '../../core/store/export';
import { ResultsStore, storeNotice } from '../../core/store/resultsStore';
import { isPromptCommandArgs, type PromptCommandArgs } from '../../protocol/lsp';
import { ApiKeys } from './apiKeys';
import { vscodeProxySettings } from './proxySettings';
import { confirmOriginChange } from './confirmOrigin';
import type { BundledSimulator } from './bundledSim';
import { chooseEndpoint, configuredEndpoints, type EndpointChoice } from './endpoints';
import { languageModelTransport } from './lmTransport';
import { RunDocuments, RUN_SCHEME } from './runDocuments';
import { storePathOf } from './storePath';

export interface RunControllerDeps {
  context: vscode.ExtensionContext;
  log: vscode.LogOutputChannel;
  simulator: BundledSimulator;
  /** Called after runs were stored, so the language server re-reads the store. */
  onRunsStored: (storePath: string) => void;
}

export class RunController implements vscode.Disposable {
  private readonly documents = new RunDocuments();
  private readonly keys: ApiKeys;
  private readonly disposables: vscode.Disposable[] = [];

  constructor(private readonly deps: RunControllerDeps) {
    this.keys = new ApiKeys(deps.context.secrets);
    this.disposables.push(
      this.documents,
      vscode.workspace.registerTextDocumentContentProvider(RUN_SCHEME, this.documents),
      vscode.workspace.onDidCloseTextDocument((d) => d.uri.scheme === RUN_SCHEME && this.documents.forget(d.uri)),
    );
  }

  get storePath(): string {
    return storePathOf(this.deps.context);
  }

  async run(args: unknown, repeated: boolean): Promise<void> {
    if (!vscode.workspace.isTrusted) {
      const manage = 'Manage Workspace Trust';
      const choice = await vscode.window.showWarningMessage('Prompt Insight does not send prompts in Restricted Mode. Trust this workspace to run prompts; token counts work meanwhile.', manage);
      if (choice === manage) void vscode.commands.executeCommand('workbench.trust.manage');
      return;
    }
    const target = await this.targetDocument(args);
    if (!target) return;
    const { document, promptIndex } = target;
    const choice = await chooseEndpoint((m) => this.deps.log.warn(m));
    if (!choice) return;
    const settings = vscode.workspace.getConfiguration('promptInsight');
    const runs = repeated ? settings.get<number>('run.repeats', 10) : 1;
    const concurrency = repeated ? settings.get<number>('run.concurrency', 1) : 1;
    const warmup = repeated ? settings.get<number>('run.warmup', 0) : 0;
    const timeoutMs = settings.get<number>('run.timeoutMs', 60_000);
    const file = vscode.workspace.asRelativePath(document.uri, false);

    let plan;
    try {
      plan = await planPromptRun(file, document.getText(), {
        promptIndex,
        ...(choice.config.model ? { endpointModel: choice.config.model } : {}),
        references: {
          ...(document.uri.scheme === 'file' ? { filePath: document.uri.fsPath } : {}),
          // As the language server counts: references are read only inside the workspace folder holding the prompt.
          workspaceFolders: (vscode.workspace.workspaceFolders ?? []).filter((f) => f.uri.scheme === 'file').map((f) => f.uri.fsPath),
          // The same folders the language server counts with, so what is sent is what was counted.
          partialFolders: (settings.get<unknown[]>('render.partialFolders') ?? []).filter((f): f is string => typeof f === 'string' && path.isAbsolute(f)),
        },
      });
    } catch (error) {
      void vscode.window.showErrorMessage(`Prompt Insight: ${(error as Error).message}`);
      return;
    }
    let transport: ChatTransport;
    try {
      transport = await this.transportFor(choice);
    } catch (error) {
      void vscode.window.showErrorMessage(`Prompt Insight: ${(error as Error).message}`);
      return;
    }
    const label = choice.config.simulated ? `${choice.config.name} — SIMULATED, not a real model` : choice.config.name;
    const output = this.documents.create(plan.prompt.name, `# ${plan.prompt.name} → ${label}\n\nmodel: ${plan.request.model} · ${plan.inputTokensEstimate} input tokens (estimate)${plan.unresolved.length ? ` · no value for ${plan.unresolved.join(', ')}` : ''}\n\n## Answer (run 1 of ${runs})\n\n`);
    const shown = await vscode.workspace.openTextDocument(output);
    await vscode.window.showTextDocument(shown, { viewColumn: vscode.ViewColumn.Beside, preview: true, preserveFocus: true });

    const store = new ResultsStore(this.storePath);
    // Checked before any run: a store that cannot take the runs would lose them.
    if (!this.usingStore((s) => {
      s.check();
      return true;
    })) return;
    const controller = new AbortController();
    let reasoningOpen = false;
    const result = await vscode.window.withProgress(
      { location: vscode.ProgressLocation.Notification, title: `Prompt Insight: running '${plan.prompt.name}'`, cancellable: true },
      async (progress, token) => {
        token.onCancellationRequested(() => controller.abort());
        progress.report({ message: `0/${runs} on ${choice.config.name}` });
        const stageText: Record<RunStage, string> = {
          'identifying-server': `identifying the server at ${choice.config.name}…`,
          sending: `connecting to ${choice.config.name}…`,
          waiting: 'sent; waiting for the first token…',
          streaming: 'streaming the answer…',
        };
        return executePromptRuns(transport, plan, {
          onFirstRunStage: (stage) => progress.report({ message: `${runs > 1 ? `run 1/${runs}: ` : ''}${stageText[stage]}` }),
          cache: runCacheMode(settings.get<string>('run.cache', 'cold')),
          runs,
          concurrency,
          warmup,
          timeoutMs,
          signal: controller.signal,
          store,
          onFirstRunText: (delta, kind) => {
            if (kind === 'reasoning' && !reasoningOpen) {
              reasoningOpen = true;
              this.documents.append(output, '> (reasoning) ');
            }
            if (kind === 'token' && reasoningOpen) {
              reasoningOpen = false;
              this.documents.append(output, '\n\n');
            }
            this.documents.append(output, kind === 'reasoning' ? delta.replace(/\n/g, '\n> ') : delta);
          },
          onRun: (_, finished) => progress.report({ message: `${finished}/${runs} on ${choice.config.name}`, increment: 100 / runs }),
        });
      },
    );
    this.deps.onRunsStored(store.path);
    const records = result.outcomes.map((o) => o.record);
    const simulated = choice.config.simulated === true || records.some((r) => r.simulated);
    this.documents.append(
      output,
      `\n\n${runReportMarkdown({ records, summary: result.summary, summaryWarm: result.summaryWarm, serverKind: result.serverKind, serverMetrics: result.serverMetrics, startedAt: result.startedAt, fit: fitLatency(records), concurrency, simulated })}`,
    );
    const failures = records.filter((r) => r.error && r.error.kind !== 'cancelled');
    if (failures.length > 0) {
      this.documents.append(output, `\n\n## Errors\n\n${failures.map((r) => `- ${r.error!.kind}: ${r.error!.message}`).join('\n')}\n`);
      this.deps.log.warn(`Runs of '${plan.prompt.name}' on ${choice.config.name}: ${failures.length} failed; first: ${failures[0]!.error!.message}`);
    }
    if (controller.signal.aborted) {
      void vscode.window.showInformationMessage(`Prompt Insight: cancelled after ${result.summary.runs} run(s); finished runs are kept.`);
    } else if (result.summary.ok === 0 && failures.length > 0) {
      void vscode.window.showErrorMessage(`Prompt Insight: '${plan.prompt.name}' failed on ${choice.config.name}: ${failures[0]!.error!.message}`, 'Show Output').then((c) => c && this.deps.log.show());
    } else {
      void vscode.window.showInformationMessage(`Prompt Insight: '${plan.prompt.name}' · ${runSummaryLine(result.summary)}${simulated ? ' · simulated' : ''}`);
    }
  }

  async setApiKey(): Promise<void> {
    const endpoints = configuredEndpoints((m) => this.deps.log.warn(m)).filter((c) => !c.bundledSim && c.config.provider !== 'vscode-lm');
    if (endpoints.length === 0) {
      void vscode.window.showInformationMessage('Prompt Insight: add an endpoint to the promptInsight.endpoints setting first; the key is then stored for it.');
      return;
    }
    const picked = endpoints.length === 1 ? endpoints[0] : (await vscode.window.showQuickPick(endpoints.map((c) => ({ label: c.config.name, description: c.config.baseUrl, c })), { title: 'Set the API key of which endpoint?' }))?.c;
    if (!picked) return;
    const key = await vscode.window.showInputBox({ title: `API key for ${picked.config.name}`, prompt: `Kept in VS Code's SecretStorage and sent only to ${new URL(picked.config.baseUrl).origin}.`, password: true, ignoreFocusOut: true, validateInput: (v) => (v.trim() ? undefined : 'The key is empty') });
    if (!key) return;
    await this.keys.set(picked.config, key.trim());
    void vscode.window.showInformationMessage(`Prompt Insight: API key stored for ${picked.config.name}.`);
  }

  async clearApiKey(): Promise<void> {
    const endpoints = configuredEndpoints((m) => this.deps.log.warn(m)).filter((c) => !c.bundledSim);
    const picked = (await vscode.window.showQuickPick(endpoints.map((c) => ({ label: c.config.name, c })), { title: 'Clear the API key of which endpoint?' }))?.c;
    if (!picked) return;
    await this.keys.clear(picked.config);
    void vscode.window.showInformationMessage(`Prompt Insight: API key cleared for ${picked.config.name}.`);
  }

  async exportResults(): Promise<void> {
    const contents = this.usingStore((s) => s.read());
    if (!contents) return;
    const { records } = contents;
    const notice = storeNotice(this.storePath, contents);
    if (records.length === 0) {
      void vscode.window.showInformationMessage('Prompt Insight: no runs stored in this workspace yet.');
      return;
    }
    const target = await vscode.window.showSaveDialog({ title: 'Export Prompt Insight runs', filters: { CSV: ['csv'], JSON: ['json'] }, defaultUri: vscode.Uri.file(path.join(vscode.workspace.workspaceFolders?.[0]?.uri.fsPath ?? '', 'prompt-insight-runs.csv')) });
    if (!target) return;
    const text = target.path.endsWith('.json') ? runsToJson(records) : runsToCsv(records);
    await vscode.workspace.fs.writeFile(target, Buffer.from(scrubSecrets(text), 'utf8'));
    void vscode.window.showInformationMessage(`Prompt Insight: exported ${records.length} runs to ${target.fsPath}${notice ? ` (${notice})` : ''}.`);
  }

  async showRuns(args: unknown): Promise<void> {
    const target = await this.targetDocument(args);
    if (!target) return;
    const file = vscode.workspace.asRelativePath(target.document.uri, false);
    const name = isPromptCommandArgs(args) ? args.promptName : undefined;
    const records = this.usingStore((s) => s.read((r) => r.file === file && (name === undefined || r.prompt === name)).records);
    if (!records) return;
    const rows = records.slice(-50).reverse().map((r) => `| ${r.at.replace('T', ' ').slice(0, 19)} | ${r.endpointName}${r.simulated ? ' (sim)' : ''} | ${r.key.promptHash.slice(0, 8)} | ${r.run.ok ? 'ok' : r.run.error?.kind ?? 'failed'} | ${r.run.ttftMs === null ? '' : formatMs(r.run.ttftMs)} | ${r.run.e2eMs === null ? '' : formatMs(r.run.e2eMs)} | ${r.run.outputTokens ?? ''} |`);
    const uri = this.documents.create(`${name ?? file} runs`, `# Runs of ${name ?? file} (latest ${rows.length} of ${records.length})\n\n| finished | endpoint | content | result | TTFT | E2E | output tokens |\n|---|---|---|---|---:|---:|---:|\n${rows.join('\n')}\n`);
    await vscode.window.showTextDocument(await vscode.workspace.openTextDocument(uri), { preview: true });
  }

  /** Runs `use` on this workspace's store; a store it refuses (a link, a directory) is reported, and undefined returned. */
  private usingStore<T>(use: (store: ResultsStore) => T): T | undefined {
    try {
      return use(new ResultsStore(this.storePath));
    } catch (error) {
      void vscode.window.showErrorMessage(`Prompt Insight: ${(error as Error).message}`);
      return undefined;
    }
  }

  private async targetDocument(args: unknown): Promise<{ document: vscode.TextDocument; promptIndex: number } | undefined> {
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

  /** A transport for the endpoint: the bundled simulator started on demand, vscode.lm, or HTTP with its origin-checked key. */
  async transportFor(choice: EndpointChoice): Promise<ChatTransport> {
    if (choice.bundledSim) {
      const scenario = vscode.workspace.getConfiguration('promptInsight').get<string>('simulator.scenario')?.trim();
      const folder = vscode.workspace.workspaceFolders?.[0]?.uri.fsPath;
      const scenarioPath = scenario ? (path.isAbsolute(scenario) || !folder ? scenario : path.join(folder, scenario)) : undefined;
      // The first start of the bundled simulator takes a moment (a child process): said, not silent.
      const url = await vscode.window.withProgress({ location: vscode.ProgressLocation.Notification, title: 'Prompt Insight: starting the simulated endpoint…' }, () => this.deps.simulator.start(scenarioPath));
      return httpTransport({ ...choice.config, baseUrl: url }, undefined);
    }
    if (choice.config.provider === 'vscode-lm') return languageModelTransport(choice.config);
    const key = await this.keys.get(choice.config, (stored, now) => confirmOriginChange(choice.config.name, stored, now));
    configureProxy(vscodeProxySettings());
    return httpTransport(choice.config, key);
  }

  dispose(): void {
    for (const d of this.disposables) d.dispose();
  }
}

/** The setting's cache mode; anything unexpected is the default, cold. */
export function runCacheMode(value: string | undefined): CacheMode {
  return (CACHE_MODES as readonly (string | undefined)[]).includes(value) ? (value as CacheMode) : 'cold';
}
