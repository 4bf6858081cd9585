/**
 * Server-sent events, incrementally: bytes may split an event, a line or a UTF-8 character across
 * reads, and one read may carry many events. Each event carries the time of the read that completed it.
 */
export interface SseEvent {
  event: string;
  data: string;
  t: number;
}

/** An event (or one line of it) longer than the limit: the stream is refused, not buffered without end. */
export class SseLimitError extends Error {}

/** Longest event accepted, in characters: $PROMPT_INSIGHT_MAX_EVENT_MB (default 8) MiB. */
export const MAX_EVENT_CHARS = Math.max(1, Number(process.env.PROMPT_INSIGHT_MAX_EVENT_MB) || 8) * 1024 * 1024;

export class SseParser {
  private readonly decoder = new TextDecoder('utf-8');
  /**
   * The unfinished line, as the pieces that arrived: only new text is scanned, and a long line is
   * joined once when it ends (appending to one string and searching it would re-scan it per read).
   */
  private pending: string[] = [];
  private pendingChars = 0;
  /** The last line ended at a CR: an LF first thing in the next read belongs to it. */
  private skipLf = false;
  private eventName = '';
  private dataLines: string[] = [];
  private dataChars = 0;
  private sawField = false;

  constructor(private readonly maxEventChars = MAX_EVENT_CHARS) {}

  feed(chunk: Uint8Array, t: number): SseEvent[] {
    return this.scan(this.decoder.decode(chunk, { stream: true }), t, false);
  }

  end(t: number): SseEvent[] {
    return this.scan(this.decoder.decode(), t, true);
  }

  private scan(text: string, t: number, final: boolean): SseEvent[] {
    const events: SseEvent[] = [];
    let start = 0;
    if (this.skipLf && text.length > 0) {
      if (text.charCodeAt(0) === 0x0a) start = 1;
      this.skipLf = false;
    }
    // The next CR and LF, each searched for once per stretch of text.
    let lf = text.indexOf('\n', start);
    let cr = text.indexOf('\r', start);
    for (;;) {
      if (lf >= 0 && lf < start) lf = text.indexOf('\n', start);
      if (cr >= 0 && cr < start) cr = text.indexOf('\r', start);
      const end = lf < 0 ? cr : cr < 0 ? lf : Math.min(lf, cr);
      if (end < 0) break;
      const piece = text.slice(start, end);
      let line = piece;
      if (this.pending.length > 0) {
        this.pending.push(piece);
        line = this.pending.join('');
        this.pending = [];
        this.pendingChars = 0;
      }
      if (text.charCodeAt(end) === 0x0d) {
        if (end + 1 < text.length) start = end + (text.charCodeAt(end + 1) === 0x0a ? 2 : 1);
        else {
          start = end + 1;
          this.skipLf = true;
        }
      } else start = end + 1;
      this.line(line, t, events);
    }
    if (start < text.length) {
      this.pending.push(text.slice(start));
      this.pendingChars += text.length - start;
    }
    if (this.pendingChars + this.dataChars > this.maxEventChars) throw this.tooLong();
    if (final) {
      if (this.pendingChars > 0) this.line(this.pending.join(''), t, events);
      this.pending = [];
      this.pendingChars = 0;
      this.line('', t, events);
    }
    return events;
  }

  private tooLong(): SseLimitError {
    return new SseLimitError(`an event longer than ${Math.round(this.maxEventChars / 1048576)} MiB (PROMPT_INSIGHT_MAX_EVENT_MB sets the limit)`);
  }

  private line(line: string, t: number, events: SseEvent[]): void {
    if (line === '') {
      if (this.sawField) events.push({ event: this.eventName || 'message', data: this.dataLines.join('\n'), t });
      this.eventName = '';
      this.dataLines = [];
      this.dataChars = 0;
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
      this.dataChars += value.length + 1;
      if (this.dataChars > this.maxEventChars) throw this.tooLong();
      this.sawField = true;
    } else if (field === 'event') {
      this.eventName = value;
      this.sawField = true;
    }
  }
}
