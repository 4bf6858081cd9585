/**
 * Extension entry: activates cheaply, starts the language server only once a prompt file is open,
 * and registers the commands the CodeLenses call.
 */
import * as vscode from 'vscode';
import { languages } from 'vscode';
import type { LanguageClient } from 'vscode-languageclient/node';
import { CLIENT_COMMANDS, isPromptCommandArgs, runsChangedNotification } from '../protocol/lsp';
import { promptDocumentSelector } from './documentSelector';
import { createLanguageClient } from './languageClient';
import { ComparePanel } from './compare/comparePanel';
import { BundledSimulator } from './runs/bundledSim';
import { RunController } from './runs/runController';
import { TokenStatusBar } from './statusBar';

let client: LanguageClient | undefined;
let starting: Promise<void> | undefined;

export async function activate(context: vscode.ExtensionContext): Promise<void> {
  const log = vscode.window.createOutputChannel('Prompt Insight', { log: true });
  const trace = vscode.window.createOutputChannel('Prompt Insight LSP Trace', { log: true });
  context.subscriptions.push(log, trace);

  const isPromptDocument = (document: vscode.TextDocument): boolean => {
    const globs = vscode.workspace.getConfiguration('promptInsight').get<string[]>('files.include') ?? [];
    return languages.match(promptDocumentSelector(globs), document) > 0;
  };

  const simulator = new BundledSimulator(context.asAbsolutePath('dist/cli.js'), log);
  const runs = new RunController({
    context,
    log,
    simulator,
    onRunsStored: (storePath) => void client?.sendNotification(runsChangedNotification, { storePath }).catch(() => undefined),
  });
  context.subscriptions.push(simulator, runs);

  const ensureStarted = (): Promise<void> => {
    starting ??= (async () => {
      client = createLanguageClient(context, log, trace, runs.storePath);
      try {
        await client.start();
        log.info('Language server started.');
      } catch (error) {
        log.error(`Language server failed to start: ${String(error)}`);
        void vscode.window.showErrorMessage(`Prompt Insight could not start its language server: ${String(error)}`);
        starting = undefined;
        throw error;
      }
    })();
    return starting;
  };

  const startIfPromptOpen = (document: vscode.TextDocument): void => {
    if (!client && isPromptDocument(document)) void ensureStarted().catch(() => undefined);
  };

  const statusBar = new TokenStatusBar(() => client, isPromptDocument);
  context.subscriptions.push(
    statusBar,
    vscode.workspace.onDidOpenTextDocument(startIfPromptOpen),
    vscode.workspace.onDidChangeConfiguration(async (event) => {
      // The document selector is fixed when the client starts, so new globs need a restart.
      if (event.affectsConfiguration('promptInsight.files.include') && client) await restart();
    }),
    vscode.commands.registerCommand('promptInsight.restartServer', () => restart()),
    vscode.commands.registerCommand('promptInsight.showOutput', () => log.show()),
    vscode.commands.registerCommand(CLIENT_COMMANDS.runPrompt, (args: unknown) => runs.run(args, false)),
    vscode.commands.registerCommand(CLIENT_COMMANDS.runPromptRepeated, (args: unknown) => runs.run(args, true)),
    vscode.commands.registerCommand(CLIENT_COMMANDS.showRuns, (args: unknown) => runs.showRuns(args)),
    vscode.commands.registerCommand('promptInsight.setApiKey', () => runs.setApiKey()),
    vscode.commands.registerCommand('promptInsight.clearApiKey', () => runs.clearApiKey()),
    vscode.commands.registerCommand('promptInsight.exportResults', () => runs.exportResults()),
    vscode.commands.registerCommand(CLIENT_COMMANDS.compareRevisions, (args: unknown) => openComparison(args)),
    { dispose: () => void client?.stop() },
  );

  async function openComparison(args: unknown): Promise<void> {
    if (!vscode.workspace.isTrusted) {
      // git runs repository hooks and config; like VS Code's own git support, not in Restricted Mode.
      void vscode.window.showWarningMessage('Prompt Insight compares revisions only in a trusted workspace (it runs git and sends prompts). Token counts work meanwhile.');
      return;
    }
    const uri = isPromptCommandArgs(args) ? vscode.Uri.parse(args.uri) : vscode.window.activeTextEditor?.document.uri;
    if (!uri || uri.scheme !== 'file') {
      void vscode.window.showInformationMessage('Prompt Insight: open a prompt file saved on disk to compare its revisions.');
      return;
    }
    const document = await vscode.workspace.openTextDocument(uri);
    ComparePanel.show(context, document, isPromptCommandArgs(args) ? args.promptName : undefined, runs, log, (storePath) => void client?.sendNotification(runsChangedNotification, { storePath }).catch(() => undefined));
  }

  async function restart(): Promise<void> {
    const previous = client;
    client = undefined;
    starting = undefined;
    await previous?.stop().catch(() => undefined);
    await ensureStarted();
    statusBar.schedule();
  }

  for (const document of vscode.workspace.textDocuments) startIfPromptOpen(document);
  starting?.then(() => statusBar.schedule(), () => undefined);
}


export async function deactivate(): Promise<void> {
  await client?.stop();
  client = undefined;
}
