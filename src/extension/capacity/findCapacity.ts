/**
 * "Prompt Insight: Find Capacity": the largest concurrency at which the prompt's SLO attainment
 * reaches the target on the chosen endpoint (core/load/capacitySearch.ts), with progress per level
 * and cancel (the levels measured so far are kept and shown). The result opens in a panel drawn by
 * the capacity report's renderer. Trusted workspaces only, like ▶ Run; cost parameters need the
 * same confirmation.
 */
import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { standaloneReportHtml } from '../../core/compare/report';
import { searchMaxConcurrency } from '../../core/load/capacitySearch';
import { capacityView, type CapacityView } from '../../core/load/capacityView';
import { saturation, throughputKnee } from '../../core/load/knee';
import { runLoadPoint } from '../../core/load/loadPoint';
import { promptPolicy } from '../../core/load/promptPolicy';
import { objectiveText } from '../../core/rollout/slo';
import { planPromptRun } from '../../core/run/promptRun';
import { LoadResultsStore, loadResultsPath } from '../../core/load/loadResults';
import { runKeyOf } from '../../core/store/runKey';
import { isPromptCommandArgs } from '../../protocol/commands';
import { chooseEndpoint } from '../endpoints/endpoints';
import type { EndpointTransports } from '../endpoints/endpointTransports';
import { consentToSend } from '../endpoints/sendConsent';
import { runCacheMode } from '../shared/runSettings';
import { storePathOf } from '../shared/storePath';
import { capacitySettings, within, type CapacitySearchShape } from '../shared/capacitySettings';

interface SearchArgs {
  requests?: number;
  limit?: number;
  attainment?: number;
  /** Extra or tighter SLOs, as `--slo` takes them (`ttftMs.p90<=1000`). */
  slo?: string[];
}

/** A caller (a test, a keybinding) may pass its own shape; else the settings'. */
function searchArgs(args: unknown): CapacitySearchShape & { slo: string[] } {
  const v = (typeof args === 'object' && args !== null ? args : {}) as SearchArgs;
  const fallback = capacitySettings();
  return {
    requests: Math.round(within(v.requests, 3, 10_000, fallback.requests)),
    limit: Math.round(within(v.limit, 1, 1024, fallback.limit)),
    attainment: typeof v.attainment === 'number' ? within(v.attainment, 0.01, 1, 0.95) : fallback.attainment,
    slo: Array.isArray(v.slo) ? v.slo.filter((s): s is string => typeof s === 'string').slice(0, 20) : [],
  };
}

/** Runs the search and shows it; returns the view and where its points were kept (for tests and scripts), or undefined when nothing ran. */
export async function findCapacity(context: vscode.ExtensionContext, transports: EndpointTransports, log: vscode.LogOutputChannel, args: unknown): Promise<(CapacityView & { kept: { stored: boolean; message: string } }) | undefined> {
  if (!vscode.workspace.isTrusted) {
    void vscode.window.showWarningMessage('Prompt Insight does not send prompts in Restricted Mode. Trust this workspace to find a prompt’s capacity.');
    return undefined;
  }
  const uri = isPromptCommandArgs(args) ? vscode.Uri.parse(args.uri) : vscode.window.activeTextEditor?.document.uri;
  if (!uri) {
    void vscode.window.showInformationMessage('Prompt Insight: open a prompt file to find its capacity.');
    return undefined;
  }
  const document = await vscode.workspace.openTextDocument(uri);
  const promptIndex = isPromptCommandArgs(args) ? args.promptIndex : 0;
  const choice = await chooseEndpoint((m) => log.warn(m));
  if (!choice) return undefined;
  const settings = vscode.workspace.getConfiguration('promptInsight');
  const file = vscode.workspace.asRelativePath(document.uri, false);
  const options = searchArgs(args);
  try {
    const plan = await planPromptRun(file, document.getText(), {
      promptIndex,
      ...(choice.config.model ? { endpointModel: choice.config.model } : {}),
      references: { ...(document.uri.scheme === 'file' ? { filePath: document.uri.fsPath } : {}), workspaceFolders: (vscode.workspace.workspaceFolders ?? []).filter((f) => f.uri.scheme === 'file').map((f) => f.uri.fsPath) },
    });
    // Cost-changing parameters and a retrieval step's URL are shown before anything is sent, as ▶ Run asks.
    if (!(await consentToSend(context.workspaceState, file, plan, choice))) return undefined;
    // The prompt's own policy, as Compare reads it: front matter, then its tests file's scenario and SLOs.
    const policy = promptPolicy(document.uri.scheme === 'file' ? document.uri.fsPath : file, document.getText(), plan, { settingScenario: settings.get<string>('compare.scenario', '').trim(), cliSlo: options.slo }, path.basename(file));
    if (!policy.objectives.some((o) => o.metric !== 'adherence')) throw new Error(`the ${policy.scenario} scenario sets no latency SLO to attain; declare one in the prompt (slo: { ttftMs: { p90: 1000 } })`);
    const transport = await transports.transportFor(choice);
    const timeoutMs = settings.get<number>('run.timeoutMs', 60_000);
    const cache = runCacheMode(settings.get<string>('run.cache', 'cold'));
    const controller = new AbortController();
    const result = await vscode.window.withProgress({ location: vscode.ProgressLocation.Notification, title: `Prompt Insight: capacity of ${plan.prompt.name}`, cancellable: true }, async (progress, token) => {
      token.onCancellationRequested(() => controller.abort());
      return searchMaxConcurrency(
        (concurrency) => {
          progress.report({ message: `concurrency ${concurrency}: ${options.requests} requests…` });
          return runLoadPoint({ kind: 'concurrency', concurrency }, { transport, plans: [plan], requests: options.requests, timeoutMs, cache, objectives: policy.objectives, target: options.attainment, signal: controller.signal });
        },
        { limit: options.limit, requests: options.requests, signal: controller.signal },
      );
    });
    const view = capacityView(
      {
        file, prompt: plan.prompt.name, endpoint: choice.config.name,
        policy: { scenario: policy.scenario, scenarioSource: policy.scenarioSource, slo: policy.objectives.map(objectiveText) },
        target: options.attainment, requestsPerLevel: options.requests, inputs: 'the sample inputs', points: result.points,
        capacity: { maxConcurrencyMeetingSlo: result.maxConcurrency, atLimit: result.atLimit, resolved: result.resolved, requestsToResolve: result.requestsToResolve, knee: throughputKnee(result.points), saturation: saturation(result.points) },
        cancelled: controller.signal.aborted, simulated: choice.config.simulated === true || transport.endpoint.simulated === true,
      },
      { withRequests: false },
    );
    // The levels kept as load points beside the run store, as `load` keeps them (export --kind load).
    const kept = new LoadResultsStore(loadResultsPath(storePathOf(context))).keepPoints(result.points, {
      key: runKeyOf(transport.endpoint, plan.request, plan.retrieval), file, prompt: plan.prompt.name, endpointName: choice.config.name, simulated: view.simulated,
      slo: view.policy.slo, target: options.attainment, inputs: 'the sample inputs',
    });
    if (kept.stored) log.info(`Find Capacity: ${kept.message}`);
    else if (result.points.length > 0) log.warn(`Find Capacity: ${kept.message}`);
    showCapacityPanel(context, view);
    return { ...view, kept };
  } catch (error) {
    void vscode.window.showErrorMessage(`Prompt Insight: ${(error as Error).message}`);
    return undefined;
  }
}

/** The capacity report's page in a panel: its renderer and styles inlined under a nonce-only CSP. */
function showCapacityPanel(context: vscode.ExtensionContext, view: CapacityView): void {
  const panel = vscode.window.createWebviewPanel('promptInsight.capacity', `Capacity: ${view.prompt}`, vscode.ViewColumn.Beside, { enableScripts: true, localResourceRoots: [] });
  const assets = { script: readFileSync(context.asAbsolutePath('dist/webview.js'), 'utf8'), css: readFileSync(context.asAbsolutePath('media/panel.css'), 'utf8') };
  panel.webview.html = standaloneReportHtml(`Capacity: ${view.prompt}`, view, assets);
}
