/**
 * Server-sent events, incrementally: bytes may split an event, a line or a UTF-8 character across
 * reads, and one read may carry many events. Each event carries the time of the read that completed it.
 */
export interface SseEvent {
  event: string;
  data: string;
  t: number;
}

export class SseParser {
  private readonly decoder = new TextDecoder('utf-8');
  private buffer = '';
  private eventName = '';
  private dataLines: string[] = [];
  private sawField = false;

  feed(chunk: Uint8Array, t: number): SseEvent[] {
    this.buffer += this.decoder.decode(chunk, { stream: true });
    return this.drain(t, false);
  }

  end(t: number): SseEvent[] {
    this.buffer += this.decoder.decode();
    return this.drain(t, true);
  }

  private drain(t: number, final: boolean): SseEvent[] {
    const events: SseEvent[] = [];
    let start = 0;
    for (;;) {
      const lf = this.buffer.indexOf('\n', start);
      const cr = this.buffer.indexOf('\r', start);
      let end = lf < 0 ? cr : cr < 0 ? lf : Math.min(lf, cr);
      if (end < 0) break;
      // A CR at the very end of a read may be the first half of CRLF: wait for the next byte.
      if (end === cr && end === this.buffer.length - 1 && !final) break;
      const line = this.buffer.slice(start, end);
      start = end + (this.buffer[end] === '\r' && this.buffer[end + 1] === '\n' ? 2 : 1);
      this.line(line, t, events);
    }
    this.buffer = this.buffer.slice(start);
    if (final) {
      if (this.buffer.length > 0) this.line(this.buffer, t, events);
      this.buffer = '';
      this.line('', t, events);
    }
    return events;
  }

  private line(line: string, t: number, events: SseEvent[]): void {
    if (line === '') {
      if (this.sawField) events.push({ event: this.eventName || 'message', data: this.dataLines.join('\n'), t });
      this.eventName = '';
      this.dataLines = [];
      this.sawField = false;
      return;
    }
    if (line.startsWith(':')) return; // comment / keep-alive
    const colon = line.indexOf(':');
    const field = colon < 0 ? line : line.slice(0, colon);
    let value = colon < 0 ? '' : line.slice(colon + 1);
    if (value.startsWith(' ')) value = value.slice(1);
    if (field === 'data') {
      this.dataLines.push(value);
      this.sawField = true;
    } else if (field === 'event') {
      this.eventName = value;
      this.sawField = true;
    }
  }
}
