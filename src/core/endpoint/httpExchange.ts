/**
 * One HTTP exchange: writes the request, parses the response (HTTP/1.1, http1Response) and hands
 * every read to the decoder with the timestamp the wire took when the bytes were read, so event
 * times never include the parser's, the decoder's or the caller's work.
 *
 * HTTP/1.1 is spoken directly on the socket rather than through node:http: there every read runs
 * the HTTP parser and the response stream machinery before a listener sees it, and with 64 streams
 * whose first tokens arrive in the same millisecond that work, done one socket after another,
 * delayed the last socket's timestamp by several ms (bench ttft). The sockets themselves live in a
 * worker thread when one can start (wire.ts), so this thread's GC pauses and other work (the
 * extension host's) do not delay the stamps either.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { connections } from './connectionPool';
import { RequestHeaderError, requestBytes } from './http1Request';
import { Http1ResponseParser, HttpProtocolError, type ResponsePart } from './http1Response';
import { proxySettingsFromEnv, type ProxySettings } from './proxy';
import { registerUrlSecrets } from './secrets';
import { socketWire } from './socketIo';
import { EndpointError, type HttpRequestSpec, type StreamDecoder, type TimedEvent } from './types';
import type { Wire, WireConnection } from './wire';
import { workerWire } from './workerWire';

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
  /** The response's status line and headers arrived (the server accepted the request; tokens may still be far off). */
  onResponseHead?: (status: number) => void;
  /** Where the bytes go; by default a worker thread's sockets when available (see defaultWire). */
  wire?: Wire;
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
  // The wires stamp reads on this thread's performance.now(); so does everything else here.
  const now = (): number => performance.now();
  const wire = options.wire ?? defaultWire();
  return new Promise((resolve) => {
    const events: TimedEvent[] = [];
    let status: number | null = null;
    let streamed = true;
    let simulated = false;
    let settled = false;
    let startedAt = now();
    const url = spec.url;
    let connection: WireConnection | undefined;

    const finish = (error?: EndpointError, reusable = false): void => {
      if (settled) return;
      settled = true;
      const endedAt = now();
      clearTimeout(timer);
      options.signal?.removeEventListener('abort', onAbort);
      if (error) events.push({ kind: 'error', t: endedAt, error });
      if (reusable) connection?.keep();
      else connection?.destroy();
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
      const parser = new Http1ResponseParser();
      let sent = false;
      let reused = false;
      let bytesSeen = false;
      let keepAlive = false;
      let decoder: StreamDecoder | undefined;
      let errorBody: Uint8Array[] | undefined;
      let errorBodySize = 0;
      let errorHeaders: ReadonlyMap<string, string> = new Map();

      const deliver = (produced: TimedEvent[]): void => {
        for (const event of produced) {
          events.push(event);
          options.onEvent?.(event);
        }
      };
      let unexpectedBody: string | undefined;
      const finishWithHttpError = (): void => {
        const text = Buffer.concat(errorBody!).subarray(0, MAX_ERROR_BODY_BYTES).toString('utf8');
        if (unexpectedBody) return finish(new EndpointError('unexpected_response', `${unexpectedBody}: ${text.trim().slice(0, 200) || '(empty body)'}`, status ?? undefined));
        finish(httpError(status!, text, errorHeaders, options.errorMessage(text)));
      };
      const onParts = (parts: ResponsePart[], t: number): void => {
        for (const part of parts) {
          if (settled) return;
          if (part.kind === 'head') {
            status = part.status;
            options.onResponseHead?.(part.status);
            keepAlive = part.keepAlive;
            simulated = part.headers.get(SIMULATED_HEADER) === 'prompt-insight';
            const contentType = part.headers.get('content-type') ?? '';
            const encoding = part.headers.get('content-encoding')?.trim().toLowerCase();
            if (status >= 200 && status < 300 && encoding && encoding !== 'identity') {
              return finish(new EndpointError('unexpected_response', `The server sent a ${encoding}-encoded body (HTTP ${status}, ${contentType || 'no content type'}), which is not decompressed: Prompt Insight asks for none. A proxy or gateway in front of the endpoint may be compressing it.`, status));
            }
            const unexpectedType = status >= 200 && status < 300 && /text\/html|xml/i.test(contentType);
            if (status < 200 || status >= 300 || unexpectedType) {
              errorBody = [];
              errorHeaders = part.headers;
              if (unexpectedType) unexpectedBody = `The server answered HTTP ${status} with ${contentType}, not an event stream or JSON (a login page or a gateway in front of the endpoint?)`;
            } else {
              streamed = !/application\/json/i.test(contentType);
              decoder = options.decoderFor(contentType);
            }
          } else if (part.kind === 'body') {
            if (errorBody) {
              errorBody.push(part.data);
              errorBodySize += part.data.length;
              if (errorBodySize >= MAX_ERROR_BODY_BYTES) return finishWithHttpError();
            } else {
              const produced = decoder!.feed(part.data, t);
              deliver(produced);
              // A decoder that failed reads nothing more: end the exchange rather than wait for the rest.
              const failure = produced.find((e) => e.kind === 'error');
              if (failure) return finish();
            }
          } else if (errorBody) {
            return finishWithHttpError();
          } else {
            deliver(decoder!.end(t));
            return finish(undefined, keepAlive && !parser.extraneous);
          }
        }
      };
      connection = wire.send(url, bytes, mayReuse, {
        // Request start is when the bytes go on the wire: at once on a pooled connection, else when the
        // new connection (and TLS) is up. Earlier would count connection set-up and, under many
        // concurrent starts, the client's own queue as model latency.
        sent(t, wasReused) {
          sent = true;
          reused = wasReused;
          startedAt = t;
        },
        data(chunk, t) {
          if (settled) return;
          bytesSeen = true;
          try {
            onParts(parser.feed(chunk), t);
          } catch (error) {
            if (!(error instanceof HttpProtocolError)) throw error;
            finish(new EndpointError('malformed_stream', `The response is not valid HTTP/1.1: ${error.message}.`, status ?? undefined));
          }
        },
        closed(t, code) {
          if (settled) return;
          const closing = parser.close();
          if (closing.length > 0) return onParts(closing, t);
          if (!bytesSeen && reused) {
            // The server dropped the idle connection as it was reused; nothing was answered, so send again on a new one.
            return attempt(false);
          }
          if (!sent) return finish(new EndpointError('connection_failed', `Could not connect to ${url.origin}: ${code ?? 'connection closed'}.`));
          if (errorBody) return finishWithHttpError();
          const how = code ? ` (${code})` : '';
          if (!parser.headRead) return finish(new EndpointError('connection_reset', `The connection was reset before an answer${how}.`));
          finish(new EndpointError('connection_reset', `The connection closed mid-stream${how}; the answer is incomplete.`, status ?? undefined));
        },
      });
    };
    attempt(true);
  });
}

let sharedWire: Wire | undefined;

function registerProxySecrets(settings: ProxySettings): void {
  registerUrlSecrets(settings.httpProxy);
  registerUrlSecrets(settings.httpsProxy);
}

/** Proxy settings for every later run (the extension passes VS Code's `http.proxy`; the CLI uses the environment). */
export function configureProxy(settings: ProxySettings): void {
  registerProxySecrets(settings);
  defaultWire().configure(settings);
}

/** Sockets in a worker thread when its bundle sits beside this one (dist/), else in this thread. */
function defaultWire(): Wire {
  if (sharedWire) return sharedWire;
  registerProxySecrets(proxySettingsFromEnv(process.env)); // the wire's proxies until configureProxy says otherwise
  const inThread = socketWire(connections, () => performance.now());
  const script = join(__dirname, 'socketWorker.js');
  sharedWire = process.env.PROMPT_INSIGHT_WIRE !== 'thread' && existsSync(script) ? workerWire(script, inThread) : inThread;
  return sharedWire;
}

function httpError(status: number, body: string, headers: ReadonlyMap<string, string>, serverMessage: string | undefined): EndpointError {
  const detail = serverMessage ?? (body.trim().slice(0, 300) || '(empty body)');
  const retryAfter = headers.get('retry-after');
  if (status < 100 || status > 599) return new EndpointError('unexpected_response', `The server answered with status ${status}, which HTTP does not define: ${detail}`, status);
  if (status >= 300 && status < 400) {
    const location = headers.get('location');
    return new EndpointError('http_redirect', `The server redirected (HTTP ${status})${location ? ` to ${location.slice(0, 300)}` : ''}; redirects are not followed (the request and its key must not travel to another address). Configure the final URL as the endpoint.`, status);
  }
  if (status === 429) return new EndpointError('rate_limited', `Rate limited (HTTP 429): ${detail}`, status, parseRetryAfter(retryAfter));
  if (status >= 500) return new EndpointError('http_5xx', `Server error (HTTP ${status}): ${detail}`, status, parseRetryAfter(retryAfter));
  const hint = status === 401 || status === 403 ? ' Check the API key (Prompt Insight: Set API Key) and the endpoint URL.' : status === 404 ? ' Check the endpoint URL and the model or deployment name.' : '';
  return new EndpointError('http_4xx', `Request rejected (HTTP ${status}): ${detail}.${hint}`, status);
}

/** Retry-After as seconds or an HTTP date; undefined when absent or unreadable. */
function parseRetryAfter(text: string | undefined, nowMs = Date.now()): number | undefined {
  if (!text) return undefined;
  if (/^\s*\d+(\.\d+)?\s*$/.test(text)) return Number(text);
  const date = Date.parse(text);
  return Number.isNaN(date) ? undefined : Math.max(0, (date - nowMs) / 1000);
}
