/**
 * "Prompt Insight: Show Production" (also the production lens): the prompt's Production view — versions,
 * hourly TTFT and requests per version with the version changes, the baseline band — from the language
 * server, which holds the sources and their cache, drawn by the report's renderer in a panel
 * (nonce-only CSP, no resource roots), as the capacity report is. The page's window picker asks the
 * server again for that window and the page redraws; its two buttons run the follow-up commands
 * (sample into tests, decide a gray release) for the selected anomaly or the window.
 */
import { readFileSync } from 'node:fs';
import * as vscode from 'vscode';
import { standaloneReportHtml } from '../../core/compare/report';
import type { ProductionView } from '../../core/telemetry/productionView';
import { isPromptCommandArgs } from '../../protocol/commands';
import type { ProductionViewParams, ProductionViewResult } from '../../protocol/productionRequest';
import { isProductionPageToHost, type HostToProductionPage, type ProductionPageToHost } from '../../protocol/productionWebview';

export type ProductionRequester = (params: ProductionViewParams) => Promise<ProductionViewResult>;

export async function showProduction(context: vscode.ExtensionContext, args: unknown, request: ProductionRequester): Promise<ProductionView | undefined> {
  const uri = isPromptCommandArgs(args) ? args.uri : vscode.window.activeTextEditor?.document.uri.toString();
  if (!uri) {
    void vscode.window.showInformationMessage('Prompt Insight: open a prompt file to see its production numbers.');
    return undefined;
  }
  const promptIndex = isPromptCommandArgs(args) ? args.promptIndex : 0;
  const result = await vscode.window.withProgress({ location: vscode.ProgressLocation.Window, title: 'Prompt Insight: reading production…' }, () => request({ uri, promptIndex }));
  if (!result) {
    void vscode.window.showInformationMessage('Prompt Insight: this file has no prompt.');
    return undefined;
  }
  if ('problem' in result) {
    void vscode.window.showInformationMessage(`Prompt Insight: ${result.problem}`);
    return undefined;
  }
  const view = result.view;
  const panel = vscode.window.createWebviewPanel('promptInsight.production', `Production: ${view.prompt}`, vscode.ViewColumn.Beside, { enableScripts: true, localResourceRoots: [] });
  const assets = { script: readFileSync(context.asAbsolutePath('dist/webview.js'), 'utf8'), css: readFileSync(context.asAbsolutePath('media/panel.css'), 'utf8') };
  panel.webview.html = standaloneReportHtml(`Production: ${view.prompt}`, view, assets);
  const post = (message: HostToProductionPage) => void panel.webview.postMessage(message);
  const listener = panel.webview.onDidReceiveMessage((message: unknown) => {
    // From the webview: anyone's page could post; only the typed messages are acted on.
    if (isProductionPageToHost(message)) void answer(message, { uri, promptIndex }, request, post);
  });
  panel.onDidDispose(() => listener.dispose());
  return view;
}

/** The follow-up commands another part of the extension registers; when absent the page says so and nothing else changes. */
const FOLLOW_UP: Record<string, string> = { sampleIntoTests: 'promptInsight.sampleIntoTests', decideGrayRelease: 'promptInsight.decideGrayRelease' };
const FOLLOW_UP_WORDS: Record<string, string> = { sampleIntoTests: 'Sample into tests', decideGrayRelease: 'Decide gray release' };

async function answer(message: ProductionPageToHost, prompt: { uri: string; promptIndex: number }, request: ProductionRequester, post: (m: HostToProductionPage) => void): Promise<void> {
  if (message.type === 'productionWindow') {
    try {
      const result = await request({ ...prompt, window: message.window });
      if (result && 'view' in result) post({ type: 'productionView', view: result.view });
      else post({ type: 'productionStatus', text: result ? result.problem : 'This file has no prompt any more.' });
    } catch (error) {
      post({ type: 'productionStatus', text: `Could not read production: ${(error as Error).message}` });
    }
    return;
  }
  const { action, version, since, until } = message;
  try {
    await vscode.commands.executeCommand(FOLLOW_UP[action]!, { ...prompt, ...(version ? { version } : {}), ...(since ? { since } : {}), ...(until ? { until } : {}) });
  } catch {
    post({ type: 'productionStatus', text: `${FOLLOW_UP_WORDS[action]} is not available in this version of Prompt Insight.` });
  }
}
