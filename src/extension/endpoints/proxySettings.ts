/** VS Code's proxy settings (`http.proxy`, `http.noProxy`) for HTTP runs; the environment's when none is set, as VS Code does. */
import * as vscode from 'vscode';
import { proxySettingsFromEnv, type ProxySettings } from '../../core/endpoint/proxy';

export function vscodeProxySettings(): ProxySettings {
  const http = vscode.workspace.getConfiguration('http');
  const proxy = http.get<string>('proxy')?.trim();
  const fromEnv = proxySettingsFromEnv(process.env);
  if (!proxy) return fromEnv;
  const noProxy = [...(http.get<string[]>('noProxy') ?? []), fromEnv.noProxy ?? ''].filter((entry) => entry.trim() !== '').join(',');
  return { httpProxy: proxy, httpsProxy: proxy, ...(noProxy ? { noProxy } : {}) };
}
