/**
 * The one place where response bytes are read from the socket and timestamped (monotonic clock).
 * Request start is taken just before the request is written; every read is handed to the decoder
 * with its own timestamp, so event times never include the decoder's or the caller's work.
 *
 * HTTP/1.1 is spoken directly on the socket (http1Request/http1Response, connectionPool) rather than
 * through node:http: there every read runs the HTTP parser and the response stream machinery before
 * a listener sees it, and with 64 streams whose first tokens arrive in the same millisecond that
 * work, done one socket after another, delayed the last socket's timestamp by several ms (bench ttft).
 */
import type { Socket } from 'node:net';
import { connections } from './connectionPool';
import { RequestHeaderError, requestBytes } from './http1Request';
import { Http1ResponseParser, HttpProtocolError, type ResponsePart } from './http1Response';
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

export function exchange(spec: HttpRequestSpec, options: ExchangeOptions): Promise<ExchangeResult> {
  const now = options.now ?? (() => performance.now());
  return new Promise((resolve) => {
    const events: TimedEvent[] = [];
    let status: number | null = null;
    let streamed = true;
    let simulated = false;
    let settled = false;
    let startedAt = now();
    const url = spec.url;
    const isHttps = url.protocol === 'https:';
    let socket: Socket | undefined;
    /** Removes this exchange's listeners from the socket (before it is kept or destroyed). */
    let detach = (): void => undefined;
    /** Decodes reads that arrived but were not decoded yet (so a failing stream keeps its partial answer). */
    let drainPending = (): void => undefined;

    const finish = (error?: EndpointError, reusable = false): void => {
      if (settled) return;
      if (error) {
        drainPending();
        if (settled) return;
      }
      settled = true;
      const endedAt = now();
      clearTimeout(timer);
      options.signal?.removeEventListener('abort', onAbort);
      detach();
      if (error) events.push({ kind: 'error', t: endedAt, error });
      if (socket) {
        if (reusable && socket.writableLength === 0) connections.keep(url, socket);
        else discard(socket);
      }
      resolve({ startedAt, status, streamed, events, endedAt, simulated });
    };
    const onAbort = (): void => finish(new EndpointError('cancelled', 'The run was cancelled.'));
    const timer = setTimeout(() => finish(new EndpointError('timeout', `No complete answer within ${options.timeoutMs} ms.`)), options.timeoutMs);
    options.signal?.addEventListener('abort', onAbort, { once: true });
    if (options.signal?.aborted) return onAbort();

    let bytes: Buffer;
    try {
      bytes = requestBytes(url, spec.headers, Buffer.from(spec.body, 'utf8'));
    } catch (error) {
      if (!(error instanceof RequestHeaderError)) throw error;
      return finish(new EndpointError('connection_failed', `Not sent: ${error.message} Check the endpoint's headers setting.`));
    }

    const attempt = (mayReuse: boolean): void => {
      const pooled = mayReuse ? connections.take(url) : undefined;
      const conn = pooled ?? connections.open(url);
      socket = conn;
      const parser = new Http1ResponseParser();
      let connected = pooled !== undefined;
      let bytesSeen = false;
      let decoder: StreamDecoder | undefined;
      let errorBody: Buffer[] | undefined;
      let errorBodySize = 0;
      let errorHeaders: ReadonlyMap<string, string> = new Map();
      const pending: { chunk: Buffer; t: number }[] = [];
      let drainScheduled = false;

      const deliver = (produced: TimedEvent[]): void => {
        for (const event of produced) {
          events.push(event);
          options.onEvent?.(event);
        }
      };
      const endOfResponse = (t: number, keepAlive: boolean): void => {
        if (errorBody) return finishWithHttpError();
        deliver(decoder!.end(t));
        finish(undefined, keepAlive && !parser.extraneous);
      };
      const finishWithHttpError = (): void => {
        const text = Buffer.concat(errorBody!).subarray(0, MAX_ERROR_BODY_BYTES).toString('utf8');
        finish(httpError(status!, text, errorHeaders.get('retry-after'), options.errorMessage(text)));
      };
      let keepAlive = false;
      const onParts = (parts: ResponsePart[], t: number): void => {
        for (const part of parts) {
          if (settled) return;
          if (part.kind === 'head') {
            status = part.status;
            keepAlive = part.keepAlive;
            simulated = part.headers.get(SIMULATED_HEADER) === 'prompt-insight';
            const contentType = part.headers.get('content-type') ?? '';
            if (status < 200 || status >= 300) {
              errorBody = [];
              errorHeaders = part.headers;
            } else {
              streamed = !/application\/json/i.test(contentType);
              decoder = options.decoderFor(contentType);
            }
          } else if (part.kind === 'body') {
            if (errorBody) {
              errorBody.push(Buffer.from(part.data));
              errorBodySize += part.data.length;
              if (errorBodySize >= MAX_ERROR_BODY_BYTES) return finishWithHttpError();
            } else {
              deliver(decoder!.feed(part.data, t));
            }
          } else {
            endOfResponse(t, keepAlive);
          }
        }
      };
      // The read handler only timestamps and queues; parsing and decoding run after the event loop
      // has read every socket that is ready, so one stream's work never delays another's timestamp.
      const drain = (): void => {
        drainScheduled = false;
        while (pending.length > 0 && !settled) {
          const { chunk, t } = pending.shift()!;
          try {
            onParts(parser.feed(chunk), t);
          } catch (error) {
            if (!(error instanceof HttpProtocolError)) throw error;
            finish(new EndpointError('malformed_stream', `The response is not valid HTTP/1.1: ${error.message}.`, status ?? undefined));
          }
        }
      };
      drainPending = drain;
      const onData = (chunk: Buffer): void => {
        pending.push({ chunk, t: now() });
        bytesSeen = true;
        if (!drainScheduled) {
          drainScheduled = true;
          setImmediate(drain);
        }
      };
      /** The connection ended or failed: the end of a close-delimited body, a stale pooled socket, or a failure. */
      const onClosed = (code: string | undefined): void => {
        const t = now();
        drain();
        if (settled) return;
        const closing = parser.close();
        if (closing.length > 0) return onParts(closing, t);
        if (!bytesSeen && pooled !== undefined) {
          // The server closed the idle connection as we reused it; nothing was answered, so send again on a new one.
          detach();
          discard(conn);
          return attempt(false);
        }
        if (!connected) return finish(new EndpointError('connection_failed', `Could not connect to ${url.origin}: ${code ?? 'connection closed'}.`));
        if (errorBody && parser.headRead) return finishWithHttpError();
        const how = code ? ` (${code})` : '';
        if (!parser.headRead) return finish(new EndpointError('connection_reset', `The connection was reset before an answer${how}.`));
        finish(new EndpointError('connection_reset', `The connection closed mid-stream${how}; the answer is incomplete.`, status ?? undefined));
      };
      const onEnd = (): void => onClosed(undefined);
      const onError = (error: NodeJS.ErrnoException): void => onClosed(error.code ?? error.message);
      const onClose = (): void => onClosed(undefined);
      // Request start is when the bytes can go on the wire: at once on a pooled connection, else when
      // the new connection (and TLS) is up. Taking it earlier would count connection set-up and, under
      // many concurrent starts, the client's own queue as model latency.
      const send = (): void => {
        connected = true;
        startedAt = now();
        conn.write(bytes);
      };
      const readyEvent = isHttps ? 'secureConnect' : 'connect';
      conn.on('data', onData);
      conn.on('end', onEnd);
      conn.on('error', onError);
      conn.on('close', onClose);
      if (!pooled) conn.once(readyEvent, send);
      detach = () => {
        conn.removeListener('data', onData);
        conn.removeListener('end', onEnd);
        conn.removeListener('error', onError);
        conn.removeListener('close', onClose);
        conn.removeListener(readyEvent, send);
      };
      if (pooled) send();
    };
    attempt(true);
  });
}

/** Destroys a connection nobody reads any more; an error it still reports has no one to go to. */
function discard(socket: Socket): void {
  socket.on('error', () => undefined);
  socket.destroy();
}

function httpError(status: number, body: string, retryAfter: string | undefined, serverMessage: string | undefined): EndpointError {
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
