/**
 * Extension entry: activation only registers commands and listeners. The language client starts
 * once a prompt or tests file is open, and running or comparing loads on first use. Both live in their own
 * bundles (dist/extension-client.js, dist/extension-features.js), so VS Code neither reads nor
 * compiles them at activation (measured by `npm run bench -- activation`).
 */
import * as path from 'node:path';
import * as vscode from 'vscode';
import { languages } from 'vscode';
import type { LanguageClient } from 'vscode-languageclient/node';
import { CLIENT_COMMANDS, isPromptCommandArgs } from '../protocol/commands';
import type { ProductionViewParams, ProductionViewResult } from '../protocol/productionRequest';
import { promptDocumentSelector, serverDocumentSelector } from './documentSelector';
import type { Features } from './features';
import { storePathOf } from './shared/storePath';
import { renderedPromptMarkdown } from './renderedDocument';
import { RenderedDocuments, RENDERED_SCHEME } from './renderedDocuments';
import { scrubbedLog } from './scrubbedLog';
import { TokenStatusBar } from './statusBar';
import { ProductionStatusBar } from './production/productionStatusBar';

type ClientModule = typeof import('./languageClient');
type FeaturesModule = typeof import('./features');

/** Loads a sibling bundle at run time; esbuild leaves the computed path alone, so it stays a separate file. */
function loadBundle<T>(file: string): T {
  return require(path.join(__dirname, file)) as T;
}

let client: LanguageClient | undefined;
let clientModule: ClientModule | undefined;
let starting: Promise<void> | undefined;

export async function activate(context: vscode.ExtensionContext): Promise<void> {
  const activateStart = performance.now();
  const logChannel = vscode.window.createOutputChannel('Prompt Insight', { log: true });
  const traceChannel = vscode.window.createOutputChannel('Prompt Insight LSP Trace', { log: true });
  context.subscriptions.push(logChannel, traceChannel);
  const log = scrubbedLog(logChannel);
  const trace = scrubbedLog(traceChannel);

  const userGlobs = (): string[] => vscode.workspace.getConfiguration('promptInsight').get<string[]>('files.include') ?? [];
  const isPromptDocument = (document: vscode.TextDocument): boolean => languages.match(promptDocumentSelector(userGlobs()), document) > 0;
  /** Prompt files and tests files: either starts the language server. */
  const isServerDocument = (document: vscode.TextDocument): boolean => languages.match(serverDocumentSelector(userGlobs()), document) > 0;

  const onRunsStored = (storePath: string): void => {
    if (client && clientModule) clientModule.notifyRunsChanged(client, storePath);
  };
  let features: Promise<Features> | undefined;
  const withFeatures = async <T>(use: (f: Features) => Promise<T>): Promise<T> => {
    features ??= Promise.resolve().then(() => loadBundle<FeaturesModule>('extension-features.js').createFeatures(context, log, onRunsStored));
    return use(await features);
  };

  const ensureStarted = (): Promise<void> => {
    starting ??= (async () => {
      clientModule = loadBundle<ClientModule>('extension-client.js');
      client = clientModule.createLanguageClient(context, log, trace, storePathOf(context));
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
    if (!client && isServerDocument(document)) void ensureStarted().catch(() => undefined);
  };

  /** The Production view from the running server (which holds the sources and their cache). */
  const requestProductionView = (params: ProductionViewParams): Promise<ProductionViewResult> =>
    client && clientModule ? clientModule.requestProductionView(client, params) : Promise.resolve({ problem: 'the language server is not running' });

  const renderedDocuments = new RenderedDocuments();
  context.subscriptions.push(
    renderedDocuments,
    vscode.workspace.registerTextDocumentContentProvider(RENDERED_SCHEME, renderedDocuments),
    vscode.workspace.onDidCloseTextDocument((d) => d.uri.scheme === RENDERED_SCHEME && renderedDocuments.forget(d.uri)),
  );
  const statusBar = new TokenStatusBar(() => (client && clientModule ? clientModule.tokenSummaryRequester(client) : undefined), isPromptDocument);
  const productionStatus = new ProductionStatusBar(() => (client && clientModule ? clientModule.productionAlertRequester(client) : undefined), isPromptDocument);
  context.subscriptions.push(
    statusBar,
    productionStatus,
    vscode.workspace.onDidOpenTextDocument(startIfPromptOpen),
    vscode.workspace.onDidChangeConfiguration(async (event) => {
      // The document selector is fixed when the client starts, so new globs need a restart.
      if (event.affectsConfiguration('promptInsight.files.include') && client) await restart();
    }),
    vscode.commands.registerCommand('promptInsight.restartServer', () => restart()),
    vscode.commands.registerCommand('promptInsight.showOutput', () => log.show()),
    vscode.commands.registerCommand(CLIENT_COMMANDS.runPrompt, (args: unknown) => withFeatures((f) => f.runs.run(args, false))),
    vscode.commands.registerCommand(CLIENT_COMMANDS.runTestCase, (args: unknown) => withFeatures((f) => f.runs.runTestCase(args))),
    vscode.commands.registerCommand(CLIENT_COMMANDS.runPromptRepeated, (args: unknown) => withFeatures((f) => f.runs.run(args, true))),
    vscode.commands.registerCommand(CLIENT_COMMANDS.showRuns, (args: unknown) => withFeatures((f) => f.runs.showRuns(args))),
    vscode.commands.registerCommand(CLIENT_COMMANDS.compareRevisions, (args: unknown) => withFeatures((f) => f.openComparison(args))),
    vscode.commands.registerCommand('promptInsight.findCapacity', (args: unknown) => withFeatures((f) => f.findCapacity(args))),
    vscode.commands.registerCommand(CLIENT_COMMANDS.showProduction, (args: unknown) =>
      withFeatures(async (f) => {
        await ensureStarted();
        return f.showProduction(args, requestProductionView);
      }),
    ),
    vscode.commands.registerCommand(CLIENT_COMMANDS.sampleIntoTests, (args: unknown) =>
      withFeatures(async (f) => {
        await ensureStarted();
        return f.sampleIntoTests(args, requestProductionView, renderedDocuments);
      }),
    ),
    vscode.commands.registerCommand(CLIENT_COMMANDS.decideGrayRelease, (args: unknown) =>
      withFeatures(async (f) => {
        await ensureStarted();
        return f.decideGrayRelease(args, requestProductionView, renderedDocuments);
      }),
    ),
    vscode.commands.registerCommand('promptInsight.addEndpoint', () => withFeatures((f) => f.addEndpoint())),
    vscode.commands.registerCommand('promptInsight.openTestsFile', () => withFeatures((f) => f.openTestsFile(isPromptDocument))),
    vscode.commands.registerCommand('promptInsight.setApiKey', () => withFeatures((f) => f.setApiKey())),
    vscode.commands.registerCommand('promptInsight.clearApiKey', () => withFeatures((f) => f.clearApiKey())),
    vscode.commands.registerCommand('promptInsight.addAnswerAsTestCase', () => withFeatures((f) => f.runs.addAnswerAsTestCase())),
    vscode.commands.registerCommand('promptInsight.reviewAnswers', (args: unknown) => withFeatures((f) => f.reviewAnswers(args))),
    vscode.commands.registerCommand('promptInsight.checkJudgeTrust', (args: unknown) => withFeatures((f) => f.checkJudgeTrust(args, renderedDocuments))),
    vscode.commands.registerCommand('promptInsight.exportResults', () => withFeatures((f) => f.runs.exportResults())),
    vscode.commands.registerCommand(CLIENT_COMMANDS.showRendered, (args: unknown) => showRendered(args)),
    { dispose: () => void client?.stop() },
  );

  /** The token count lens (or the palette, for the active editor's first prompt): the rendered messages, beside the file. */
  async function showRendered(args: unknown): Promise<void> {
    const uri = isPromptCommandArgs(args) ? args.uri : vscode.window.activeTextEditor?.document.uri.toString();
    if (!uri) {
      void vscode.window.showInformationMessage('Prompt Insight: open a prompt file first.');
      return;
    }
    await ensureStarted();
    const rendered = client && clientModule ? await clientModule.requestRenderedPrompt(client, { uri, promptIndex: isPromptCommandArgs(args) ? args.promptIndex : 0 }) : null;
    if (!rendered) {
      void vscode.window.showInformationMessage('Prompt Insight: this file has no prompt to render.');
      return;
    }
    const fileLabel = vscode.workspace.asRelativePath(vscode.Uri.parse(uri), false);
    const document = await vscode.workspace.openTextDocument(renderedDocuments.set(fileLabel, rendered.name, renderedPromptMarkdown(rendered, fileLabel)));
    await vscode.window.showTextDocument(document, { viewColumn: vscode.ViewColumn.Beside, preview: true });
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
  starting?.then(() => (statusBar.schedule(), void productionStatus.update()), () => undefined);
  const stamps = globalThis as { __promptInsightLoadStart?: number; __promptInsightLoadEnd?: number };
  const evaluationMs = (stamps.__promptInsightLoadEnd ?? activateStart) - (stamps.__promptInsightLoadStart ?? activateStart);
  const activateMs = performance.now() - activateStart;
  // Read by the activation benchmark; the server starts in the background and is not part of it.
  log.info(`Activated in ${(evaluationMs + activateMs).toFixed(1)} ms (module evaluation ${evaluationMs.toFixed(1)} ms, activate() ${activateMs.toFixed(1)} ms).`);
}

export async function deactivate(): Promise<void> {
  await client?.stop();
  client = undefined;
}
