/**
 * Lines of a JSON Lines byte stream, streamed, and each line parsed within bounds — the one place where
 * trace-file text becomes values. The file is never held, a line longer than the cap is skipped while
 * it is read (its bytes are dropped as they arrive), and a line is parsed only when its nesting depth
 * and its number of arrays and objects are within bounds (a 14 MiB line of nested arrays would take
 * hundreds of MB to parse): memory stays at about one chunk plus one line and its parsed value,
 * however large or hostile the file or its lines are. What is refused is counted by reason.
 */

/** 16 MiB: larger than any sane TracesData batch line, small enough to parse without trouble. */
export const DEFAULT_MAX_LINE_BYTES = 16 * 1024 * 1024;
/** OTLP's deepest real shape (an attribute holding a list of key-value lists) is some 15 levels. */
export const MAX_JSON_DEPTH = 64;
/** Arrays and objects in one line: a full 16 MiB line of real spans holds some 700,000. */
export const MAX_JSON_CONTAINERS = 1_000_000;

export type LineEvent = { kind: 'line'; text: string; lineNumber: number } | { kind: 'too-long'; lineNumber: number; bytes: number };

/** Why a whole line was not read. */
export const JSON_LINE_REFUSALS = ['line-too-long', 'malformed-json', 'nested-too-deep', 'too-many-values'] as const;
export type JsonLineRefusal = (typeof JSON_LINE_REFUSALS)[number];
export type JsonLineEvent = { kind: 'value'; value: unknown; lineNumber: number } | { kind: 'refused'; reason: JsonLineRefusal; lineNumber: number };

export interface JsonBounds {
  maxDepth?: number;
  maxContainers?: number;
}

/**
 * JSON text parsed only when its shape is within bounds: a scan (strings skipped) counts depth and
 * containers and stops at the first bound passed, before JSON.parse allocates anything.
 */
export function parseBoundedJson(text: string, bounds: JsonBounds = {}): { ok: true; value: unknown } | { ok: false; reason: Exclude<JsonLineRefusal, 'line-too-long'> } {
  const maxDepth = bounds.maxDepth ?? MAX_JSON_DEPTH;
  const maxContainers = bounds.maxContainers ?? MAX_JSON_CONTAINERS;
  let depth = 0;
  let containers = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x22) {
      // A string: to its closing quote, escapes skipped (an unterminated one is JSON.parse's to refuse).
      for (i++; i < text.length; i++) {
        const d = text.charCodeAt(i);
        if (d === 0x5c) i++;
        else if (d === 0x22) break;
      }
    } else if (c === 0x5b || c === 0x7b) {
      if (++depth > maxDepth) return { ok: false, reason: 'nested-too-deep' };
      if (++containers > maxContainers) return { ok: false, reason: 'too-many-values' };
    } else if (c === 0x5d || c === 0x7d) depth--;
  }
  try {
    return { ok: true, value: JSON.parse(text) };
  } catch {
    return { ok: false, reason: 'malformed-json' };
  }
}

/** Each line of a JSON Lines stream as a parsed value, or the reason it was refused. */
export async function* readJsonLines(source: AsyncIterable<Buffer>, options: { maxLineBytes?: number } & JsonBounds = {}): AsyncGenerator<JsonLineEvent> {
  for await (const event of readLines(source, options.maxLineBytes ?? DEFAULT_MAX_LINE_BYTES)) {
    if (event.kind === 'too-long') {
      yield { kind: 'refused', reason: 'line-too-long', lineNumber: event.lineNumber };
      continue;
    }
    const parsed = parseBoundedJson(event.text, options);
    yield parsed.ok ? { kind: 'value', value: parsed.value, lineNumber: event.lineNumber } : { kind: 'refused', reason: parsed.reason, lineNumber: event.lineNumber };
  }
}

/** Splits a byte stream into lines (LF or CRLF); empty lines are not reported. */
export async function* readLines(source: AsyncIterable<Buffer>, maxLineBytes = DEFAULT_MAX_LINE_BYTES): AsyncGenerator<LineEvent> {
  let parts: Buffer[] = [];
  let partBytes = 0;
  let overflowBytes = 0; // > 0: the current line is over the cap and is being dropped
  let lineNumber = 0;
  const finish = function* (): Generator<LineEvent> {
    lineNumber++;
    if (overflowBytes > 0) {
      yield { kind: 'too-long', lineNumber, bytes: overflowBytes };
    } else if (partBytes > 0) {
      let text = (parts.length === 1 ? parts[0]! : Buffer.concat(parts, partBytes)).toString('utf8');
      if (text.endsWith('\r')) text = text.slice(0, -1);
      if (text.trim() !== '') yield { kind: 'line', text, lineNumber };
    }
    parts = [];
    partBytes = 0;
    overflowBytes = 0;
  };
  for await (const chunk of source) {
    let at = 0;
    while (at < chunk.length) {
      const newline = chunk.indexOf(0x0a, at);
      const end = newline < 0 ? chunk.length : newline;
      const piece = chunk.subarray(at, end);
      if (newline >= 0 && partBytes === 0 && overflowBytes === 0 && piece.length <= maxLineBytes) {
        // The common case: a whole line inside one chunk, decoded without a copy.
        lineNumber++;
        let text = piece.toString('utf8');
        if (text.endsWith('\r')) text = text.slice(0, -1);
        if (text.trim() !== '') yield { kind: 'line', text, lineNumber };
        at = newline + 1;
        continue;
      }
      if (overflowBytes > 0) overflowBytes += piece.length;
      else if (partBytes + piece.length > maxLineBytes) {
        overflowBytes = partBytes + piece.length;
        parts = [];
        partBytes = 0;
      } else if (piece.length > 0) {
        // A copy: the chunk's buffer is reused by the stream.
        parts.push(Buffer.from(piece));
        partBytes += piece.length;
      }
      if (newline < 0) break;
      yield* finish();
      at = newline + 1;
    }
  }
  if (partBytes > 0 || overflowBytes > 0) yield* finish();
}
