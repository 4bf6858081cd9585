/**
 * Everything that runs prompts or compares revisions, loaded on first use so that activation only
 * registers commands: the endpoints' transports and keys, the run controller, the bundled simulator and
 * the comparison panel.
 */
import * as vscode from 'vscode';
import { isCompareCommandArgs } from '../protocol/commands';
import { findCapacity } from './capacity/findCapacity';
import { ComparePanel } from './compare/comparePanel';
import { decideGrayRelease } from './production/decideGrayRelease';
import { sampleIntoTests } from './production/sampleIntoTests';
import { showProduction, type ProductionRequester } from './production/showProduction';
import type { RenderedDocuments } from './renderedDocuments';
import { addEndpoint } from './endpoints/addEndpoint';
import { clearApiKey, setApiKey } from './endpoints/apiKeyCommands';
import { ApiKeys } from './endpoints/apiKeys';
import { BundledSimulator } from './endpoints/bundledSim';
import { EndpointTransports } from './endpoints/endpointTransports';
import { openTestsFile } from './runs/openTestsFile';
import { checkJudgeTrust } from './review/checkJudgeTrust';
import { reviewAnswers } from './review/reviewAnswers';
import { RunController } from './runs/runController';

export interface Features {
  runs: RunController;
  setApiKey(): Promise<void>;
  addEndpoint(): Promise<void>;
  openTestsFile(isPromptDocument: (document: vscode.TextDocument) => boolean): Promise<void>;
  clearApiKey(): Promise<void>;
  openComparison(args: unknown): Promise<void>;
  findCapacity(args: unknown): Promise<unknown>;
  showProduction(args: unknown, request: ProductionRequester): Promise<unknown>;
  sampleIntoTests(args: unknown, request: ProductionRequester, documents: RenderedDocuments): Promise<unknown>;
  decideGrayRelease(args: unknown, request: ProductionRequester, documents: RenderedDocuments): Promise<unknown>;
  reviewAnswers(args: unknown): Promise<unknown>;
  checkJudgeTrust(args: unknown, documents: RenderedDocuments): Promise<unknown>;
}

export function createFeatures(context: vscode.ExtensionContext, log: vscode.LogOutputChannel, onRunsStored: (storePath: string) => void): Features {
  const simulator = new BundledSimulator(context.asAbsolutePath('dist/simulator.js'), log);
  const keys = new ApiKeys(context.secrets);
  const transports = new EndpointTransports(keys, simulator);
  const runs = new RunController({ context, log, transports, onRunsStored });
  context.subscriptions.push(simulator, runs);
  return {
    runs,
    setApiKey: () => setApiKey(keys, log),
    addEndpoint: () => addEndpoint(keys),
    openTestsFile,
    clearApiKey: () => clearApiKey(keys, log),
    findCapacity: (args) => findCapacity(context, transports, log, args),
    showProduction: (args, request) => showProduction(context, args, request),
    sampleIntoTests: (args, request, documents) => sampleIntoTests(args, request, documents, log),
    decideGrayRelease: (args, request, documents) => decideGrayRelease(args, request, documents, log),
    reviewAnswers: (args) => reviewAnswers(context, transports, log, args),
    checkJudgeTrust: (args, documents) => checkJudgeTrust(context, transports, documents, log, args),
    async openComparison(args) {
      if (!vscode.workspace.isTrusted) {
        // git runs repository hooks and config; like VS Code's own git support, not in Restricted Mode.
        void vscode.window.showWarningMessage('Prompt Insight compares revisions only in a trusted workspace (it runs git and sends prompts). Token counts work meanwhile.');
        return;
      }
      // The CodeLens's prompt arguments or `{ uri, policy? }`; anything else falls back to the active editor.
      const request = isCompareCommandArgs(args) ? args : undefined;
      if (args !== undefined && !request) log.warn('Compare revisions: ignored an argument that is not { uri, promptName?, policy?: "base" | "head" }; comparing the active editor.');
      const uri = request ? vscode.Uri.parse(request.uri) : vscode.window.activeTextEditor?.document.uri;
      if (!uri || uri.scheme !== 'file') {
        void vscode.window.showInformationMessage('Prompt Insight: open a prompt file saved on disk to compare its revisions.');
        return;
      }
      const document = await vscode.workspace.openTextDocument(uri);
      ComparePanel.show(context, document, { ...(request?.promptName ? { promptName: request.promptName } : {}), ...(request?.policy ? { policy: request.policy } : {}) }, transports, log, onRunsStored);
    },
  };
}
