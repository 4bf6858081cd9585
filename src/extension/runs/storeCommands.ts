/** The commands that read the workspace's run store: Export Run Results and Show Runs of a prompt. */
import * as path from 'node:path';
import * as vscode from 'vscode';
import { scrubSecrets } from '../../core/endpoint/secrets';
import { writeOutputFile } from '../../core/files/fileWrite';
import { formatMs } from '../../core/metrics/format';
import { runsToCsv, runsToJson } from '../../core/store/export';
import { loadHistoryMarkdown } from '../../core/load/loadHistory';
import { LoadResultsStore, loadResultsPath } from '../../core/load/loadResults';
import { storeNotice } from '../../core/store/sealedLines';
import { isPromptCommandArgs } from '../../protocol/commands';
import { tablesAsText } from './runDocument';
import type { RunDocuments } from './runDocuments';
import { reportingStoreErrors, usingStore } from './runStore';
import type { PromptTarget } from './runTarget';

export async function exportResults(storePath: string): Promise<void> {
  const contents = usingStore(storePath, (s) => s.read());
  if (!contents) return;
  const { records } = contents;
  const notice = storeNotice(storePath, contents);
  if (records.length === 0) {
    void vscode.window.showInformationMessage('Prompt Insight: no runs stored in this workspace yet.');
    return;
  }
  const target = await vscode.window.showSaveDialog({ title: 'Export Prompt Insight runs', filters: { CSV: ['csv'], JSON: ['json'] }, defaultUri: vscode.Uri.file(path.join(vscode.workspace.workspaceFolders?.[0]?.uri.fsPath ?? '', 'prompt-insight-runs.csv')) });
  if (!target) return;
  const text = target.path.endsWith('.json') ? runsToJson(records) : runsToCsv(records);
  // The one write module's rules: never through a link, nor into a linked folder of the workspace.
  try {
    if (target.scheme !== 'file') throw new Error(`${target.toString()} is not a file on this machine; choose a local file.`);
    writeOutputFile(target.fsPath, scrubSecrets(text), { what: 'the export', cwd: vscode.workspace.getWorkspaceFolder(target)?.uri.fsPath ?? path.dirname(target.fsPath) });
  } catch (error) {
    void vscode.window.showErrorMessage(`Prompt Insight: runs not exported: ${(error as Error).message}`);
    return;
  }
  void vscode.window.showInformationMessage(`Prompt Insight: exported ${records.length} runs to ${target.fsPath}${notice ? ` (${notice})` : ''}.`);
}

/** The stored runs (latest 50) and load tests of the prompt the command names, or of every prompt in its file. */
export async function showRuns(storePath: string, documents: RunDocuments, target: PromptTarget, args: unknown): Promise<void> {
  const file = vscode.workspace.asRelativePath(target.document.uri, false);
  const name = isPromptCommandArgs(args) ? args.promptName : undefined;
  const ofThisPrompt = (r: { file: string; prompt: string }) => r.file === file && (name === undefined || r.prompt === name);
  const records = usingStore(storePath, (s) => s.read(ofThisPrompt).records);
  if (!records) return;
  // Load tests (load, Find Capacity, compare's capacity searches) are kept beside the runs.
  const loadPoints = reportingStoreErrors(() => new LoadResultsStore(loadResultsPath(storePath)).read(ofThisPrompt).records) ?? [];
  const rows = records.slice(-50).reverse().map((r) => `| ${r.at.replace('T', ' ').slice(0, 19)} | ${r.endpointName}${r.simulated ? ' (sim)' : ''} | ${r.key.promptHash.slice(0, 8)} | ${r.run.ok ? 'ok' : r.run.error?.kind ?? 'failed'} | ${r.run.ttftMs === null ? '' : formatMs(r.run.ttftMs)} | ${r.run.e2eMs === null ? '' : formatMs(r.run.e2eMs)} | ${r.run.outputTokens ?? ''} |`);
  const runsTable = rows.length > 0 ? `| finished | endpoint | content | result | TTFT | E2E | output tokens |\n|---|---|---|---|---:|---:|---:|\n${rows.join('\n')}\n` : 'No runs stored for this prompt yet.\n';
  const uri = documents.create(`Runs of ${name ?? file}`, tablesAsText(`# Runs of ${name ?? file} (latest ${rows.length} of ${records.length})\n\n${runsTable}\n${loadHistoryMarkdown(loadPoints)}`));
  await vscode.window.showTextDocument(await vscode.workspace.openTextDocument(uri), { preview: true });
  documents.shown(uri);
}
