/** What every provider's decoders share: an SSE stream that must reach its end marker, or one JSON body. */
import { parseJson } from './jsonFields';
import { SseLimitError, SseParser, type SseEvent } from './sse';
import { EndpointError, type StreamDecoder, type TimedEvent } from './types';

export abstract class SseStreamDecoder implements StreamDecoder {
  private readonly sse = new SseParser();
  protected complete = false;
  protected failed = false;

  /** Said when the body ends before the provider's end marker. */
  protected abstract readonly incompleteMessage: string;
  protected abstract events(sseEvents: SseEvent[]): TimedEvent[];

  feed(chunk: Uint8Array, t: number): TimedEvent[] {
    if (this.failed) return [];
    try {
      return this.events(this.sse.feed(chunk, t));
    } catch (error) {
      return [this.limitError(error, t)];
    }
  }

  end(t: number): TimedEvent[] {
    if (this.failed) return [];
    let events: TimedEvent[];
    try {
      events = this.events(this.sse.end(t));
    } catch (error) {
      return [this.limitError(error, t)];
    }
    if (!this.complete && !this.failed) events.push({ kind: 'error', t, error: new EndpointError('connection_reset', this.incompleteMessage) });
    return events;
  }

  private limitError(error: unknown, t: number): TimedEvent {
    if (!(error instanceof SseLimitError)) throw error;
    return this.fail(t, new EndpointError('malformed_stream', `The stream was refused: ${error.message}.`));
  }

  /** Records a stream error: nothing after it is read. */
  protected fail(t: number, error: EndpointError): TimedEvent {
    this.failed = true;
    return { kind: 'error', t, error };
  }
}

/** Largest non-streamed answer read: $PROMPT_INSIGHT_MAX_BODY_MB (default 64) MiB. */
export const MAX_JSON_BODY_BYTES = Math.max(1, Number(process.env.PROMPT_INSIGHT_MAX_BODY_MB) || 64) * 1024 * 1024;

/** Servers that ignore `stream: true` answer with one JSON body: every token arrives with its last byte. */
export abstract class JsonBodyDecoder implements StreamDecoder {
  private readonly chunks: Uint8Array[] = [];
  private size = 0;
  private failed = false;

  protected abstract eventsOf(json: unknown, t: number): TimedEvent[];

  feed(chunk: Uint8Array, t: number): TimedEvent[] {
    if (this.failed) return [];
    this.size += chunk.length;
    if (this.size > MAX_JSON_BODY_BYTES) {
      this.failed = true;
      this.chunks.length = 0;
      return [{ kind: 'error', t, error: new EndpointError('malformed_stream', `The answer body is larger than ${MAX_JSON_BODY_BYTES >> 20} MiB; refused (PROMPT_INSIGHT_MAX_BODY_MB sets the limit).`) }];
    }
    this.chunks.push(chunk);
    return [];
  }

  end(t: number): TimedEvent[] {
    if (this.failed) return [];
    const text = Buffer.concat(this.chunks).toString('utf8');
    const json = parseJson(text);
    if (json === undefined || json === null || typeof json !== 'object') {
      return [{ kind: 'error', t, error: new EndpointError('malformed_stream', `The answer is neither an event stream nor valid JSON: ${text.slice(0, 120)}`) }];
    }
    return this.eventsOf(json, t);
  }
}
