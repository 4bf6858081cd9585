import * as path from 'node:path';
import type * as vscode from 'vscode';

/** Where this workspace's runs are kept: VS Code's per-workspace storage (global storage without a folder). */
export function storePathOf(context: vscode.ExtensionContext): string {
  return path.join((context.storageUri ?? context.globalStorageUri).fsPath, 'runs.jsonl');
}
