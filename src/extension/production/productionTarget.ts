/**
 * What both production actions need before they ask anything: the prompt (the Production page's argument,
 * else the active editor's first prompt), a trusted workspace, the configured production trace files
 * (resolved inside the workspace as the language server resolves them) and the versions production saw
 * (from the server's Production view, its sources and cache). Each missing piece is said in words, with
 * "Open Settings" where a setting is the fix.
 */
import * as vscode from 'vscode';
import { findWorkspaceRoot } from '../../core/files/workspaceFile';
import type { Prompt } from '../../core/formats/model';
import { promptsOf } from '../../core/formats/promptFile';
import { readProductionSettings } from '../../core/telemetry/productionSettings';
import { boundedTraceOpener, EDITOR_TRACE_MAX_BYTES, resolveTraceFiles, type TraceOpener } from '../../core/telemetry/workspaceTraces';
import { isProductionActionArgs, type ProductionActionArgs } from '../../protocol/commands';
import type { ProductionRequester } from './showProduction';

/** Where the actions show their documents: read-only, never dirty (the extension's RenderedDocuments). */
export interface ReadOnlyDocuments {
  setTitled(title: string, fileLabel: string, text: string): vscode.Uri;
}

export interface SeenVersion {
  version: string;
  requests: number;
  /** `a1b2c3d "Shorter greeting"`, or `not in git history`. */
  detail: string;
  thisText: boolean;
}

export interface ProductionTarget {
  uri: vscode.Uri;
  file: string;
  /** The file as the workspace names it. */
  label: string;
  prompt: Prompt;
  promptIndex: number;
  root: string;
  traces: string[];
  open: TraceOpener;
  /** Newest first, as the Production page lists them; empty when the server had none (said in `versionsProblem`). */
  versions: SeenVersion[];
  versionsProblem?: string;
  args?: ProductionActionArgs;
}

const SETTINGS = 'Open Settings';

function offerSettings(message: string): void {
  void vscode.window.showInformationMessage(`Prompt Insight: ${message}`, SETTINGS).then((choice) => {
    if (choice === SETTINGS) void vscode.commands.executeCommand('workbench.action.openSettings', 'promptInsight.production.sources');
  });
}

/** The target, or undefined once the user has been told why there is none. */
export async function productionTarget(args: unknown, action: string, request: ProductionRequester): Promise<ProductionTarget | undefined> {
  const given = isProductionActionArgs(args) ? args : undefined;
  const uri = given ? vscode.Uri.parse(given.uri) : vscode.window.activeTextEditor?.document.uri;
  if (!uri || uri.scheme !== 'file') {
    void vscode.window.showInformationMessage(`Prompt Insight: open a prompt file saved on disk to ${action}.`);
    return undefined;
  }
  if (!vscode.workspace.isTrusted) {
    // As Show Production: production sources are read (and git run on the file's history) only in a trusted workspace.
    void vscode.window.showWarningMessage(`Prompt Insight reads production traces only in a trusted workspace (it runs git on the file's history). Trust the workspace to ${action}; token counts work meanwhile.`);
    return undefined;
  }
  const file = uri.fsPath;
  const label = vscode.workspace.asRelativePath(uri, false);
  const promptIndex = given?.promptIndex ?? 0;
  const found = await promptsOf(file, undefined);
  const prompt = 'prompts' in found ? found.prompts[promptIndex] : undefined;
  if (!prompt) {
    void vscode.window.showInformationMessage(`Prompt Insight: ${label} has no prompt${'error' in found ? ` (${found.error})` : ''}.`);
    return undefined;
  }
  const settings = readProductionSettings(vscode.workspace.getConfiguration('promptInsight', uri).get('production'));
  const patterns = settings.sources.flatMap((s) => (s.kind === 'traces' ? [s.traces] : []));
  if (settings.sources.length === 0) {
    offerSettings(`no production source is configured: set promptInsight.production.sources to the trace files your app writes (OTLP JSON Lines) to ${action}.`);
    return undefined;
  }
  if (patterns.length === 0) {
    offerSettings(`to ${action} Prompt Insight reads each request from trace files, and the production sources configured are Prometheus only: add { "traces": "path/or/glob" } to promptInsight.production.sources.`);
    return undefined;
  }
  const root = vscode.workspace.getWorkspaceFolder(uri)?.uri.fsPath ?? findWorkspaceRoot(file);
  const traces: string[] = [];
  const problems: string[] = [];
  for (const pattern of patterns) {
    const resolved = await resolveTraceFiles(pattern, root);
    traces.push(...resolved.files);
    problems.push(...resolved.problems);
  }
  if (traces.length === 0) {
    offerSettings(`no production trace file to read: ${problems.join(' ') || 'the configured sources match no file.'}`);
    return undefined;
  }
  const seen = await vscode.window.withProgress({ location: vscode.ProgressLocation.Window, title: 'Prompt Insight: reading production…' }, () => request({ uri: uri.toString(), promptIndex }));
  const versions = seen && 'view' in seen ? versionsOf(seen.view.sources) : [];
  const versionsProblem = !seen ? 'the language server did not answer' : 'problem' in seen ? seen.problem : versions.length === 0 ? `production served no request of ${prompt.name} in the configured sources` : undefined;
  const open = boundedTraceOpener(root, EDITOR_TRACE_MAX_BYTES, () => undefined);
  return { uri, file, label, prompt, promptIndex, root, traces: [...new Set(traces)], open, versions, ...(versionsProblem ? { versionsProblem } : {}), ...(given ? { args: given } : {}) };
}

/** The trace sources' versions, newest first, each once (requests added up over sources). */
function versionsOf(sources: readonly { kind: string; versions: readonly { version: string; requests: number; revision: string | null; revisionSubject: string | null; thisText: boolean }[] }[]): SeenVersion[] {
  const byVersion = new Map<string, SeenVersion>();
  for (const source of sources) {
    if (source.kind !== 'traces') continue;
    for (const v of source.versions) {
      const known = byVersion.get(v.version);
      if (known) {
        known.requests += v.requests;
        known.thisText ||= v.thisText;
        continue;
      }
      const detail = v.revision === null ? 'not in git history' : v.revision === 'working' ? 'the working copy' : `${v.revision.slice(0, 7)}${v.revisionSubject ? ` "${v.revisionSubject}"` : ''}`;
      byVersion.set(v.version, { version: v.version, requests: v.requests, detail, thisText: v.thisText });
    }
  }
  return [...byVersion.values()];
}

export interface PickedRange {
  sinceMs?: number;
  untilMs?: number;
  /** `last 24 hours`, `2026-12-05 10:00 – 2026-12-05 18:00 UTC`. */
  words: string;
}

const HOUR_MS = 3_600_000;
const utc = (ms: number) => `${new Date(ms).toISOString().slice(0, 16).replace('T', ' ')} UTC`;

/** The requests' range: the Production page's when it gave one, else `first` (last 24 h for sampling; every span for deciding, as the CLI). */
export async function pickRange(target: ProductionTarget, first: 'day' | 'all', nowMs: number = Date.now()): Promise<PickedRange | undefined> {
  type Item = vscode.QuickPickItem & { range?: PickedRange; custom?: true };
  const page = target.args?.since !== undefined || target.args?.until !== undefined ? { ...(target.args.since ? { sinceMs: Date.parse(target.args.since) } : {}), ...(target.args.until ? { untilMs: Date.parse(target.args.until) } : {}) } : undefined;
  const between = (r: { sinceMs?: number; untilMs?: number }) => `${r.sinceMs !== undefined ? utc(r.sinceMs) : 'the first span'} – ${r.untilMs !== undefined ? utc(r.untilMs) : 'now'}`;
  const day: Item = { label: 'Last 24 hours', range: { sinceMs: nowMs - 24 * HOUR_MS, untilMs: nowMs, words: 'last 24 hours' } };
  const all: Item = { label: 'Everything in the trace files', range: { words: 'every request in the trace files' } };
  const items: Item[] = [
    ...(page ? [{ label: "The Production page's range", description: between(page), range: { ...page, words: between(page) } }] : []),
    ...(first === 'day' ? [day, all] : [all, day]),
    { label: 'Last hour', range: { sinceMs: nowMs - HOUR_MS, untilMs: nowMs, words: 'last hour' } },
    { label: 'Last 7 days', range: { sinceMs: nowMs - 7 * 24 * HOUR_MS, untilMs: nowMs, words: 'last 7 days' } },
    { label: 'Custom range…', description: 'two ISO times', custom: true },
  ];
  const picked = await vscode.window.showQuickPick(items, { title: 'Which requests: the time they ended', ignoreFocusOut: true });
  if (!picked) return undefined;
  if (!picked.custom) return picked.range;
  const text = await vscode.window.showInputBox({
    title: 'Requests that ended between (two ISO times, UTC)',
    value: `${new Date(page?.sinceMs ?? nowMs - 24 * HOUR_MS).toISOString()} ${new Date(page?.untilMs ?? nowMs).toISOString()}`,
    ignoreFocusOut: true,
    validateInput: (v) => (customRange(v) ? undefined : 'Two ISO times, the first before the second: 2026-12-05T10:00Z 2026-12-05T18:00Z'),
  });
  const range = text === undefined ? undefined : customRange(text);
  return range ? { ...range, words: between(range) } : undefined;
}

function customRange(text: string): { sinceMs: number; untilMs: number } | undefined {
  const parts = text.trim().split(/\s+|\s*\/\s*/);
  if (parts.length !== 2 || !parts.every((p) => /^\d{4}-\d{2}-\d{2}/.test(p))) return undefined;
  const [sinceMs, untilMs] = parts.map((p) => Date.parse(p)) as [number, number];
  return Number.isFinite(sinceMs) && Number.isFinite(untilMs) && sinceMs < untilMs ? { sinceMs, untilMs } : undefined;
}

/** Long work with a cancel button: the token becomes the core's AbortSignal. Undefined when cancelled. */
export function withCancellableProgress<T>(title: string, work: (signal: AbortSignal) => Promise<T>): Thenable<T | undefined> {
  return vscode.window.withProgress({ location: vscode.ProgressLocation.Notification, title, cancellable: true }, async (_progress, token) => {
    const stop = new AbortController();
    const listener = token.onCancellationRequested(() => stop.abort());
    try {
      return await work(stop.signal);
    } catch (error) {
      if (stop.signal.aborted) return undefined;
      throw error;
    } finally {
      listener.dispose();
    }
  });
}
