/** What every provider's decoders share: an SSE stream that must reach its end marker, or one JSON body. */
import { SseParser, type SseEvent } from './sse';
import { EndpointError, type StreamDecoder, type TimedEvent } from './types';

export abstract class SseStreamDecoder implements StreamDecoder {
  private readonly sse = new SseParser();
  protected complete = false;
  protected failed = false;

  /** Said when the body ends before the provider's end marker. */
  protected abstract readonly incompleteMessage: string;
  protected abstract events(sseEvents: SseEvent[]): TimedEvent[];

  feed(chunk: Uint8Array, t: number): TimedEvent[] {
    return this.events(this.sse.feed(chunk, t));
  }

  end(t: number): TimedEvent[] {
    const events = this.events(this.sse.end(t));
    if (!this.complete && !this.failed) events.push({ kind: 'error', t, error: new EndpointError('connection_reset', this.incompleteMessage) });
    return events;
  }

  /** Records a stream error: nothing after it is read. */
  protected fail(t: number, error: EndpointError): TimedEvent {
    this.failed = true;
    return { kind: 'error', t, error };
  }
}

/** Servers that ignore `stream: true` answer with one JSON body: every token arrives with its last byte. */
export abstract class JsonBodyDecoder implements StreamDecoder {
  private readonly chunks: Uint8Array[] = [];

  protected abstract eventsOf(json: unknown, t: number): TimedEvent[];

  feed(chunk: Uint8Array): TimedEvent[] {
    this.chunks.push(chunk);
    return [];
  }

  end(t: number): TimedEvent[] {
    const text = Buffer.concat(this.chunks).toString('utf8');
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch {
      json = undefined;
    }
    if (json === undefined || json === null || typeof json !== 'object') {
      return [{ kind: 'error', t, error: new EndpointError('malformed_stream', `The answer is neither an event stream nor valid JSON: ${text.slice(0, 120)}`) }];
    }
    return this.eventsOf(json, t);
  }
}
