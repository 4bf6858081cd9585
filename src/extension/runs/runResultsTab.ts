/**
 * Which run document the active tab shows: its text, or its Markdown preview. The preview is the
 * built-in Markdown extension's webview, so it is known by its title ("Preview <name>", or
 * "[Preview] <name>" when locked), the one thing it shares with the document it renders.
 */
import { posix } from 'node:path';
import * as vscode from 'vscode';

/** Set while the active tab shows a run document, so its commands show on the preview's title bar too. */
export const RUN_RESULTS_ACTIVE = 'promptInsight.runResultsActive';

/** Set while any run document with an answer to keep is open, so the command is in the palette from any editor. */
export const RUN_RESULTS_OPEN = 'promptInsight.runResultsOpen';

export function runDocumentOfActiveTab(open: readonly vscode.Uri[]): vscode.Uri | undefined {
  const tab = vscode.window.tabGroups.activeTabGroup.activeTab;
  return tab ? open.find((uri) => tabShows(tab, uri)) : undefined;
}

/** Whether any tab shows the document: a run's text is kept while its preview is open, after the editor has let the document go. */
export function isShownInATab(uri: vscode.Uri): boolean {
  return vscode.window.tabGroups.all.some((group) => group.tabs.some((tab) => tabShows(tab, uri)));
}

function tabShows(tab: vscode.Tab, uri: vscode.Uri): boolean {
  const input = tab.input;
  if (input instanceof vscode.TabInputText) return input.uri.toString() === uri.toString();
  if (!(input instanceof vscode.TabInputWebview) || !input.viewType.endsWith('markdown.preview')) return false;
  const name = posix.basename(uri.path);
  return tab.label === `Preview ${name}` || tab.label === `[Preview] ${name}`;
}
