/**
 * How the extension reaches an endpoint: the bundled simulator started on demand, vscode.lm, or HTTP
 * with the key bound to its origin (asked again when settings point it elsewhere) and VS Code's proxy.
 */
import * as path from 'node:path';
import * as vscode from 'vscode';
import { configureProxy } from '../../core/endpoint/httpExchange';
import { httpTransport, type ChatTransport } from '../../core/endpoint/transport';
import type { ApiKeys } from './apiKeys';
import type { BundledSimulator } from './bundledSim';
import { confirmOriginChange } from './confirmOrigin';
import type { EndpointChoice } from './endpoints';
import { languageModelTransport } from './lmTransport';
import { vscodeProxySettings } from './proxySettings';

export class EndpointTransports {
  constructor(
    private readonly keys: ApiKeys,
    private readonly simulator: BundledSimulator,
  ) {}

  /** A transport for the endpoint: the bundled simulator started on demand, vscode.lm, or HTTP with its origin-checked key. */
  async transportFor(choice: EndpointChoice): Promise<ChatTransport> {
    if (choice.bundledSim) {
      const scenario = vscode.workspace.getConfiguration('promptInsight').get<string>('simulator.scenario')?.trim();
      const folder = vscode.workspace.workspaceFolders?.[0]?.uri.fsPath;
      const scenarioPath = scenario ? (path.isAbsolute(scenario) || !folder ? scenario : path.join(folder, scenario)) : undefined;
      // The first start of the bundled simulator takes a moment (a child process): said, not silent.
      const url = await vscode.window.withProgress({ location: vscode.ProgressLocation.Notification, title: 'Prompt Insight: starting the simulated endpoint…' }, () => this.simulator.start(scenarioPath));
      return httpTransport({ ...choice.config, baseUrl: url }, undefined);
    }
    if (choice.config.provider === 'vscode-lm') return languageModelTransport(choice.config);
    const key = await this.keys.get(choice.config, (stored, now) => confirmOriginChange(choice.config.name, stored, now));
    configureProxy(vscodeProxySettings());
    return httpTransport(choice.config, key);
  }
}
