import * as vscode from 'vscode';
import {
  CloseAction, ErrorAction, LanguageClient, TransportKind,
  type CloseHandlerResult, type ErrorHandler, type ErrorHandlerResult, type LanguageClientOptions, type ServerOptions,
} from 'vscode-languageclient/node';
import { promptDocumentSelector } from './documentSelector';

const RESTART_WINDOW_MS = 3 * 60 * 1000;
const MAX_RESTARTS_IN_WINDOW = 4;

/**
 * Restarts a crashed server, but gives up after a few crashes in a short window so a server that
 * dies on start does not loop; the user is told and can restart by command.
 */
class BoundedRestartHandler implements ErrorHandler {
  private readonly crashes: number[] = [];

  constructor(private readonly log: vscode.LogOutputChannel) {}

  error(error: Error): ErrorHandlerResult {
    this.log.error(`Language server connection error: ${error.message}`);
    return { action: ErrorAction.Continue };
  }

  closed(): CloseHandlerResult {
    const now = Date.now();
    this.crashes.push(now);
    while (this.crashes.length > 0 && now - this.crashes[0]! > RESTART_WINDOW_MS) this.crashes.shift();
    if (this.crashes.length > MAX_RESTARTS_IN_WINDOW) {
      this.log.error(`The language server stopped ${this.crashes.length} times in 3 minutes; not restarting it.`);
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

export function createLanguageClient(context: vscode.ExtensionContext, log: vscode.LogOutputChannel, trace: vscode.LogOutputChannel): LanguageClient {
  const serverModule = context.asAbsolutePath('dist/server.js');
  const serverOptions: ServerOptions = {
    run: { module: serverModule, transport: TransportKind.stdio },
    debug: { module: serverModule, transport: TransportKind.stdio, options: { execArgv: ['--nolazy', '--inspect=6010'] } },
  };
  const configuration = vscode.workspace.getConfiguration('promptInsight');
  const clientOptions: LanguageClientOptions = {
    documentSelector: promptDocumentSelector(configuration.get<string[]>('files.include') ?? []),
    initializationOptions: { settings: { tokens: configuration.get('tokens') } },
    synchronize: { configurationSection: 'promptInsight' },
    outputChannel: log,
    traceOutputChannel: trace,
    errorHandler: new BoundedRestartHandler(log),
  };
  return new LanguageClient('promptInsight', 'Prompt Insight', serverOptions, clientOptions);
}
