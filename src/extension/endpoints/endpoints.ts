/** Endpoints from settings (validated; a bad entry is reported, not used), plus the bundled simulator. */
import * as vscode from 'vscode';
import { PROVIDER_KINDS, type EndpointConfig, type ProviderKind } from '../../core/endpoint/types';
import { safeOrigin } from './apiKeys';

export const BUNDLED_SIM_NAME = 'Simulated endpoint (bundled)';

export interface EndpointChoice {
  config: EndpointConfig;
  /** The simulator runs inside the extension host and is started on first use. */
  bundledSim: boolean;
}

export function configuredEndpoints(report: (message: string) => void): EndpointChoice[] {
  const raw = vscode.workspace.getConfiguration('promptInsight').get<unknown[]>('endpoints') ?? [];
  const choices: EndpointChoice[] = [];
  for (const [i, entry] of (Array.isArray(raw) ? raw : []).entries()) {
    const parsed = parseEndpoint(entry);
    if (typeof parsed === 'string') report(`promptInsight.endpoints[${i}]: ${parsed}`);
    else choices.push({ config: parsed, bundledSim: false });
  }
  choices.push({ config: { name: BUNDLED_SIM_NAME, provider: 'openai', baseUrl: 'http://127.0.0.1:0/v1', model: 'sim-1', simulated: true }, bundledSim: true });
  return choices;
}

function parseEndpoint(entry: unknown): EndpointConfig | string {
  const e = entry as Record<string, unknown> | null;
  if (typeof e !== 'object' || e === null) return 'not an object';
  if (typeof e.name !== 'string' || !e.name.trim()) return '`name` is required';
  if (typeof e.provider !== 'string' || !PROVIDER_KINDS.includes(e.provider as ProviderKind)) return `\`provider\` must be one of ${PROVIDER_KINDS.join(', ')}`;
  const provider = e.provider as ProviderKind;
  const baseUrl = typeof e.baseUrl === 'string' ? e.baseUrl.trim() : '';
  if (provider !== 'vscode-lm' && !/^https?:\/\/.+/i.test(baseUrl)) return '`baseUrl` must be an http(s) URL';
  if (provider !== 'vscode-lm' && !URL.canParse(baseUrl)) return '`baseUrl` is not a valid URL';
  const metricsUrl = typeof e.metricsUrl === 'string' ? e.metricsUrl.trim() : '';
  if (metricsUrl && (!/^https?:\/\/.+/i.test(metricsUrl) || !URL.canParse(metricsUrl))) return '`metricsUrl` must be an http(s) URL';
  const headers: Record<string, string> = {};
  if (e.headers !== undefined) {
    if (typeof e.headers !== 'object' || e.headers === null) return '`headers` must map names to strings';
    for (const [k, v] of Object.entries(e.headers)) if (typeof v === 'string') headers[k] = v;
  }
  return {
    name: e.name.trim(),
    provider,
    baseUrl: provider === 'vscode-lm' ? 'vscode-lm:' : baseUrl,
    ...(typeof e.model === 'string' && e.model.trim() ? { model: e.model.trim() } : {}),
    ...(Object.keys(headers).length > 0 ? { headers } : {}),
    ...(typeof e.apiVersion === 'string' && e.apiVersion ? { apiVersion: e.apiVersion } : {}),
    ...(metricsUrl ? { metricsUrl } : {}),
  };
}

/** The endpoint named in `promptInsight.run.endpoint`, the only configured one (the simulator if none), or the user's pick. */
export async function chooseEndpoint(report: (message: string) => void): Promise<EndpointChoice | undefined> {
  const all = configuredEndpoints(report);
  const wanted = vscode.workspace.getConfiguration('promptInsight').get<string>('run.endpoint')?.trim();
  if (wanted) {
    const found = all.find((c) => c.config.name === wanted);
    if (found) return found;
    void vscode.window.showWarningMessage(`Prompt Insight: no endpoint named '${wanted}' (setting promptInsight.run.endpoint). Choose one.`);
  }
  const configured = all.filter((c) => !c.bundledSim);
  // Nothing configured: the bundled simulator (labelled as such everywhere) lets a first run just work.
  if (!wanted && configured.length <= 1) return configured[0] ?? all.find((c) => c.bundledSim);
  const picked = await vscode.window.showQuickPick(
    all.map((choice) => ({
      label: choice.config.name,
      description: choice.bundledSim ? 'not a real model — rehearses timings on this machine' : `${choice.config.provider} · ${choice.config.provider === 'vscode-lm' ? 'VS Code language models' : safeOrigin(choice.config.baseUrl)}`,
      choice,
    })),
    { title: 'Prompt Insight: run against which endpoint?', placeHolder: 'Configure more in the promptInsight.endpoints setting' },
  );
  return picked?.choice;
}
