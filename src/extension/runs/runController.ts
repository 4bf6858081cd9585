/**
 * ▶ Run and Run ×N in the editor: refuses in Restricted Mode, picks the endpoint, fetches its key
 * (origin-checked), streams the first answer into a read-only document that then shows every
 * answer with its pass/fail against the prompt's test cases, shows progress with cancel, keeps
 * every finished run in the workspace store, and tells the server to refresh lenses.
 */
import * as path from 'node:path';
import * as vscode from 'vscode';
import { JUDGE_TYPES } from '../../core/adherence/checkText';
import { checkRun, hasClaimsChecks, runCheckPlan, type RunCheck, type RunCheckPlan } from '../../core/adherence/runChecks';
import type { Judge } from '../../core/adherence/score';
import { loadTestSuite, sampleCaseVars, type TestSuite } from '../../core/adherence/testCases';
import { transportJudge } from '../../core/compare/judge';
import { readTestsFileSync } from '../../core/files/workspaceFile';
import { detectFormat } from '../../core/formats/detect';
import { costAffectingParams } from '../../core/endpoint/costParams';
import { CACHE_MODES, type CacheMode } from '../../core/endpoint/serverKind';
import { runReportMarkdown } from '../../core/metrics/runReport';
import { configureProxy } from '../../core/endpoint/httpExchange';
import type { RunOutcome } from '../../core/run/runOnce';
import { scrubSecrets } from '../../core/endpoint/secrets';
import { httpTransport, type ChatTransport } from '../../core/endpoint/transport';
import { formatMs, runLensLine, runSummaryLine } from '../../core/metrics/format';
import { fitLatency } from '../../core/metrics/latencyModel';
import { executePromptRuns, planPromptRun, type PromptRunPlan, type RunStage } from '../../core/run/promptRun';
import { promptContentHash } from '../../core/store/runKey';
import { runsToCsv, runsToJson } from '../../core/store/export';
import { promptRunsView, type PromptRunsView } from '../../core/store/promptRuns';
import { LoadResultsStore, loadResultsPath } from '../../core/load/loadResults';
import { loadHistoryMarkdown } from '../../core/load/loadHistory';
import { ResultsStore, storeNotice } from '../../core/store/resultsStore';
import { RunClock, telemetryRunsOf } from '../../core/telemetry/batchRuns';
import { loadTelemetry } from '../../core/telemetry/loadTelemetry';
import { otlpTargetOf } from '../../core/telemetry/otlpSettings';
import { committedRevisionOf } from '../../core/telemetry/promptRevision';
import type { TelemetryRun } from '../../core/telemetry/runSpans';
import { isPromptCommandArgs, type PromptCommandArgs } from '../../protocol/lsp';
import { ApiKeys } from './apiKeys';
import { vscodeProxySettings } from './proxySettings';
import { confirmCostParams, confirmOriginChange, confirmRetrievalUrl } from './confirmOrigin';
import { RetrievalConsent } from './retrievalConsent';
import { scoredRunOf } from '../../core/run/retrievalRun';
import { CostParamConsent } from './costParamConsent';
import type { BundledSimulator } from './bundledSim';
import { chooseEndpoint, configuredEndpoints, type EndpointChoice } from './endpoints';
import { languageModelTransport } from './lmTransport';
import { runDocumentMarkdown, runDocumentTitle, runToastLine, tablesAsText, type RunDocumentState, type RunEntry } from './runDocument';
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
    // Parameters that change cost or retention go out only once the user has seen them (not to the bundled simulator, which bills nothing).
    const costly = choice.bundledSim ? [] : costAffectingParams(plan.request.params);
    if (!(await new CostParamConsent(this.deps.context.workspaceState).check(file, costly, (text) => confirmCostParams(plan.prompt.name, file, choice.config.name, text)))) return;
    // A retrieval step's URL is shown before the first query goes there (retrievalConsent.ts).
    if (plan.retrieval && !(await new RetrievalConsent(this.deps.context.workspaceState).check(file, plan.retrieval.step.url, (to) => confirmRetrievalUrl(plan.prompt.name, file, to)))) return;
    let transport: ChatTransport;
    try {
      transport = await this.transportFor(choice);
    } catch (error) {
      void vscode.window.showErrorMessage(`Prompt Insight: ${(error as Error).message}`);
      return;
    }
    const label = choice.config.simulated ? `${choice.config.name} — SIMULATED, not a real model` : choice.config.name;
    const checkPlan = runCheckPlan(this.testSuiteFor(document, file, plan), sampleCaseVars(plan.prompt));
    const state: RunDocumentState = {
      promptName: plan.prompt.name,
      endpointLabel: label,
      model: plan.request.model,
      inputTokensEstimate: plan.inputTokensEstimate,
      unresolved: plan.unresolved,
      runs,
      checks: checkPlan.cases.length > 0 ? { against: checkPlan.cases.length === 1 ? `the test case “${checkPlan.cases[0]!.description}”` : `the ${checkPlan.cases.length} test cases written for these sample values` } : { notChecked: 'why' in checkPlan ? checkPlan.why : 'no test cases' },
      entries: [],
    };
    const output = this.documents.create(runDocumentTitle(plan.prompt.name, runs, new Date()), runDocumentMarkdown(state));
    const refresh = (): void => this.documents.set(output, () => runDocumentMarkdown(state));
    const shown = await vscode.workspace.openTextDocument(output);
    await vscode.window.showTextDocument(shown, { viewColumn: vscode.ViewColumn.Beside, preview: true, preserveFocus: true });

    const store = new ResultsStore(this.storePath);
    // Checked before any run: a store that cannot take the runs would lose them.
    if (!this.usingStore((s) => {
      s.check();
      return true;
    })) return;
    const controller = new AbortController();
    const judge = needsJudge(checkPlan) ? await this.judge(controller.signal) : undefined;
    const checking: Promise<void>[] = [];
    const runClock = new RunClock();
    const checkOf = new Map<RunOutcome, RunCheck>();
    const checkOfIndex = new Map<number, Promise<RunCheck | undefined>>();
    const entry = (index: number): RunEntry => (state.entries[index] ??= { answer: '', reasoning: '' });
    const finishedRuns = new Map<number, RunOutcome>();
    // Each run's check, started once (as its run ends, or after the batch when a judge is involved).
    const checkFor = (index: number, outcome: RunOutcome): Promise<RunCheck | undefined> => {
      const started = checkOfIndex.get(index);
      if (started) return started;
      const pending = checkRun(checkPlan, { ...scoredRunOf(outcome), ...(outcome.record.error ? { errorMessage: outcome.record.error.message } : {}) }, judge);
      checkOfIndex.set(index, pending);
      checking.push(
        pending.then(
          (check) => {
            if (check) {
              entry(index).check = check;
              checkOf.set(outcome, check);
            }
            refresh();
          },
          (error: unknown) => this.deps.log.warn(`Checking run ${index + 1} of '${plan.prompt.name}' failed: ${String(error)}`),
        ),
      );
      return pending;
    };
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
            entry(0)[kind === 'reasoning' ? 'reasoning' : 'answer'] += delta;
            refresh();
          },
          onRun: (outcome, finished, index) => {
            runClock.note(outcome);
            Object.assign(entry(index), { answer: outcome.text.answer, reasoning: outcome.text.reasoning, record: outcome.record });
            finishedRuns.set(index, outcome);
            refresh();
            // Checks without a judge are shown as each run ends; a judge waits for the measured runs to end (it may share their server).
            if (!judge) checkFor(index, outcome);
            progress.report({ message: `${finished}/${runs} on ${choice.config.name}`, increment: 100 / runs });
          },
          // Runs judged for hallucination are stored with the verdict of their check, once the runs are over.
          ...(hasClaimsChecks(checkPlan.cases) ? { groundedOf: async (outcome: RunOutcome, index: number) => (await checkFor(index, outcome))?.grounded } : {}),
        });
      },
    );
    for (const [index, outcome] of finishedRuns) checkFor(index, outcome);
    await Promise.all(checking);
    this.deps.onRunsStored(store.path);
    // Off unless the setting names an endpoint; never reached in Restricted Mode (run() returns above).
    const otlpEndpoint = settings.get<string>('telemetry.otlpEndpoint');
    if (otlpEndpoint) {
      // The prompt's version: the file's commit when the saved file is committed and unchanged, else the content hash.
      const revision = !document.isDirty && document.uri.scheme === 'file' ? await committedRevisionOf(document.uri.fsPath) : undefined;
      void this.sendTelemetry(otlpEndpoint, telemetryRunsOf(transport, runClock, result.outcomes.map((outcome) => ({ outcome, plan, ...(revision ? { revision } : {}), ...(checkOf.has(outcome) ? { check: checkOf.get(outcome)! } : {}) }))));
    }
    const records = result.outcomes.map((o) => o.record);
    const simulated = choice.config.simulated === true || records.some((r) => r.simulated);
    state.cancelled = controller.signal.aborted;
    state.report = runReportMarkdown({ records, summary: result.summary, summaryWarm: result.summaryWarm, serverKind: result.serverKind, serverMetrics: result.serverMetrics, startedAt: result.startedAt, fit: fitLatency(records), concurrency, simulated });
    // The CodeLens sums up every stored run of this exact text on this endpoint, not only this batch: say so, with its numbers.
    const lens = this.lensSummary(store, plan);
    if (lens && lens.current && lens.current.runs !== result.summary.runs) {
      state.lensNote = `The CodeLens above the prompt sums up all ${lens.current.runs} stored runs of this exact text on ${lens.endpointName}: ${runLensLine(lens.current, lens.simulated)}.`;
    }
    this.documents.set(output, runDocumentMarkdown(state));
    const failures = records.filter((r) => r.error && r.error.kind !== 'cancelled');
    if (failures.length > 0) this.deps.log.warn(`Runs of '${plan.prompt.name}' on ${choice.config.name}: ${failures.length} failed; first: ${failures[0]!.error!.message}`);
    if (controller.signal.aborted) {
      void vscode.window.showInformationMessage(`Prompt Insight: cancelled after ${result.summary.runs} run(s); finished runs are kept.`);
    } else if (result.summary.ok === 0 && failures.length > 0) {
      void vscode.window.showErrorMessage(`Prompt Insight: '${plan.prompt.name}' failed on ${choice.config.name}: ${failures[0]!.error!.message}`, 'Show Output').then((c) => c && this.deps.log.show());
    } else {
      void vscode.window.showInformationMessage(`Prompt Insight: '${plan.prompt.name}' · ${runToastLine(result.summary, lens?.current, state.entries)}${simulated ? ' · simulated' : ''}`);
    }
  }

  /** The prompt's test cases (its tests file or front matter), read only inside the workspace; undefined when none can be read. */
  private testSuiteFor(document: vscode.TextDocument, file: string, plan: PromptRunPlan): TestSuite | undefined {
    const workspaceFolders = (vscode.workspace.workspaceFolders ?? []).filter((f) => f.uri.scheme === 'file').map((f) => f.uri.fsPath);
    try {
      const path = document.uri.scheme === 'file' ? document.uri.fsPath : file;
      return loadTestSuite(path, document.getText(), detectFormat(path, document.getText()), plan.prompt, (sidecar) => (document.uri.scheme === 'file' ? readTestsFileSync(sidecar, { workspaceFolders }) : undefined));
    } catch (error) {
      this.deps.log.warn(`Test cases of '${plan.prompt.name}' not read: ${(error as Error).message}`);
      return undefined;
    }
  }

  /** The judge endpoint of the settings, for llm-rubric and llm evaluators; undefined when none is set. */
  private async judge(signal: AbortSignal): Promise<Judge | undefined> {
    const settings = vscode.workspace.getConfiguration('promptInsight');
    const name = settings.get<string>('judge.endpoint')?.trim();
    const choice = name ? configuredEndpoints((m) => this.deps.log.warn(m)).find((c) => c.config.name === name) : undefined;
    const model = settings.get<string>('judge.model')?.trim() || choice?.config.model;
    if (!choice || !model) return undefined;
    try {
      return transportJudge(await this.transportFor(choice), model, settings.get<number>('run.timeoutMs', 60_000), signal);
    } catch (error) {
      this.deps.log.warn(`Judge endpoint '${name}' not usable: ${(error as Error).message}`);
      return undefined;
    }
  }

  /** What the CodeLens shows for this prompt now: the store's runs of this exact text (core/store/promptRuns.ts). */
  /** promptInsight.telemetry.otlpEndpoint: the runs as OpenTelemetry GenAI spans (the SDK bundle loads only now). Headers: OTEL_EXPORTER_OTLP_HEADERS only. */
  private async sendTelemetry(endpoint: string, runs: TelemetryRun[]): Promise<void> {
    const target = otlpTargetOf(endpoint);
    if (!target || runs.length === 0) return;
    if ('error' in target) {
      this.deps.log.warn(`promptInsight.telemetry.otlpEndpoint: ${target.error}; runs were not exported.`);
      return;
    }
    try {
      const { exportRunsOtlpHttp } = await loadTelemetry();
      const outcome = await exportRunsOtlpHttp(runs, { endpoint: target.endpoint }, { version: String(this.deps.context.extension.packageJSON.version ?? '') });
      if (outcome.errors.length) this.deps.log.warn(`OTLP export to ${target.endpoint} failed: ${outcome.errors.join('; ')}`);
      else this.deps.log.info(`Sent ${outcome.spans} span(s) and their metrics to ${target.endpoint} (OTLP/HTTP).`);
    } catch (error) {
      this.deps.log.warn(`OTLP export could not start: ${scrubSecrets(String(error))}`);
    }
  }

  private lensSummary(store: ResultsStore, plan: PromptRunPlan): PromptRunsView | undefined {
    try {
      const records = store.read((r) => r.file === plan.file && r.prompt === plan.prompt.name).records;
      return promptRunsView(records, { file: (f) => f === plan.file, prompt: plan.prompt.name, promptHash: promptContentHash(plan.request) });
    } catch {
      return undefined;
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
    const ofThisPrompt = (r: { file: string; prompt: string }) => r.file === file && (name === undefined || r.prompt === name);
    const records = this.usingStore((s) => s.read(ofThisPrompt).records);
    if (!records) return;
    // Load tests (load, Find Capacity, compare's capacity searches) are kept beside the runs.
    const loadPoints = this.reportingStoreErrors(() => new LoadResultsStore(loadResultsPath(this.storePath)).read(ofThisPrompt).records) ?? [];
    const rows = records.slice(-50).reverse().map((r) => `| ${r.at.replace('T', ' ').slice(0, 19)} | ${r.endpointName}${r.simulated ? ' (sim)' : ''} | ${r.key.promptHash.slice(0, 8)} | ${r.run.ok ? 'ok' : r.run.error?.kind ?? 'failed'} | ${r.run.ttftMs === null ? '' : formatMs(r.run.ttftMs)} | ${r.run.e2eMs === null ? '' : formatMs(r.run.e2eMs)} | ${r.run.outputTokens ?? ''} |`);
    const runsTable = rows.length > 0 ? `| finished | endpoint | content | result | TTFT | E2E | output tokens |\n|---|---|---|---|---:|---:|---:|\n${rows.join('\n')}\n` : 'No runs stored for this prompt yet.\n';
    const uri = this.documents.create(`Runs of ${name ?? file}`, tablesAsText(`# Runs of ${name ?? file} (latest ${rows.length} of ${records.length})\n\n${runsTable}\n${loadHistoryMarkdown(loadPoints)}`));
    await vscode.window.showTextDocument(await vscode.workspace.openTextDocument(uri), { preview: true });
  }

  /** Runs `use` on this workspace's store; a store it refuses (a link, a directory) is reported, and undefined returned. */
  private usingStore<T>(use: (store: ResultsStore) => T): T | undefined {
    return this.reportingStoreErrors(() => use(new ResultsStore(this.storePath)));
  }

  /** Runs `read`; a store it refuses (a link, a directory) is reported, and undefined returned. */
  private reportingStoreErrors<T>(read: () => T): T | undefined {
    try {
      return read();
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

/** Whether any case needs a judge model (llm-rubric, llm evaluators): only then is one set up. */
/** Any assertion an LLM judge decides (rubrics, and the grounded checks: hallucination, faithfulness, …): only then is the judge endpoint resolved. */
function needsJudge(plan: RunCheckPlan): boolean {
  return plan.cases.some((c) => c.assertions.some((a) => JUDGE_TYPES.has(a.type)));
}
