/** `--endpoint/--provider/--api-key-env/--api-version` (and the `--judge-` variants) → a transport. */
import { httpTransport, type ChatTransport } from '../core/endpoint/transport';
import { PROVIDER_KINDS, type EndpointConfig, type ProviderKind } from '../core/endpoint/types';
import { safeUrl } from '../core/store/runKey';
import { stringFlag, UsageError, type ParsedArgs } from './args';

export const ENDPOINT_FLAGS = ['endpoint', 'provider', 'api-key-env', 'api-version'];

export function endpointTransport(args: ParsedArgs, prefix = '', usage = ''): ChatTransport | undefined {
  const flag = (name: string) => `${prefix}${name}`;
  const baseUrl = stringFlag(args, flag('endpoint'));
  if (!baseUrl) {
    if (prefix) return undefined;
    throw new UsageError(`--endpoint URL is required (e.g. http://127.0.0.1:8000/v1; \`prompt-insight sim\` starts a simulated one)${usage ? `\nusage: ${usage}` : ''}`);
  }
  if (!/^https?:\/\//i.test(baseUrl) || !URL.canParse(baseUrl)) throw new UsageError(`--${flag('endpoint')} must be an http(s) URL (got '${baseUrl}')`);
  const provider = (stringFlag(args, flag('provider')) ?? 'openai') as ProviderKind;
  if (!PROVIDER_KINDS.includes(provider) || provider === 'vscode-lm') throw new UsageError(`--${flag('provider')} must be openai, azure, anthropic or ollama (vscode-lm runs inside VS Code only)`);
  const keyVariable = stringFlag(args, flag('api-key-env'));
  let apiKey: string | undefined;
  if (keyVariable !== undefined) {
    apiKey = process.env[keyVariable];
    if (!apiKey) throw new UsageError(`--${flag('api-key-env')} ${keyVariable}: that environment variable is not set or empty`);
  }
  const apiVersion = stringFlag(args, flag('api-version'));
  const endpoint: EndpointConfig = { name: safeUrl(baseUrl), provider, baseUrl, ...(apiVersion ? { apiVersion } : {}) };
  return httpTransport(endpoint, apiKey);
}
