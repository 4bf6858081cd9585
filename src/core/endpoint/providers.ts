/** Request shapes per provider; each pairs with its response decoder. */
import { anthropicDecoder, anthropicErrorMessage } from './anthropicDecoder';
import { ollamaDecoder, ollamaErrorMessage } from './ollamaDecoder';
import { openAiDecoder, openAiErrorMessage } from './openaiDecoder';
import { normalizeParams } from './params';
import type { ChatRequest, EndpointConfig, Provider, ProviderKind } from './types';

const DEFAULT_AZURE_API_VERSION = '2024-10-21';
const ANTHROPIC_VERSION = '2023-06-01';
const ANTHROPIC_DEFAULT_MAX_TOKENS = 1024;

/**
 * The request URL: `path(basePath)` gives the path from the configured URL's path; the configured
 * query (`?key=…`, `?api-version=…`) and nothing else is kept, after the path, where it belongs.
 */
function requestUrl(baseUrl: string, path: (basePath: string) => string): URL {
  const url = new URL(baseUrl);
  url.pathname = path(url.pathname.replace(/\/+$/, ''));
  url.hash = '';
  return url;
}

function baseHeaders(endpoint: EndpointConfig): Record<string, string> {
  return { 'content-type': 'application/json', accept: 'text/event-stream', ...(endpoint.headers ?? {}) };
}

const openAiCompatible: Provider = {
  kind: 'openai',
  buildRequest(endpoint, request, apiKey) {
    const url = requestUrl(endpoint.baseUrl, (base) => (/\/chat\/completions$/.test(base) ? base : `${base}/chat/completions`));
    const headers = baseHeaders(endpoint);
    if (apiKey) headers.authorization = `Bearer ${apiKey}`;
    return { url, headers, body: JSON.stringify(openAiBody(request, true)) };
  },
  decoder: openAiDecoder,
  errorMessage: openAiErrorMessage,
};

const azureOpenAi: Provider = {
  kind: 'azure',
  buildRequest(endpoint, request, apiKey) {
    const deployment = encodeURIComponent(endpoint.model ?? request.model);
    const url = requestUrl(endpoint.baseUrl, (base) => (/\/openai\/deployments\//.test(base) ? (/\/chat\/completions$/.test(base) ? base : `${base}/chat/completions`) : `${base}/openai/deployments/${deployment}/chat/completions`));
    if (!url.searchParams.has('api-version')) url.searchParams.set('api-version', endpoint.apiVersion ?? DEFAULT_AZURE_API_VERSION);
    const headers = baseHeaders(endpoint);
    if (apiKey) headers['api-key'] = apiKey;
    return { url, headers, body: JSON.stringify(openAiBody(request, false)) };
  },
  decoder: openAiDecoder,
  errorMessage: openAiErrorMessage,
};

const anthropicMessages: Provider = {
  kind: 'anthropic',
  buildRequest(endpoint, request, apiKey) {
    const url = requestUrl(endpoint.baseUrl, (base) => (/\/v1\/messages$/.test(base) ? base : /\/v1$/.test(base) ? `${base}/messages` : `${base}/v1/messages`));
    const headers: Record<string, string> = { ...baseHeaders(endpoint), 'anthropic-version': ANTHROPIC_VERSION };
    if (apiKey) headers['x-api-key'] = apiKey;
    const params = normalizeParams(request.params);
    const system = request.messages.filter((m) => m.role === 'system' || m.role === 'developer').map((m) => m.content).join('\n\n');
    const messages = request.messages
      .filter((m) => m.role !== 'system' && m.role !== 'developer')
      .map((m) => ({ role: m.role === 'assistant' ? 'assistant' : 'user', content: m.content }));
    const { max_tokens, stop, top_p, top_k, temperature, ...rest } = params;
    void rest; // OpenAI-only parameters (seed, penalties) have no Messages equivalent
    const body: Record<string, unknown> = {
      model: request.model,
      max_tokens: typeof max_tokens === 'number' ? max_tokens : ANTHROPIC_DEFAULT_MAX_TOKENS,
      stream: true,
      messages,
      ...(system ? { system } : {}),
      ...(temperature !== undefined ? { temperature } : {}),
      ...(top_p !== undefined ? { top_p } : {}),
      ...(top_k !== undefined ? { top_k } : {}),
      ...(stop !== undefined ? { stop_sequences: Array.isArray(stop) ? stop : [stop] } : {}),
    };
    return { url, headers, body: JSON.stringify(body) };
  },
  decoder: anthropicDecoder,
  errorMessage: anthropicErrorMessage,
};

/** OpenAI-vocabulary sampling parameters → Ollama's `options`. */
const OLLAMA_OPTION_NAMES: Record<string, string> = {
  temperature: 'temperature',
  top_p: 'top_p',
  top_k: 'top_k',
  seed: 'seed',
  stop: 'stop',
  max_tokens: 'num_predict',
  presence_penalty: 'presence_penalty',
  frequency_penalty: 'frequency_penalty',
};

/** Ollama's native `/api/chat`: the only Ollama API that reports its prefill and decode durations. */
const ollamaNative: Provider = {
  kind: 'ollama',
  buildRequest(endpoint, request, apiKey) {
    const url = requestUrl(endpoint.baseUrl, (base) => (/\/api\/chat$/.test(base) ? base : `${base.replace(/\/(v1|api)$/, '')}/api/chat`));
    const headers: Record<string, string> = { ...baseHeaders(endpoint), accept: 'application/x-ndjson' };
    if (apiKey) headers.authorization = `Bearer ${apiKey}`; // an Ollama behind an authenticating proxy
    const params = normalizeParams(request.params);
    const options: Record<string, unknown> = {};
    for (const [name, value] of Object.entries(params)) {
      const option = OLLAMA_OPTION_NAMES[name];
      if (option) options[option] = name === 'stop' && typeof value === 'string' ? [value] : value;
    }
    const body = {
      model: request.model,
      messages: request.messages.map((m) => ({ role: m.role === 'developer' ? 'system' : m.role, content: m.content })),
      stream: true,
      ...(Object.keys(options).length > 0 ? { options } : {}),
    };
    return { url, headers, body: JSON.stringify(body) };
  },
  decoder: ollamaDecoder,
  errorMessage: ollamaErrorMessage,
};

function openAiBody(request: ChatRequest, withModel: boolean): Record<string, unknown> {
  return {
    ...(withModel ? { model: request.model } : {}),
    messages: request.messages.map((m) => ({ role: m.role, content: m.content, ...(m.name ? { name: m.name } : {}) })),
    ...normalizeParams(request.params),
    ...request.serverFields,
    stream: true,
    stream_options: { include_usage: true },
  };
}

const HTTP_PROVIDERS: Partial<Record<ProviderKind, Provider>> = { openai: openAiCompatible, azure: azureOpenAi, anthropic: anthropicMessages, ollama: ollamaNative };

/** The HTTP provider for a kind; `vscode-lm` has none (the extension injects a transport). */
export function httpProvider(kind: ProviderKind): Provider | undefined {
  return HTTP_PROVIDERS[kind];
}

