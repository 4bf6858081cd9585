/** The Set API Key and Clear API Key commands: pick an endpoint of the settings, then store or clear its key. */
import * as vscode from 'vscode';
import type { ApiKeys } from './apiKeys';
import { configuredEndpoints } from './endpoints';

export async function setApiKey(keys: ApiKeys, log: vscode.LogOutputChannel): Promise<void> {
  const endpoints = configuredEndpoints((m) => log.warn(m)).filter((c) => !c.bundledSim && c.config.provider !== 'vscode-lm');
  if (endpoints.length === 0) {
    const add = 'Add Endpoint…';
    void vscode.window.showInformationMessage('Prompt Insight: add an endpoint first; its key is asked for as it is added.', add).then((choice) => (choice === add ? vscode.commands.executeCommand('promptInsight.addEndpoint') : undefined));
    return;
  }
  const picked = endpoints.length === 1 ? endpoints[0] : (await vscode.window.showQuickPick(endpoints.map((c) => ({ label: c.config.name, description: c.config.baseUrl, c })), { title: 'Set the API key of which endpoint?' }))?.c;
  if (!picked) return;
  const key = await vscode.window.showInputBox({ title: `API key for ${picked.config.name}`, prompt: `Kept in VS Code's SecretStorage and sent only to ${new URL(picked.config.baseUrl).origin}.`, password: true, ignoreFocusOut: true, validateInput: (v) => (v.trim() ? undefined : 'The key is empty') });
  if (!key) return;
  await keys.set(picked.config, key.trim());
  void vscode.window.showInformationMessage(`Prompt Insight: API key stored for ${picked.config.name}.`);
}

export async function clearApiKey(keys: ApiKeys, log: vscode.LogOutputChannel): Promise<void> {
  const endpoints = configuredEndpoints((m) => log.warn(m)).filter((c) => !c.bundledSim);
  const picked = (await vscode.window.showQuickPick(endpoints.map((c) => ({ label: c.config.name, c })), { title: 'Clear the API key of which endpoint?' }))?.c;
  if (!picked) return;
  await keys.clear(picked.config);
  void vscode.window.showInformationMessage(`Prompt Insight: API key cleared for ${picked.config.name}.`);
}
