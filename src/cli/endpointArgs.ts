/** `--endpoint/--provider/--api-key-env/--api-version` (and the `--judge-` variants) → a transport. */
import { costAffectingParams, describeCostParams, unallowedCostParams } from '../core/endpoint/costParams';
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

/** Flags that allow request parameters which change cost or retention (core/endpoint/costParams.ts). */
export const COST_PARAM_REPEATABLE = ['allow-param'];
export const COST_PARAM_BOOLEAN = ['allow-cost-params'];

/**
 * Refuses (a UsageError: exit 2) when the request would carry parameters that change what the
 * endpoint charges or keeps and the command line did not allow them: a prompt file from a cloned
 * repository does not spend the user's money or leave data with the provider on its own say.
 */
export function refuseUnallowedCostParams(args: ParsedArgs, requestParams: Readonly<Record<string, unknown>>, what: string): void {
  const unallowed = unallowedCostParams(costAffectingParams(requestParams), { all: args.flags.get('allow-cost-params') === true, names: args.lists.get('allow-param') ?? [] });
  if (unallowed.length === 0) return;
  throw new UsageError(
    `${what} sets request parameters that change what the endpoint charges or keeps: ${describeCostParams(unallowed)}.\n` +
      `Nothing was sent. Remove them from the prompt file, or allow them: ${unallowed.map((p) => `--allow-param ${p.name}`).join(' ')} (or --allow-cost-params for every such parameter).`,
  );
}
