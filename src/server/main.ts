/**
 * The Prompt Insight language server: documents → core analysis → hover, CodeLens, diagnostics,
 * symbols and the token summary the status bar shows; tests files get diagnostics, completion and
 * hover from their schema (testsFiles.ts). It must never die on input: every handler
 * is guarded, and a failure is logged and answered with "nothing" rather than a crash
 * (serverErrors.ts). Read top to bottom: the parts, the workspace's lifecycle (initialize, trust,
 * settings, stored runs), the documents, the answers, then listening.
 */
import './earlyTokenTables'; // first: see there
import { CodeLensRefreshRequest, createConnection, MarkupKind, ProposedFeatures, TextDocuments, TextDocumentSyncKind } from 'vscode-languageserver/node';
import { TextDocument } from 'vscode-languageserver-textdocument';
import { setRenderLog } from '../core/render/renderer';
import {
  isRenderedPromptParams, isRunsChangedParams, isTokenSummaryParams, readServerInitOptions, readServerSettings, renderedPromptRequest, runsChangedNotification, tokenSummaryRequest,
  workspaceTrustedNotification,
} from '../protocol/lsp';
import { isProductionAlertParams, isProductionViewParams, productionAlertRequest, productionViewRequest } from '../protocol/productionRequest';
import { viewSince } from '../core/telemetry/productionWindow';
import { DiagnosticsSchedule } from './diagnosticsSchedule';
import { DocumentAnalyses, type AnalyzedDocument } from './documentAnalyses';
import { toCodeLenses, toDiagnostics, toHover, toSymbols } from './presenters';
import { ProductionFigures } from './productionFigures';
import { productionAlertOf, productionViewResult } from './productionPresenter';
import { renderedPromptOf, tokenSummaryOf } from './promptRequests';
import { RunHistory } from './runHistory';
import { judgeTrustLine } from './judgeTrustHover';
import { trustSummariesPath } from '../core/adherence/trustSummaries';
import type { RunLookup } from './runPresenters';
import { describeError, guardedBy } from './serverErrors';
import { isTestsFileUri, testsFileCompletion, testsFileDiagnostics, testsFileHover, testsFileLenses } from './testsFiles';
import { fileNameOfUri, filePathOfUri, storedPathMatcher } from './uri';
import { warmEncoders, warmRenderer } from './warmUp';
import { analysisOptions, initialWorkspaceState } from './workspaceState';

/** A hover waits this long for production numbers not yet cached, then says they are being read. */
const PRODUCTION_HOVER_WAIT_MS = 400;
/** Show Production waits for a read in progress, up to this long. */
const PRODUCTION_VIEW_WAIT_MS = 30_000;

// ── The parts ──
const connection = createConnection(ProposedFeatures.all);
const documents = new TextDocuments(TextDocument);
const state = initialWorkspaceState();
const analyses = new DocumentAnalyses(analysisOptions(state));
const runHistory = new RunHistory((message) => connection.console.warn(message));
// Production numbers read in the background: lenses are refreshed when a read completes.
const production = new ProductionFigures(refreshCodeLenses, connection.console);
const guarded = guardedBy((message) => connection.console.error(message));
const diagnostics = new DiagnosticsSchedule((uri) => void guarded('diagnostics', () => publishDiagnostics(uri), undefined));

process.on('uncaughtException', (error) => connection.console.error(`Prompt Insight server: uncaught ${describeError(error)}`));
process.on('unhandledRejection', (error) => connection.console.error(`Prompt Insight server: unhandled ${describeError(error)}`));

// ── The workspace's lifecycle ──
connection.onInitialize((params) => {
  state.canPullConfiguration = params.capabilities.workspace?.configuration === true;
  state.canRefreshCodeLens = params.capabilities.workspace?.codeLens?.refreshSupport === true;
  const init = readServerInitOptions(params.initializationOptions);
  state.settings = readServerSettings(init.settings);
  runHistory.setPath(init.storePath);
  state.workspaceFolders = init.workspaceFolders ?? [];
  state.workspaceTrusted = init.workspaceTrusted === true;
  setRenderLog((message) => connection.console.info(message));
  applyWorkspaceState();
  return {
    capabilities: {
      textDocumentSync: TextDocumentSyncKind.Incremental,
      hoverProvider: true,
      codeLensProvider: { resolveProvider: false },
      documentSymbolProvider: true,
      // Tests files only: keys, assertion types and other values their schema lists.
      completionProvider: { triggerCharacters: [' ', ':'] },
    },
    serverInfo: { name: 'prompt-insight', version: '0.1.0' },
  };
});

connection.onInitialized(() => {
  // Build the encodings' tables off the start-up path: the first answer does not wait for them, and no later hover does.
  setImmediate(() => void warmEncoders().catch((e) => connection.console.error(describeError(e))));
  if (state.workspaceTrusted) warmRenderer((message) => connection.console.warn(message));
  else connection.console.info('Restricted Mode: templates are not rendered and referenced files are not read until the workspace is trusted.');
  void refreshSettings();
});

connection.onNotification(workspaceTrustedNotification, () => {
  if (state.workspaceTrusted) return;
  state.workspaceTrusted = true;
  connection.console.info('The workspace is trusted: templates are rendered from now on.');
  warmRenderer((message) => connection.console.warn(message));
  applyWorkspaceState();
  void refreshSettings(); // the workspace's own tokenizer folders count from now on
  for (const document of documents.all()) diagnostics.schedule(document.uri, 0);
  refreshCodeLenses();
});

connection.onDidChangeConfiguration((change) => {
  void refreshSettings((change.settings as { promptInsight?: unknown } | null)?.promptInsight);
});

connection.onNotification(runsChangedNotification, (params) => {
  if (!isRunsChangedParams(params)) return;
  runHistory.setPath(params.storePath);
  refreshCodeLenses();
});

/** Analyses and production reads follow the settings, folders and trust. */
function applyWorkspaceState(): void {
  analyses.setOptions(analysisOptions(state));
  production.configure(state.settings.production, state.workspaceFolders, state.workspaceTrusted);
}

async function refreshSettings(pushed?: unknown): Promise<void> {
  try {
    // Pulled when the client can answer: its answer carries who wrote each tokenizer folder; a push does not.
    const raw = state.canPullConfiguration ? await connection.workspace.getConfiguration('promptInsight') : pushed;
    if (raw === undefined) return;
    state.settings = readServerSettings(raw);
    applyWorkspaceState();
    for (const document of documents.all()) diagnostics.schedule(document.uri);
    refreshCodeLenses();
  } catch (error) {
    connection.console.error(`Could not read settings: ${describeError(error)}`);
  }
}

function refreshCodeLenses(): void {
  if (state.canRefreshCodeLens) connection.sendRequest(CodeLensRefreshRequest.type).catch(() => undefined);
}

// ── The documents ──
documents.onDidOpen((event) => diagnostics.schedule(event.document.uri, 0));
documents.onDidChangeContent((event) => diagnostics.schedule(event.document.uri));
documents.onDidClose((event) => {
  diagnostics.cancel(event.document.uri);
  analyses.forget(event.document.uri);
  void connection.sendDiagnostics({ uri: event.document.uri, diagnostics: [] });
});

async function publishDiagnostics(uri: string): Promise<void> {
  const current = documents.get(uri);
  if (!current) return;
  if (isTestsFileUri(uri)) {
    await connection.sendDiagnostics({ uri, version: current.version, diagnostics: testsFileDiagnostics(current.getText(), current) });
    return;
  }
  const analyzed = await analyses.get(current);
  if (documents.get(uri)?.version !== analyzed.version) return; // a newer edit will publish
  await connection.sendDiagnostics({ uri, version: analyzed.version, diagnostics: toDiagnostics(analyzed.analysis, analyzed.lines) });
}

/** The analysis of an open prompt document; undefined when the client has not opened it, or it is a tests file (testsFiles.ts). */
async function analyzedDocument(uri: string): Promise<AnalyzedDocument | undefined> {
  const document = documents.get(uri);
  return document && !isTestsFileUri(uri) ? analyses.get(document) : undefined;
}

function runLookup(uri: string): RunLookup {
  return { records: runHistory.all(), isThisFile: storedPathMatcher(uri, state.workspaceFolders) };
}

// ── The answers ──
connection.onHover((params) =>
  guarded('hover', async () => {
    const tests = isTestsFileUri(params.textDocument.uri) ? documents.get(params.textDocument.uri) : undefined;
    if (tests) {
      const offset = tests.offsetAt(params.position);
      const hover = testsFileHover(tests.getText(), offset, tests);
      // A judged check also says whether its judge was trusted when last checked.
      const testsPath = filePathOfUri(params.textDocument.uri);
      const trust = testsPath ? judgeTrustLine(tests.getText(), offset, testsPath, runHistory.path ? trustSummariesPath(runHistory.path) : undefined) : undefined;
      if (!trust) return hover;
      const value = hover && typeof hover.contents === 'object' && 'value' in hover.contents ? `${hover.contents.value}\n\n${trust}` : trust;
      return { contents: { kind: MarkupKind.Markdown, value }, ...(hover?.range ? { range: hover.range } : {}) };
    }
    const analyzed = await analyzedDocument(params.textDocument.uri);
    if (!analyzed) return null;
    const prod = await production.lookup(params.textDocument.uri, PRODUCTION_HOVER_WAIT_MS);
    return toHover(params.textDocument.uri, analyzed.analysis, analyzed.lines.offsetAt(params.position), analyzed.lines, runLookup(params.textDocument.uri), prod);
  }, null),
);

connection.onCodeLens((params) =>
  guarded('codeLens', async () => {
    const { uri } = params.textDocument;
    const tests = isTestsFileUri(uri) ? documents.get(uri) : undefined;
    if (tests) return testsFileLenses(uri, tests.getText(), tests);
    const analyzed = await analyzedDocument(uri);
    if (!analyzed) return [];
    return toCodeLenses(uri, analyzed.analysis, analyzed.lines, runLookup(uri), state.settings.run.repeats, await production.lookup(uri, 0));
  }, []),
);

connection.onCompletion((params) =>
  guarded('completion', async () => {
    const tests = isTestsFileUri(params.textDocument.uri) ? documents.get(params.textDocument.uri) : undefined;
    return tests ? testsFileCompletion(tests.getText(), tests.offsetAt(params.position), tests, params.context?.triggerCharacter) : null;
  }, null),
);

connection.onDocumentSymbol((params) =>
  guarded('documentSymbol', async () => {
    const analyzed = await analyzedDocument(params.textDocument.uri);
    return analyzed ? toSymbols(analyzed.analysis, analyzed.lines) : [];
  }, []),
);

connection.onRequest(renderedPromptRequest, (params) =>
  guarded('renderedPrompt', async () => {
    if (!isRenderedPromptParams(params)) return null;
    const analyzed = await analyzedDocument(params.uri);
    return analyzed ? renderedPromptOf(analyzed, params.promptIndex) : null;
  }, null),
);

connection.onRequest(productionViewRequest, (params) =>
  guarded('productionView', async () => {
    if (!isProductionViewParams(params)) return null;
    const prompt = (await analyzedDocument(params.uri))?.analysis.prompts[params.promptIndex];
    if (!prompt) return null;
    // The sources as set first (the lens's read, cached); a window they do not cover is read apart.
    const base = await production.lookup(params.uri, PRODUCTION_VIEW_WAIT_MS);
    const since = base.state === 'ready' ? viewSince(base.production, prompt.prompt.name, params.window, Date.now()) : undefined;
    const lookup = since === undefined ? base : await production.lookup(params.uri, PRODUCTION_VIEW_WAIT_MS, since);
    return productionViewResult(lookup, prompt, fileNameOfUri(params.uri), params.window);
  }, null),
);

connection.onRequest(productionAlertRequest, (params) =>
  guarded('productionAlert', async () => {
    if (!isProductionAlertParams(params)) return null;
    const analyzed = await analyzedDocument(params.uri);
    // The lens's read and cadence: no wait, no read of its own beyond what the lens starts.
    const lookup = analyzed ? await production.lookup(params.uri, 0) : undefined;
    return analyzed && lookup ? productionAlertOf(lookup, analyzed.analysis.prompts, Date.now()) : null;
  }, null),
);

connection.onRequest(tokenSummaryRequest, (params) =>
  guarded('tokenSummary', async () => {
    if (!isTokenSummaryParams(params)) return null;
    const analyzed = await analyzedDocument(params.uri);
    return analyzed ? tokenSummaryOf(analyzed, params, analyses.counter) : null;
  }, null),
);

// ── Listening ──
documents.listen(connection);
connection.listen();
