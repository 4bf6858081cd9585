/**
 * The one place where response bytes are read from the socket and timestamped (monotonic clock).
 * Request start is taken just before the request is written; every read is handed to the decoder
 * with its own timestamp, so event times never include the decoder's or the caller's work.
 */
import http from 'node:http';
import https from 'node:https';
import { EndpointError, type HttpRequestSpec, type StreamDecoder, type TimedEvent } from './types';

const MAX_ERROR_BODY_BYTES = 64 * 1024;
/** The simulator's self-label (core/sim); kept here so the engine does not depend on the simulator. */
export const SIMULATED_HEADER = 'x-simulated-endpoint';

export interface ExchangeOptions {
  timeoutMs: number;
  signal?: AbortSignal;
  /** Chooses the decoder once the response's content type is known. */
  decoderFor(contentType: string): StreamDecoder;
  errorMessage(body: string): string | undefined;
  /** Each event as it is decoded (after its timestamp was taken), e.g. to stream the answer to a view. */
  onEvent?: (event: TimedEvent) => void;
  now?: () => number;
}

export interface ExchangeResult {
  /** Request start: just before the request was written. */
  startedAt: number;
  status: number | null;
  /** False when the server answered with one JSON body instead of an event stream. */
  streamed: boolean;
  events: TimedEvent[];
  /** When the last byte arrived (or the failure happened). */
  endedAt: number;
  /** The endpoint labelled itself as Prompt Insight's simulator. */
  simulated: boolean;
}

const agents = {
  http: new http.Agent({ keepAlive: true }),
  https: new https.Agent({ keepAlive: true }),
};

export function exchange(spec: HttpRequestSpec, options: ExchangeOptions): Promise<ExchangeResult> {
  const now = options.now ?? (() => performance.now());
  return new Promise((resolve) => {
    const events: TimedEvent[] = [];
    let status: number | null = null;
    let streamed = true;
    let simulated = false;
    let settled = false;
    let startedAt = now();
    let responseStarted = false;
    /** Decodes reads that arrived but were not decoded yet (so a failing stream keeps its partial answer). */
    let flushPending = (): void => undefined;
    const finish = (error?: EndpointError): void => {
      if (settled) return;
      flushPending();
      settled = true;
      const endedAt = now();
      clearTimeout(timer);
      options.signal?.removeEventListener('abort', onAbort);
      if (error) {
        events.push({ kind: 'error', t: endedAt, error });
        request.destroy();
      }
      resolve({ startedAt, status, streamed, events, endedAt, simulated });
    };
    const isHttps = spec.url.protocol === 'https:';
    const body = Buffer.from(spec.body, 'utf8');
    const request = (isHttps ? https : http).request(spec.url, {
      method: 'POST',
      agent: isHttps ? agents.https : agents.http,
      headers: { ...spec.headers, 'content-length': String(body.length) },
    });
    const onAbort = (): void => finish(new EndpointError('cancelled', 'The run was cancelled.'));
    const timer = setTimeout(() => finish(new EndpointError('timeout', `No complete answer within ${options.timeoutMs} ms.`)), options.timeoutMs);
    options.signal?.addEventListener('abort', onAbort, { once: true });

    request.on('error', (error: NodeJS.ErrnoException) => {
      if (settled) return;
      if (responseStarted || error.code === 'ECONNRESET' || error.code === 'EPIPE') {
        finish(new EndpointError('connection_reset', `The connection was reset ${responseStarted ? 'mid-stream' : 'before an answer'} (${error.code ?? error.message}).`, status ?? undefined));
      } else {
        finish(new EndpointError('connection_failed', `Could not connect to ${spec.url.origin}: ${error.code ?? error.message}.`));
      }
    });
    request.on('response', (response) => {
      responseStarted = true;
      status = response.statusCode ?? 0;
      simulated = response.headers[SIMULATED_HEADER] === 'prompt-insight';
      const contentType = String(response.headers['content-type'] ?? '');
      if (status < 200 || status >= 300) {
        readErrorBody(response, (text) => finish(httpError(status!, text, response.headers['retry-after'], options.errorMessage(text))));
        return;
      }
      streamed = !/application\/json/i.test(contentType);
      const decoder = options.decoderFor(contentType);
      // The read handler only timestamps and queues; decoding runs after the event loop has read
      // every socket that is ready, so one stream's parsing never delays another stream's timestamp.
      const pending: { chunk: Buffer; t: number }[] = [];
      let drainScheduled = false;
      const deliver = (produced: TimedEvent[]): void => {
        for (const event of produced) {
          events.push(event);
          options.onEvent?.(event);
        }
      };
      const drain = (): void => {
        drainScheduled = false;
        if (settled) return;
        for (const { chunk, t } of pending.splice(0)) deliver(decoder.feed(chunk, t));
      };
      flushPending = drain;
      response.on('data', (chunk: Buffer) => {
        pending.push({ chunk, t: now() });
        if (!drainScheduled) {
          drainScheduled = true;
          setImmediate(drain);
        }
      });
      response.on('end', () => {
        const t = now();
        drain();
        if (settled) return;
        deliver(decoder.end(t));
        finish();
      });
      response.on('aborted', () => finish(new EndpointError('connection_reset', 'The connection closed mid-stream; the answer is incomplete.', status ?? undefined)));
      response.on('error', () => finish(new EndpointError('connection_reset', 'The connection failed mid-stream; the answer is incomplete.', status ?? undefined)));
    });
    if (options.signal?.aborted) {
      onAbort();
      return;
    }
    // Request start is when the bytes can go on the wire: at once on a pooled connection, else when
    // the new connection (and TLS) is up. Taking it at end() instead would count connection set-up and,
    // under many concurrent starts, the client's own queue as model latency.
    startedAt = now();
    request.on('socket', (socket) => {
      const ready = (socket as { connecting?: boolean }).connecting !== true && !(isHttps && !(socket as { encrypted?: boolean; authorized?: boolean; _secureEstablished?: boolean })._secureEstablished);
      if (ready) startedAt = now();
      else socket.once(isHttps ? 'secureConnect' : 'connect', () => (startedAt = now()));
    });
    request.end(body);
  });
}

function readErrorBody(response: http.IncomingMessage, done: (text: string) => void): void {
  const chunks: Buffer[] = [];
  let size = 0;
  response.on('data', (chunk: Buffer) => {
    if (size < MAX_ERROR_BODY_BYTES) chunks.push(chunk);
    size += chunk.length;
  });
  const end = (): void => done(Buffer.concat(chunks).subarray(0, MAX_ERROR_BODY_BYTES).toString('utf8'));
  response.on('end', end);
  response.on('error', end);
  response.on('aborted', end);
}

function httpError(status: number, body: string, retryAfter: string | string[] | undefined, serverMessage: string | undefined): EndpointError {
  const detail = serverMessage ?? (body.trim().slice(0, 300) || '(empty body)');
  if (status === 429) return new EndpointError('rate_limited', `Rate limited (HTTP 429): ${detail}`, status, parseRetryAfter(retryAfter));
  if (status >= 500) return new EndpointError('http_5xx', `Server error (HTTP ${status}): ${detail}`, status, parseRetryAfter(retryAfter));
  const hint = status === 401 || status === 403 ? ' Check the API key (Prompt Insight: Set API Key) and the endpoint URL.' : status === 404 ? ' Check the endpoint URL and the model or deployment name.' : '';
  return new EndpointError('http_4xx', `Request rejected (HTTP ${status}): ${detail}.${hint}`, status);
}

/** Retry-After as seconds or an HTTP date; undefined when absent or unreadable. */
export function parseRetryAfter(value: string | string[] | undefined, nowMs = Date.now()): number | undefined {
  const text = Array.isArray(value) ? value[0] : value;
  if (!text) return undefined;
  if (/^\s*\d+(\.\d+)?\s*$/.test(text)) return Number(text);
  const date = Date.parse(text);
  return Number.isNaN(date) ? undefined : Math.max(0, (date - nowMs) / 1000);
}
