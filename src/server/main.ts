/**
 * The Prompt Insight language server: documents → core analysis → hover, CodeLens, diagnostics,
 * symbols and the token summary the status bar shows. It must never die on input: every handler
 * is guarded, and a failure is logged and answered with "nothing" rather than a crash.
 */
import './earlyTokenTables'; // first: see there
import { CodeLensRefreshRequest, createConnection, ProposedFeatures, TextDocuments, TextDocumentSyncKind } from 'vscode-languageserver/node';
import { TextDocument } from 'vscode-languageserver-textdocument';
import { setRenderLog, warmRenderProcess } from '../core/render/renderer';
import { loadEncoder } from '../core/tokens/engine';
import {
  isRenderedPromptParams, isRunsChangedParams, isTokenSummaryParams, renderedPromptRequest, type RenderedPrompt, readServerInitOptions, readServerSettings, runsChangedNotification, tokenSummaryRequest,
  workspaceTrustedNotification,
  DEFAULT_SERVER_SETTINGS, type ServerSettings, type TokenSummary,
} from '../protocol/lsp';
import { DocumentAnalyses, type AnalyzedDocument } from './documentAnalyses';
import { promptAt, toCodeLenses, toDiagnostics, toHover, toSymbols } from './presenters';
import { isProductionViewParams, productionViewRequest, type ProductionViewResult } from '../protocol/productionRequest';
import { ProductionFigures } from './productionFigures';
import { productionViewResult } from './productionPresenter';
import { RunHistory } from './runHistory';
import type { RunLookup } from './runPresenters';
import { fileNameOfUri, storedPathMatcher } from './uri';

const DIAGNOSTICS_DELAY_MS = 150;

const connection = createConnection(ProposedFeatures.all);
const documents = new TextDocuments(TextDocument);
let settings: ServerSettings = DEFAULT_SERVER_SETTINGS;
let canPullConfiguration = false;
let canRefreshCodeLens = false;
let workspaceFolders: string[] = [];
/** Restricted Mode until the client says the workspace is trusted (initializationOptions, then workspaceTrustedNotification). */
let workspaceTrusted = false;
const analyses = new DocumentAnalyses(analysisOptions(settings));
const pendingDiagnostics = new Map<string, NodeJS.Timeout>();
const runHistory = new RunHistory((message) => connection.console.warn(message));
// Production numbers read in the background: lenses are refreshed when a read completes.
const production = new ProductionFigures(() => {
  if (canRefreshCodeLens) connection.sendRequest(CodeLensRefreshRequest.type).catch(() => undefined);
}, (message) => connection.console.warn(message));
/** A hover waits this long for production numbers not yet cached, then says they are being read. */
const PRODUCTION_HOVER_WAIT_MS = 400;

process.on('uncaughtException', (error) => connection.console.error(`Prompt Insight server: uncaught ${describeError(error)}`));
process.on('unhandledRejection', (error) => connection.console.error(`Prompt Insight server: unhandled ${describeError(error)}`));

function analysisOptions(current: ServerSettings) {
  // workspaceFolders: `${file:}` values and partials are read only inside the folder holding the prompt.
  // workspaceTrusted: in Restricted Mode no template engine runs and no referenced file is read.
  // tokenizers: each folder is read by the rules of who named it (core/tokens/tokenizerFolder.ts).
  // tokenizeEndpoint: the endpoint ▶ Run uses counts models with no tokenizer at hand — never in Restricted Mode.
  const endpoint = workspaceTrusted && current.tokens.tokenizeEndpoint ? { tokenizeEndpoint: { baseUrl: current.tokens.tokenizeEndpoint } } : {};
  return { defaultModel: current.tokens.defaultModel, tokenBudget: current.tokens.budget, tokenizers: current.tokens.tokenizers, ...endpoint, partialFolders: current.partialFolders, workspaceFolders, workspaceTrusted };
}

connection.onInitialize((params) => {
  canPullConfiguration = params.capabilities.workspace?.configuration === true;
  canRefreshCodeLens = params.capabilities.workspace?.codeLens?.refreshSupport === true;
  const init = readServerInitOptions(params.initializationOptions);
  settings = readServerSettings(init.settings);
  runHistory.setPath(init.storePath);
  workspaceFolders = init.workspaceFolders ?? [];
  workspaceTrusted = init.workspaceTrusted === true;
  setRenderLog((message) => connection.console.info(message));
  analyses.setOptions(analysisOptions(settings));
  production.configure(settings.production, workspaceFolders, workspaceTrusted);
  return {
    capabilities: {
      textDocumentSync: TextDocumentSyncKind.Incremental,
      hoverProvider: true,
      codeLensProvider: { resolveProvider: false },
      documentSymbolProvider: true,
    },
    serverInfo: { name: 'prompt-insight', version: '0.1.0' },
  };
});

connection.onInitialized(() => {
  // Build the encodings' tables off the start-up path: the first answer does not wait for them,
  // and no later hover does. (Loading only o200k_base was measured too: its edit→hover p95 was no
  // better — 12–21 ms against 10–15 ms — so the memory saving did not buy latency.)
  setImmediate(() => void warmEncoders().catch((e) => connection.console.error(describeError(e))));
  if (workspaceTrusted) warmRenderer();
  else connection.console.info('Restricted Mode: templates are not rendered and referenced files are not read until the workspace is trusted.');
  void refreshSettings();
});

/** Starts the render process ahead of the first templated prompt; its isolation is logged (renderer.ts). */
function warmRenderer(): void {
  warmRenderProcess().catch((error) => connection.console.warn(`The template render process did not start: ${describeError(error)}`));
}

connection.onNotification(workspaceTrustedNotification, () => {
  if (workspaceTrusted) return;
  workspaceTrusted = true;
  connection.console.info('The workspace is trusted: templates are rendered from now on.');
  warmRenderer();
  analyses.setOptions(analysisOptions(settings));
  production.configure(settings.production, workspaceFolders, workspaceTrusted);
  void refreshSettings(); // the workspace's own tokenizer folders count from now on
  for (const document of documents.all()) scheduleDiagnostics(document, 0);
  if (canRefreshCodeLens) connection.sendRequest(CodeLensRefreshRequest.type).catch(() => undefined);
});

/** cl100k_base (GPT-4 and GPT-3.5 models) waits this long: built at once it held the first CodeLens back ~20 ms. */
const SECOND_ENCODING_DELAY_MS = 300;

/** Loads the tables only: the Unicode split pattern is compiled on the first non-ASCII text (bpe.ts), not for an ASCII prompt's first answer. */
async function warmEncoders(): Promise<void> {
  await loadEncoder('o200k_base');
  await new Promise((resolve) => setTimeout(resolve, SECOND_ENCODING_DELAY_MS));
  await loadEncoder('cl100k_base');
}

connection.onNotification(runsChangedNotification, (params) => {
  if (!isRunsChangedParams(params)) return;
  runHistory.setPath(params.storePath);
  if (canRefreshCodeLens) connection.sendRequest(CodeLensRefreshRequest.type).catch(() => undefined);
});

function runLookup(uri: string): RunLookup {
  return { records: runHistory.all(), isThisFile: storedPathMatcher(uri, workspaceFolders) };
}

connection.onDidChangeConfiguration((change) => {
  void refreshSettings((change.settings as { promptInsight?: unknown } | null)?.promptInsight);
});

async function refreshSettings(pushed?: unknown): Promise<void> {
  try {
    // Pulled when the client can answer: its answer carries who wrote each tokenizer folder; a push does not.
    const raw = canPullConfiguration ? await connection.workspace.getConfiguration('promptInsight') : pushed;
    if (raw === undefined) return;
    settings = readServerSettings(raw);
    analyses.setOptions(analysisOptions(settings));
    production.configure(settings.production, workspaceFolders, workspaceTrusted);
    for (const document of documents.all()) scheduleDiagnostics(document);
    if (canRefreshCodeLens) connection.sendRequest(CodeLensRefreshRequest.type).catch(() => undefined);
  } catch (error) {
    connection.console.error(`Could not read settings: ${describeError(error)}`);
  }
}

documents.onDidOpen((event) => scheduleDiagnostics(event.document, 0));
documents.onDidChangeContent((event) => scheduleDiagnostics(event.document));
documents.onDidClose((event) => {
  clearTimeout(pendingDiagnostics.get(event.document.uri));
  pendingDiagnostics.delete(event.document.uri);
  analyses.forget(event.document.uri);
  void connection.sendDiagnostics({ uri: event.document.uri, diagnostics: [] });
});

function scheduleDiagnostics(document: TextDocument, delayMs = DIAGNOSTICS_DELAY_MS): void {
  clearTimeout(pendingDiagnostics.get(document.uri));
  pendingDiagnostics.set(
    document.uri,
    setTimeout(() => {
      pendingDiagnostics.delete(document.uri);
      void guarded('diagnostics', async () => {
        const current = documents.get(document.uri);
        if (!current) return;
        const analyzed = await analyses.get(current);
        if (documents.get(document.uri)?.version !== analyzed.version) return; // a newer edit will publish
        await connection.sendDiagnostics({ uri: document.uri, version: analyzed.version, diagnostics: toDiagnostics(analyzed.analysis, analyzed.lines) });
      }, undefined);
    }, delayMs),
  );
}

connection.onHover((params) =>
  guarded('hover', async () => {
    const analyzed = await analyzedDocument(params.textDocument.uri);
    if (!analyzed) return null;
    const prod = await production.lookup(params.textDocument.uri, PRODUCTION_HOVER_WAIT_MS);
    return toHover(analyzed.analysis, analyzed.lines.offsetAt(params.position), analyzed.lines, runLookup(params.textDocument.uri), prod);
  }, null),
);

connection.onCodeLens((params) =>
  guarded('codeLens', async () => {
    const { uri } = params.textDocument;
    const analyzed = await analyzedDocument(uri);
    if (!analyzed) return [];
    return toCodeLenses(uri, analyzed.analysis, analyzed.lines, runLookup(uri), settings.run.repeats, await production.lookup(uri, 0));
  }, []),
);

connection.onDocumentSymbol((params) =>
  guarded('documentSymbol', async () => {
    const analyzed = await analyzedDocument(params.textDocument.uri);
    if (!analyzed) return [];
    return toSymbols(analyzed.analysis, analyzed.lines);
  }, []),
);

connection.onRequest(renderedPromptRequest, (params) =>
  guarded('renderedPrompt', async (): Promise<RenderedPrompt | null> => {
    if (!isRenderedPromptParams(params)) return null;
    const analyzed = await analyzedDocument(params.uri);
    if (!analyzed) return null;
    const prompt = analyzed.analysis.prompts[params.promptIndex];
    if (!prompt) return null;
    const inPrompt = (offset: number) => offset >= prompt.prompt.range.start && offset <= prompt.prompt.range.end;
    return {
      name: prompt.prompt.name,
      model: prompt.model.model,
      modelFromFile: prompt.modelFromFile,
      encoding: prompt.encoding,
      totalTokens: prompt.totalTokens,
      messages: prompt.messages.map((m) => ({ role: m.role, ...(m.name ? { name: m.name } : {}), content: m.content, tokens: m.tokens, mediaParts: m.mediaParts, line: analyzed.lines.positionAt(m.range.start).line })),
      notes: analyzed.analysis.diagnostics.filter((d) => inPrompt(d.range.start) && d.severity !== 'hint').map((d) => `line ${analyzed.lines.positionAt(d.range.start).line + 1}: ${d.message}`),
    };
  }, null),
);

/** Show Production waits for a read in progress, up to this long. */
const PRODUCTION_VIEW_WAIT_MS = 30_000;

connection.onRequest(productionViewRequest, (params) =>
  guarded('productionView', async (): Promise<ProductionViewResult> => {
    if (!isProductionViewParams(params)) return null;
    const analyzed = await analyzedDocument(params.uri);
    const prompt = analyzed?.analysis.prompts[params.promptIndex];
    if (!prompt) return null;
    return productionViewResult(await production.lookup(params.uri, PRODUCTION_VIEW_WAIT_MS), prompt, fileNameOfUri(params.uri));
  }, null),
);

connection.onRequest(tokenSummaryRequest, (params) =>
  guarded('tokenSummary', async (): Promise<TokenSummary | null> => {
    if (!isTokenSummaryParams(params)) return null;
    const analyzed = await analyzedDocument(params.uri);
    if (!analyzed) return null;
    const prompt = promptAt(analyzed.analysis, analyzed.lines.offsetAt(params.position));
    const summary: TokenSummary = {};
    if (prompt) {
      summary.prompt = { name: prompt.prompt.name, totalTokens: prompt.totalTokens, model: prompt.model.model, encoding: prompt.encoding, exact: prompt.exact };
    }
    const selected = params.selections
      .map((r) => analyzed.text.slice(analyzed.lines.offsetAt(r.start), analyzed.lines.offsetAt(r.end)))
      .filter((s) => s.length > 0);
    if (selected.length > 0) {
      const encoder = prompt?.encoder ?? (await loadEncoder('o200k_base'));
      summary.selectionTokens = selected.reduce((sum, s) => sum + analyses.counter.count(encoder, s), 0);
    }
    return summary;
  }, null),
);

/** The analysis of an open document; undefined when the client has not opened it. */
async function analyzedDocument(uri: string): Promise<AnalyzedDocument | undefined> {
  const document = documents.get(uri);
  return document ? analyses.get(document) : undefined;
}

async function guarded<T>(name: string, work: () => Promise<T>, fallback: T): Promise<T> {
  try {
    return await work();
  } catch (error) {
    connection.console.error(`Prompt Insight ${name} failed: ${describeError(error)}`);
    return fallback;
  }
}

function describeError(error: unknown): string {
  return error instanceof Error ? `${error.message}\n${error.stack ?? ''}` : String(error);
}

documents.listen(connection);
connection.listen();
