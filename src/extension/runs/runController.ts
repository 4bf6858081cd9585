/**
 * ▶ Run and Run ×N in the editor, as a sequence of stages: refuse in Restricted Mode, pick the prompt
 * and the endpoint, plan the request, ask what must be agreed to, open the run document, run with
 * progress and cancel while each answer is checked against the prompt's test cases, keep every
 * finished run in the workspace store, tell the server to refresh lenses, and tell the user.
 */
import { basename, posix } from 'node:path';
import * as vscode from 'vscode';
import { runCheckPlan, type RunCheckPlan } from '../../core/adherence/runChecks';
import { CaseSelectError, selectCase, type SelectedCase } from '../../core/adherence/caseSelect';
import { isTestCaseCommandArgs } from '../../protocol/commands';
import { sampleCaseVars, sidecarPathFor, type TestSuite } from '../../core/adherence/testCases';
import type { ChatTransport } from '../../core/endpoint/transport';
import { ResultsStore } from '../../core/store/resultsStore';
import { RunClock } from '../../core/telemetry/batchRuns';
import type { EndpointTransports } from '../endpoints/endpointTransports';
import { chooseEndpoint, type EndpointChoice } from '../endpoints/endpoints';
import { consentToSend } from '../endpoints/sendConsent';
import { runResultsView, runSettings } from '../shared/runSettings';
import { RUN_RESULTS_ACTIVE, RUN_RESULTS_OPEN, isShownInATab, runDocumentOfActiveTab } from './runResultsTab';
import { storePathOf } from '../shared/storePath';
import { addAnswerAsTestCase, type AnswerSource } from './addAnswerCase';
import { LiveRunDocument } from './liveRunDocument';
import { detectFormat } from '../../core/formats/detect';
import type { PromptRunPlan } from '../../core/run/promptRun';
import { judgeOfSettings } from '../endpoints/judgeEndpoint';
import { checksNote, needsJudge, RunChecking } from './runChecking';
import { RunDocuments, RUN_SCHEME } from './runDocuments';
import { tellRunOutcome } from './runOutcome';
import { runWithProgress } from './runProgress';
import { usingStore } from './runStore';
import { exportBatchTelemetry } from './runTelemetry';
import { planRun, promptBesideTestsFile, promptTarget, testSuiteFor, trustedToSend, type PromptTarget } from './runTarget';
import { exportResults, showRuns } from './storeCommands';

export interface RunControllerDeps {
  context: vscode.ExtensionContext;
  log: vscode.LogOutputChannel;
  transports: EndpointTransports;
  /** Called after runs were stored, so the language server re-reads the store. */
  onRunsStored: (storePath: string) => void;
}

/** Run documents whose text (and answer to keep) stays held however the editor's tabs change. */
const KEPT_RUN_DOCUMENTS = 20;

export class RunController implements vscode.Disposable {
  private readonly documents = new RunDocuments();
  /** Per open run document: what Add This Answer as a Test Case makes of its first answer. */
  private readonly answerSources = new Map<string, AnswerSource>();
  private readonly disposables: vscode.Disposable[] = [];
  private readonly warn = (message: string): void => this.deps.log.warn(message);

  constructor(private readonly deps: RunControllerDeps) {
    this.disposables.push(
      this.documents,
      vscode.workspace.registerTextDocumentContentProvider(RUN_SCHEME, this.documents),
      vscode.workspace.onDidCloseTextDocument((d) => {
        if (d.uri.scheme === RUN_SCHEME) this.forgetUnshown();
      }),
      vscode.window.tabGroups.onDidChangeTabs((change) => {
        if (change.closed.length > 0) this.forgetUnshown();
        this.sayWhetherRunResultsActive();
      }),
      vscode.window.tabGroups.onDidChangeTabGroups(() => this.sayWhetherRunResultsActive()),
    );
  }

  /**
   * A run document's text is let go once nothing shows it: no editor holds it and no tab shows it
   * (the editor closes a document its preview still renders, and the preview reads it again when shown).
   */
  private forgetUnshown(): void {
    const held = new Set(vscode.workspace.textDocuments.map((d) => d.uri.toString()));
    // The newest are kept whatever the tabs say (a preview is known only by its title): a bounded few.
    for (const uri of this.documents.shownUris().slice(0, -KEPT_RUN_DOCUMENTS)) {
      if (held.has(uri.toString()) || isShownInATab(uri)) continue;
      this.documents.forget(uri);
      this.answerSources.delete(uri.toString());
    }
    this.sayWhetherRunResultsOpen();
  }

  /** The run documents this window has open, newest last. */
  private openRunDocuments(): vscode.Uri[] {
    return [...this.answerSources.keys()].map((key) => vscode.Uri.parse(key));
  }

  private sayWhetherRunResultsOpen(): void {
    void vscode.commands.executeCommand('setContext', RUN_RESULTS_OPEN, this.answerSources.size > 0);
  }

  private sayWhetherRunResultsActive(): void {
    void vscode.commands.executeCommand('setContext', RUN_RESULTS_ACTIVE, runDocumentOfActiveTab(this.openRunDocuments()) !== undefined);
  }

  get storePath(): string {
    return storePathOf(this.deps.context);
  }

  async run(args: unknown, repeated: boolean): Promise<void> {
    if (!(await trustedToSend())) return;
    const target = await promptTarget(args);
    if (target) await this.runTarget(target, repeated);
  }

  /** ▶ Run this case (a tests file's lens): the prompt beside it, once, with that case's inputs, checked against that case. */
  async runTestCase(args: unknown): Promise<void> {
    if (!isTestCaseCommandArgs(args)) return;
    if (!(await trustedToSend())) return;
    const target = await promptBesideTestsFile(vscode.Uri.parse(args.uri));
    if (target) await this.runTarget(target, false, args.position);
  }

  /** `casePosition`: run the case at this place in `tests:` instead of the prompt's sample inputs. */
  private async runTarget(target: PromptTarget, repeated: boolean, casePosition?: number): Promise<void> {
    const choice = await chooseEndpoint(this.warn);
    if (!choice) return;
    const settings = runSettings(repeated);
    const file = vscode.workspace.asRelativePath(target.document.uri, false);
    let plan = await planRun(target, file, choice);
    if (!plan) return;
    const suite = testSuiteFor(target.document, file, plan, this.warn);
    let selected: SelectedCase | undefined;
    if (casePosition !== undefined) {
      selected = this.caseOrReport(suite, casePosition);
      if (!selected) return;
      plan = await planRun(target, file, choice, selected.testCase);
      if (!plan) return;
    }
    if (!(await consentToSend(this.deps.context.workspaceState, file, plan, choice))) return;
    const transport = await this.transportOrReport(choice);
    if (!transport) return;

    const testProblems = this.sayTestProblems(suite, target.document);
    const checkPlan: RunCheckPlan = selected ? { cases: [selected.testCase] } : runCheckPlan(suite, sampleCaseVars(plan.prompt));
    const output = await LiveRunDocument.open(this.documents, {
      promptName: selected ? `${plan.prompt.name} · test case #${(selected.testCase.position ?? selected.index) + 1}` : plan.prompt.name,
      endpointLabel: choice.config.simulated ? `${choice.config.name} — SIMULATED, not a real model` : choice.config.name,
      model: plan.request.model,
      inputTokensEstimate: plan.inputTokensEstimate,
      unresolved: plan.unresolved,
      runs: settings.runs,
      checks: checksNote(checkPlan),
      testProblems,
      entries: [],
    }, runResultsView());
    this.answerSources.set(output.uri.toString(), answerSourceOf(target, plan, suite, selected, choice.config.name, output));
    this.sayWhetherRunResultsOpen();
    const store = new ResultsStore(this.storePath);
    // Checked before any run: a store that cannot take the runs would lose them.
    const storeUsable = usingStore(this.storePath, (s) => {
      s.check();
      return true;
    });
    if (!storeUsable) return;

    const controller = new AbortController();
    const judge = needsJudge(checkPlan) ? await judgeOfSettings(this.deps.transports, this.warn, controller.signal) : undefined;
    const checking = new RunChecking(checkPlan, judge, (index, check) => output.checked(index, check), this.warn, plan.prompt.name);
    const runClock = new RunClock();
    const groundedOf = checking.groundedOf;
    const result = await runWithProgress(transport, plan, choice.config.name, controller, {
      ...settings,
      store,
      ...(selected ? { testCase: selected.index } : {}),
      onFirstRunText: (delta, kind) => output.appendFirstText(delta, kind),
      onRun: (outcome, _finished, index) => {
        runClock.note(outcome);
        output.runFinished(index, outcome);
        checking.runFinished(index, outcome);
      },
      ...(groundedOf ? { groundedOf } : {}),
    });
    await checking.settle();
    this.deps.onRunsStored(store.path);
    // Never reached in Restricted Mode (run() returns above).
    await exportBatchTelemetry({ document: target.document, transport, runClock, plan, outcomes: result.outcomes, checkOf: (o) => checking.checkOf(o) }, String(this.deps.context.extension.packageJSON.version ?? ''), this.deps.log);
    tellRunOutcome({ plan, choice, result, concurrency: settings.concurrency, cancelled: controller.signal.aborted, store }, output, this.deps.log);
  }

  /**
   * Add This Answer as a Test Case: the first answer of the run document in the active tab (its text
   * or its preview), else of the only one open, else of the one the user picks.
   */
  async addAnswerAsTestCase(): Promise<void> {
    const open = this.openRunDocuments();
    let uri = runDocumentOfActiveTab(open) ?? (open.length === 1 ? open[0] : undefined);
    if (!uri && open.length > 1) {
      const picked = await vscode.window.showQuickPick(
        open.map((u) => ({ label: posix.basename(u.path).replace(/\.md$/, ''), uri: u })).reverse(),
        { placeHolder: 'Which run’s first answer becomes a test case?' },
      );
      if (!picked) return;
      uri = picked.uri;
    }
    return addAnswerAsTestCase(uri ? this.answerSources.get(uri.toString()) : undefined);
  }

  exportResults(): Promise<void> {
    return exportResults(this.storePath);
  }

  async showRuns(args: unknown): Promise<void> {
    const target = await promptTarget(args);
    if (target) await showRuns(this.storePath, this.documents, target, args);
  }

  /**
   * A malformed assertion is skipped, never silently: logged, listed in the run document, and a
   * warning that opens the tests file, where the language server marks each problem (and Problems lists it).
   */
  private sayTestProblems(suite: TestSuite | undefined, prompt: vscode.TextDocument): readonly string[] {
    if (!suite || suite.absent || suite.problems.length === 0) return [];
    for (const problem of suite.problems) this.warn(problem);
    const count = suite.problems.length === 1 ? 'a problem' : `${suite.problems.length} problems`;
    const sidecar = prompt.uri.scheme === 'file' ? sidecarPathFor(prompt.uri.fsPath) : undefined;
    const open = sidecar && basename(sidecar) === suite.source ? ['Open Tests File'] : [];
    void vscode.window.showWarningMessage(`Prompt Insight: ${suite.source} has ${count}; an assertion with one is not checked.`, ...open).then((choice) => {
      if (choice && sidecar) void vscode.window.showTextDocument(vscode.Uri.file(sidecar));
    });
    return suite.problems;
  }

  private caseOrReport(suite: TestSuite | undefined, position: number): SelectedCase | undefined {
    try {
      if (!suite) throw new CaseSelectError('the prompt’s test cases could not be read (see Prompt Insight: Show Output)');
      return selectCase(suite, String(position + 1));
    } catch (error) {
      void vscode.window.showWarningMessage(`Prompt Insight: this case cannot run: ${(error as Error).message}`);
      return undefined;
    }
  }

  private async transportOrReport(choice: EndpointChoice): Promise<ChatTransport | undefined> {
    try {
      return await this.deps.transports.transportFor(choice);
    } catch (error) {
      void vscode.window.showErrorMessage(`Prompt Insight: ${(error as Error).message}`);
      return undefined;
    }
  }

  dispose(): void {
    for (const d of this.disposables) d.dispose();
  }
}

/** Whether, and how, a run's answer can become a case of the prompt's tests file. */
function answerSourceOf(target: PromptTarget, plan: PromptRunPlan, suite: TestSuite | undefined, selected: SelectedCase | undefined, endpointName: string, output: LiveRunDocument): AnswerSource {
  const { document } = target;
  if (document.uri.scheme !== 'file') return { notOffered: 'the prompt is not a file on disk' };
  if (detectFormat(document.uri.fsPath, document.getText()) === 'github-prompt-yaml') return { notOffered: 'a .prompt.yml keeps its test data in itself (testData)' };
  if (suite?.source.endsWith('front matter')) return { notOffered: 'this prompt’s test cases are in its front matter (`tests:`), not in a tests file' };
  if (selected?.testCase.turns) return { notOffered: 'this case sends production’s turns, not inputs' };
  const time = new Date().toTimeString().slice(0, 8);
  return { promptPath: document.uri.fsPath, vars: selected ? selected.testCase.vars : plan.prompt.inputs, from: `run at ${time} on ${endpointName}`, firstEntry: () => output.state.entries[0] };
}
