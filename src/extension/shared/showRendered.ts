/** A Markdown document the extension wrote, shown beside the editor rendered by VS Code's own Markdown preview. */
import * as vscode from 'vscode';

/**
 * Opens the (final) document in the built-in Markdown preview, locked to it; as text when there is
 * no preview (the built-in Markdown extension disabled). The preview renders what the document holds
 * when it opens: call it once the text is final.
 */
export async function showRendered(uri: vscode.Uri): Promise<void> {
  const document = await vscode.workspace.openTextDocument(uri);
  try {
    await vscode.commands.executeCommand('markdown.showLockedPreviewToSide', uri);
  } catch {
    await vscode.window.showTextDocument(document, { viewColumn: vscode.ViewColumn.Beside, preview: true });
  }
}
