/**
 * Lines of a (possibly gzip-compressed) JSON Lines file, streamed: the file is never held, and a line
 * longer than the cap is skipped while it is read (its bytes are dropped as they arrive), so memory
 * stays at about one chunk plus one line however large the file or its lines are.
 */
import { createReadStream } from 'node:fs';
import { open } from 'node:fs/promises';
import { createGunzip } from 'node:zlib';
import type { Readable } from 'node:stream';

/** 16 MiB: larger than any sane TracesData batch line, small enough to parse without trouble. */
export const DEFAULT_MAX_LINE_BYTES = 16 * 1024 * 1024;

export type LineEvent = { kind: 'line'; text: string; lineNumber: number } | { kind: 'too-long'; lineNumber: number; bytes: number };

const GZIP_MAGIC = [0x1f, 0x8b];

/** gzip is recognised by its magic bytes, not by the file name. */
export async function isGzipFile(path: string): Promise<boolean> {
  const handle = await open(path, 'r');
  try {
    const head = Buffer.alloc(2);
    const { bytesRead } = await handle.read(head, 0, 2, 0);
    return bytesRead === 2 && head[0] === GZIP_MAGIC[0] && head[1] === GZIP_MAGIC[1];
  } finally {
    await handle.close();
  }
}

export async function openLineSource(path: string): Promise<Readable> {
  // Opened first: a missing or unreadable file is an error here, before any stream exists.
  const gzip = await isGzipFile(path);
  const raw = createReadStream(path, { highWaterMark: 1 << 20 });
  if (!gzip) return raw;
  const gunzip = createGunzip();
  // A read error on the file reaches the reader through the gunzip stream.
  raw.on('error', (error) => gunzip.destroy(error));
  return raw.pipe(gunzip);
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
