/**
 * **Prompt Insight: Add Endpoint…** — a few quick inputs instead of editing settings JSON: the kind of
 * server, its URL, the model, a name, then the API key (into SecretStorage, never a setting). Nothing
 * is written until the last answer, so Esc at any step leaves everything as it was. The entry itself
 * is built and checked in core/endpoint/endpointEntry.ts.
 */
import * as vscode from 'vscode';
import { baseUrlProblem, endpointEntry, endpointKindInfo, ENDPOINT_KINDS, hasEndpointNamed, modelProblem, nameProblem, withEndpoint, type EndpointAnswers, type EndpointKindInfo } from '../../core/endpoint/endpointEntry';
import type { ApiKeys } from './apiKeys';
import { BUNDLED_SIM_NAME } from './endpoints';

const TITLE = 'Prompt Insight: Add Endpoint';

export async function addEndpoint(keys: ApiKeys): Promise<void> {
  const picked = await vscode.window.showQuickPick(
    ENDPOINT_KINDS.map((info) => ({ label: info.label, detail: info.detail, info })),
    { title: `${TITLE} (1/5)`, placeHolder: 'What kind of server?', matchOnDetail: true, ignoreFocusOut: true },
  );
  if (!picked) return;
  if (picked.info.kind === 'simulated') return useSimulator();
  const kind = picked.info.kind;
  const info = endpointKindInfo(kind);

  const baseUrl = await ask(2, 'The server’s base URL', info.defaultBaseUrl, (v) => baseUrlProblem(kind, v), urlPrompt(info));
  if (baseUrl === undefined) return;
  const model = await ask(3, info.model === 'required' ? 'Model' : 'Model (optional)', '', (v) => modelProblem(kind, v), info.modelPrompt);
  if (model === undefined) return;
  const config = vscode.workspace.getConfiguration('promptInsight');
  const name = await ask(4, 'A name for this endpoint', info.defaultName, nameProblem, 'How ▶ Run, Compare and the settings refer to it.');
  if (name === undefined) return;
  if (hasEndpointNamed(config.get('endpoints'), name)) {
    const replace = 'Replace';
    const choice = await vscode.window.showWarningMessage(`An endpoint named '${name.trim()}' exists already. Replace it?`, { modal: true }, replace);
    if (choice !== replace) return;
  }
  const answers: EndpointAnswers = { kind, name, baseUrl, model };
  const entry = endpointEntry(answers);

  let apiKey = '';
  if (info.apiKey !== 'none') {
    const key = await vscode.window.showInputBox({
      title: `${TITLE} (5/5)`,
      prompt: `API key for ${entry.name}${info.apiKey === 'offer' ? ' — leave empty if the server needs none' : ' — leave empty to set it later (Prompt Insight: Set API Key)'}. Kept in VS Code’s SecretStorage and sent only to ${new URL(entry.baseUrl).origin}; never written to settings.`,
      password: true,
      ignoreFocusOut: true,
    });
    if (key === undefined) return;
    apiKey = key.trim();
  }

  const target = targetOf(config, 'endpoints');
  await config.update('endpoints', withEndpoint(config.get('endpoints'), entry), target);
  if (apiKey) await keys.set(entry, apiKey);
  tellAdded(entry.name, target, apiKey !== '');
}

/** One input box of the flow; undefined when the user pressed Esc. */
async function ask(step: number, placeHolder: string, value: string, validate: (v: string) => string | undefined, prompt: string): Promise<string | undefined> {
  const answer = await vscode.window.showInputBox({ title: `${TITLE} (${step}/5)`, placeHolder, value, prompt, ignoreFocusOut: true, validateInput: validate });
  return answer === undefined ? undefined : answer.trim();
}

function urlPrompt(info: EndpointKindInfo): string {
  if (info.kind === 'azure') return 'The resource URL, e.g. https://contoso.openai.azure.com (the deployment is asked next).';
  if (info.kind === 'ollama') return 'Where Ollama listens (default http://localhost:11434).';
  return `Up to /v1 for OpenAI-compatible servers, e.g. ${info.defaultBaseUrl}.`;
}

/** Where the setting goes: the workspace when it sets endpoints already (a user value would be hidden by it), else the user's settings. */
function targetOf(config: vscode.WorkspaceConfiguration, key: string): vscode.ConfigurationTarget {
  const inspected = config.inspect(key);
  if (inspected?.workspaceFolderValue !== undefined || inspected?.workspaceValue !== undefined) return vscode.ConfigurationTarget.Workspace;
  return vscode.ConfigurationTarget.Global;
}

async function useSimulator(): Promise<void> {
  const config = vscode.workspace.getConfiguration('promptInsight');
  await config.update('run.endpoint', BUNDLED_SIM_NAME, targetOf(config, 'run.endpoint'));
  void vscode.window.showInformationMessage(`Prompt Insight: ▶ Run now uses the ${BUNDLED_SIM_NAME} — not a real model; it rehearses timings on this machine.`);
}

function tellAdded(name: string, target: vscode.ConfigurationTarget, keyStored: boolean): void {
  const config = vscode.workspace.getConfiguration('promptInsight');
  const where = target === vscode.ConfigurationTarget.Global ? 'your user settings' : 'this workspace’s settings';
  const chosen = config.get<string>('run.endpoint')?.trim();
  const endpoints = config.get<unknown[]>('endpoints') ?? [];
  const runUsesIt = chosen ? chosen === name : endpoints.length === 1;
  const message = `Prompt Insight: endpoint '${name}' added to ${where}${keyStored ? ', its API key kept in SecretStorage' : ''}.${runUsesIt ? ' ▶ Run uses it.' : ''}`;
  const use = 'Use for ▶ Run';
  // Not awaited: the command is done once the entry is written, whenever the message is dismissed.
  void vscode.window.showInformationMessage(message, ...(runUsesIt ? [] : [use])).then((choice) => (choice === use ? config.update('run.endpoint', name, targetOf(config, 'run.endpoint')) : undefined));
}
