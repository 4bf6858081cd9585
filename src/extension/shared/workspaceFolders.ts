/** The workspace's folders on disk (remote and virtual folders have no path the engine can read). */
import * as vscode from 'vscode';

export function fileWorkspaceFolders(): string[] {
  return (vscode.workspace.workspaceFolders ?? []).filter((f) => f.uri.scheme === 'file').map((f) => f.uri.fsPath);
}
