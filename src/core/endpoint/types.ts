/** What every provider turns a response into: timed events on one monotonic clock (ms, performance.now()). */

export type ProviderKind = 'openai' | 'azure' | 'anthropic' | 'ollama' | 'vscode-lm';
export const PROVIDER_KINDS: readonly ProviderKind[] = ['openai', 'azure', 'anthropic', 'ollama', 'vscode-lm'];

export interface EndpointConfig {
  name: string;
  provider: ProviderKind;
  /** OpenAI-compatible: up to `/v1`; Azure: the resource URL; Anthropic: `https://api.anthropic.com`. */
  baseUrl: string;
  /** Default model (Azure: the deployment name). The prompt file's model wins when it names one. */
  model?: string;
  /** Extra request headers. Never stored or logged: they may carry credentials. */
  headers?: Record<string, string>;
  /** Azure `api-version`. */
  apiVersion?: string;
  /** The server's Prometheus metrics, when not at `/metrics` beside the API (a sidecar, an exporter). Read without credentials. */
  metricsUrl?: string;
  /** The bundled simulator: always labelled as such. */
  simulated?: boolean;
}

export interface ChatMessage {
  role: string;
  content: string;
  name?: string;
}

export interface ChatRequest {
  model: string;
  messages: ChatMessage[];
  /** Sampling parameters in OpenAI's vocabulary (temperature, top_p, max_tokens, stop, seed…). */
  params: Record<string, unknown>;
  /** Server-specific request fields that are not the prompt (`cache_prompt: false`, `cache_salt`): not part of the run key. */
  serverFields?: Record<string, unknown>;
}

export type ErrorKind =
  | 'http_redirect'
  | 'http_4xx'
  | 'http_5xx'
  | 'unexpected_response'
  | 'rate_limited'
  | 'timeout'
  | 'connection_failed'
  | 'connection_reset'
  | 'malformed_stream'
  | 'cancelled'
  // The prompt's retrieval step failed before the model was called (core/retrieval/retrievalStep.ts).
  | 'retrieval-timeout'
  | 'retrieval-connection_failed'
  | 'retrieval-http_error'
  | 'retrieval-bad_response'
  | 'retrieval-too_large';

export class EndpointError extends Error {
  constructor(
    readonly kind: ErrorKind,
    message: string,
    readonly status?: number,
    /** Seconds, from a Retry-After header. */
    readonly retryAfterSec?: number,
  ) {
    super(message);
  }
}

export type TimedEvent =
  | { kind: 'token'; t: number; text: string }
  | { kind: 'reasoning'; t: number; text: string }
  | { kind: 'usage'; t: number; inputTokens?: number; outputTokens?: number; cachedInputTokens?: number; timings?: ServerTimings; server?: ServerReported }
  /** `responseId`: the provider's id of the response (`chatcmpl-…`, `msg_…`), for `gen_ai.response.id`. */
  | { kind: 'done'; t: number; finishReason?: string; responseId?: string }
  | { kind: 'error'; t: number; error: EndpointError };

/** What the server says about one request's phases (llama.cpp's `timings`, Ollama's durations): ms and token counts. */
export interface ServerTimings {
  source?: 'llama.cpp timings' | 'ollama durations';
  /** Loading the model before the request could start (Ollama). */
  loadMs?: number;
  promptMs?: number;
  promptTokens?: number;
  predictedMs?: number;
  predictedTokens?: number;
  cachedTokens?: number;
}

/** Timings an endpoint states about itself (the simulator does; some servers do). */
export interface ServerReported {
  ttftMs?: number;
  e2eMs?: number;
}

/** Turns the bytes of one response body into events; `t` is when the bytes were read. */
export interface StreamDecoder {
  feed(chunk: Uint8Array, t: number): TimedEvent[];
  /** The body ended at `t`: flush and report whether the stream was complete. */
  end(t: number): TimedEvent[];
}

export interface HttpRequestSpec {
  url: URL;
  headers: Record<string, string>;
  body: string;
}

export interface Provider {
  kind: ProviderKind;
  buildRequest(endpoint: EndpointConfig, request: ChatRequest, apiKey: string | undefined): HttpRequestSpec;
  /** Chooses a decoder from the response's content type (event stream or one JSON body). */
  decoder(contentType: string): StreamDecoder;
  /** The server's own error message in an error body, if it has one. */
  errorMessage(body: string): string | undefined;
}
