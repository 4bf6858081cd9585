/**
 * "Prompt Insight: Show Production" (also the production lens): the prompt's Production view — versions,
 * hourly TTFT and requests per version with the version changes, the baseline band — from the language
 * server, which holds the sources and their cache, drawn by the report's renderer in a panel
 * (nonce-only CSP, no resource roots), as the capacity report is.
 */
import { readFileSync } from 'node:fs';
import * as vscode from 'vscode';
import { standaloneReportHtml } from '../../core/compare/report';
import type { ProductionView } from '../../core/telemetry/productionView';
import { isPromptCommandArgs } from '../../protocol/commands';
import type { ProductionViewParams, ProductionViewResult } from '../../protocol/productionRequest';

export type ProductionRequester = (params: ProductionViewParams) => Promise<ProductionViewResult>;

export async function showProduction(context: vscode.ExtensionContext, args: unknown, request: ProductionRequester): Promise<ProductionView | undefined> {
  const uri = isPromptCommandArgs(args) ? args.uri : vscode.window.activeTextEditor?.document.uri.toString();
  if (!uri) {
    void vscode.window.showInformationMessage('Prompt Insight: open a prompt file to see its production numbers.');
    return undefined;
  }
  const result = await vscode.window.withProgress({ location: vscode.ProgressLocation.Window, title: 'Prompt Insight: reading production…' }, () => request({ uri, promptIndex: isPromptCommandArgs(args) ? args.promptIndex : 0 }));
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
  return view;
}
