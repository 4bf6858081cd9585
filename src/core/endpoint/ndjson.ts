/**
 * Newline-delimited JSON, incrementally (Ollama's native stream): bytes may split a line or a UTF-8
 * character across reads. Each line carries the time of the read that completed it. A line longer
 * than the limit refuses the stream rather than buffering without end.
 */
import { MAX_EVENT_CHARS, SseLimitError } from './sse';

export interface NdjsonLine {
  text: string;
  t: number;
}

export class NdjsonParser {
  private readonly decoder = new TextDecoder('utf-8');
  private pending: string[] = [];
  private pendingChars = 0;

  constructor(private readonly maxLineChars = MAX_EVENT_CHARS) {}

  feed(chunk: Uint8Array, t: number): NdjsonLine[] {
    return this.scan(this.decoder.decode(chunk, { stream: true }), t, false);
  }

  end(t: number): NdjsonLine[] {
    return this.scan(this.decoder.decode(), t, true);
  }

  private scan(text: string, t: number, final: boolean): NdjsonLine[] {
    const lines: NdjsonLine[] = [];
    let from = 0;
    for (let newline = text.indexOf('\n'); newline >= 0; newline = text.indexOf('\n', from)) {
      this.take(text.slice(from, newline));
      this.flush(lines, t);
      from = newline + 1;
    }
    this.take(text.slice(from));
    if (final) this.flush(lines, t);
    return lines;
  }

  private take(piece: string): void {
    if (!piece) return;
    this.pendingChars += piece.length;
    if (this.pendingChars > this.maxLineChars) throw new SseLimitError(`a line is longer than ${this.maxLineChars} characters`);
    this.pending.push(piece);
  }

  private flush(lines: NdjsonLine[], t: number): void {
    const line = this.pending.join('').replace(/\r$/, '');
    this.pending = [];
    this.pendingChars = 0;
    if (line.trim()) lines.push({ text: line, t });
  }
}
