import * as vscode from 'vscode';
import { HOVER_LINK_COMMANDS } from '../protocol/commands';
import {
  CloseAction, ErrorAction, LanguageClient, TransportKind,
  type CloseHandlerResult, type ErrorHandler, type ErrorHandlerResult, type LanguageClientOptions, type ServerOptions,
} from 'vscode-languageclient/node';
import { renderedPromptRequest, runsChangedNotification, tokenSummaryRequest, workspaceTrustedNotification, type RenderedPrompt, type RenderedPromptParams, type ServerInitOptions } from '../protocol/lsp';
import { productionAlertRequest, productionViewRequest, type ProductionViewParams, type ProductionViewResult } from '../protocol/productionRequest';
import type { ProductionAlertRequester } from './production/productionStatusBar';
import type { TokenSummaryRequester } from './statusBar';
import { serverDocumentSelector } from './documentSelector';
import { RestartPolicy } from './restartPolicy';
import { tokenizerConfigurationMiddleware, withTaggedTokenizers } from './tokenizerFolders';

/**
 * Restarts a crashed server, but gives up after a few crashes in a short window so a server that
 * dies on start does not loop; the user is told and can restart by command.
 */
class BoundedRestartHandler implements ErrorHandler {
  private readonly policy = new RestartPolicy();

  constructor(private readonly log: vscode.LogOutputChannel) {}

  error(error: Error): ErrorHandlerResult {
    this.log.error(`Language server connection error: ${error.message}`);
    return { action: ErrorAction.Continue };
  }

  closed(): CloseHandlerResult {
    if (!this.policy.shouldRestart(Date.now())) {
      this.log.error(`The language server stopped ${this.policy.recentCrashes} times in 3 minutes; not restarting it.`);
      void vscode.window
        .showErrorMessage('Prompt Insight: the language server keeps stopping. See the "Prompt Insight" output for details.', 'Show Output', 'Restart')
        .then((choice) => {
          if (choice === 'Show Output') this.log.show();
          if (choice === 'Restart') void vscode.commands.executeCommand('promptInsight.restartServer');
        });
      return { action: CloseAction.DoNotRestart, handled: true };
    }
    this.log.warn('The language server stopped; restarting it.');
    return { action: CloseAction.Restart, handled: true };
  }
}

export function createLanguageClient(context: vscode.ExtensionContext, log: vscode.LogOutputChannel, trace: vscode.LogOutputChannel, storePath: string): LanguageClient {
  const serverModule = context.asAbsolutePath('dist/server.js');
  const serverOptions: ServerOptions = {
    run: { module: serverModule, transport: TransportKind.stdio },
    debug: { module: serverModule, transport: TransportKind.stdio, options: { execArgv: ['--nolazy', '--inspect=6010'] } },
  };
  const configuration = vscode.workspace.getConfiguration('promptInsight');
  const clientOptions: LanguageClientOptions = {
    documentSelector: serverDocumentSelector(configuration.get<string[]>('files.include') ?? []),
    // A function, so a restarted server gets the trust of the moment (Restricted Mode: no template rendering, no referenced files).
    initializationOptions: (): ServerInitOptions => ({
      settings: withTaggedTokenizers({
        tokens: vscode.workspace.getConfiguration('promptInsight').get('tokens'),
        run: vscode.workspace.getConfiguration('promptInsight').get('run'),
        endpoints: vscode.workspace.getConfiguration('promptInsight').get('endpoints'),
        production: vscode.workspace.getConfiguration('promptInsight').get('production'),
      }),
      storePath,
      workspaceFolders: (vscode.workspace.workspaceFolders ?? []).filter((f) => f.uri.scheme === 'file').map((f) => f.uri.fsPath),
      workspaceTrusted: vscode.workspace.isTrusted,
    }),
    synchronize: { configurationSection: 'promptInsight' },
    // The hover's links open the prompt's runs or production view; no other command may run from a hover.
    markdown: { isTrusted: { enabledCommands: [...HOVER_LINK_COMMANDS] }, supportHtml: false },
    middleware: tokenizerConfigurationMiddleware,
    outputChannel: log,
    traceOutputChannel: trace,
    errorHandler: new BoundedRestartHandler(log),
  };
  const client = new LanguageClient('promptInsight', 'Prompt Insight', serverOptions, clientOptions);
  // Trust granted while the server runs: it starts rendering templates and reading referenced files.
  context.subscriptions.push(
    vscode.workspace.onDidGrantWorkspaceTrust(() => {
      if (client.isRunning()) void client.sendNotification(workspaceTrustedNotification, {}).catch(() => undefined);
    }),
  );
  return client;
}

/** The status bar's request, bound to this client; undefined until it runs. */
export function tokenSummaryRequester(client: LanguageClient): TokenSummaryRequester | undefined {
  return client.isRunning() ? (params, token) => client.sendRequest(tokenSummaryRequest, params, token) : undefined;
}

/** A prompt's rendered messages, from the running server. */
export function requestRenderedPrompt(client: LanguageClient, params: RenderedPromptParams): Promise<RenderedPrompt | null> {
  return client.sendRequest(renderedPromptRequest, params);
}

/** One prompt's Production view, from the running server (its sources and cache). */
export function requestProductionView(client: LanguageClient, params: ProductionViewParams): Promise<ProductionViewResult> {
  return client.sendRequest(productionViewRequest, params);
}

/** The production status bar's question, bound to this client; undefined until it runs. */
export function productionAlertRequester(client: LanguageClient): ProductionAlertRequester | undefined {
  return client.isRunning() ? (params) => client.sendRequest(productionAlertRequest, params) : undefined;
}

export function notifyRunsChanged(client: LanguageClient, storePath: string): void {
  void client.sendNotification(runsChangedNotification, { storePath }).catch(() => undefined);
}
