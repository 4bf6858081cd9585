/**
 * A transport sends one chat request and returns its timed events. HTTP providers share one
 * implementation; the VS Code Language Model API is a transport the extension injects.
 */
import { exchange, type ExchangeResult } from './httpExchange';
import { httpProvider } from './providers';
import { registerSecret, registerUrlSecrets } from './secrets';
import type { ChatRequest, EndpointConfig, TimedEvent } from './types';
import type { Wire } from './wire';

export interface SendOptions {
  timeoutMs: number;
  signal?: AbortSignal;
  onEvent?: (event: TimedEvent) => void;
  onResponseHead?: (status: number) => void;
}

export interface ChatTransport {
  readonly endpoint: EndpointConfig;
  send(request: ChatRequest, options: SendOptions): Promise<ExchangeResult>;
}

/** `wire` is for tests and benchmarks; runs use the default (a worker thread's sockets when available). */
export function httpTransport(endpoint: EndpointConfig, apiKey: string | undefined, wire?: Wire): ChatTransport {
  const provider = httpProvider(endpoint.provider);
  if (!provider) throw new Error(`Provider '${endpoint.provider}' is not an HTTP provider; it runs inside VS Code only.`);
  // Whatever could carry a credential is scrubbed from every text that leaves the process.
  registerSecret(apiKey);
  for (const value of Object.values(endpoint.headers ?? {})) registerSecret(value);
  registerUrlSecrets(endpoint.baseUrl);
  return {
    endpoint,
    send(request, options) {
      const spec = provider.buildRequest(endpoint, request, apiKey);
      return exchange(spec, { ...options, decoderFor: provider.decoder, errorMessage: provider.errorMessage, ...(wire ? { wire } : {}) });
    },
  };
}
