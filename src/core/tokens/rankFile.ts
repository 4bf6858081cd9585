/**
 * A rank table as one compact binary file, read at start-up without parsing JavaScript: the
 * 3.3 MB JS module of o200k_base's 200k token strings took ~170 ms to compile and ~180 ms more to
 * turn into maps, most of a `tokens` call's 400 ms. Layout (little-endian):
 *   "PIRK" · u32 version · u32 token count · u32 blob bytes · u32 span bytes ·
 *   spanBits (ascending, as LEB128 varints of the gaps) · u8 length[token count] · blob
 * where token id i's bytes are the blob from the sum of the lengths before it. Ids are dense in
 * both tables (no gaps); tokens are at most 128 bytes (255 fits in a length byte). `spanBits` is
 * the character-boundary index (spanIndex.ts), computed here once at build time: built at
 * load it cost 15 ms of a first CJK count; read, 22k numbers.
 */
import { boundarySpanBits } from './spanIndex';

const MAGIC = 0x4b524950; // "PIRK"
const VERSION = 3;
const HEADER_BYTES = 20;

export interface RankData {
  count: number;
  /** Byte length of each token's bytes in `blob`, by id. */
  lengths: Uint8Array;
  blob: Uint8Array;
  /** Set bits of the character-boundary index, ascending, as LEB128 varints of their gaps (decoded by the merge as it loads them). */
  spans: Uint8Array;
}

/** From a rank list as gpt-tokenizer ships it: index = id; a string (its UTF-8 bytes) or a byte array. */
export function encodeRankFile(rankList: readonly (string | number[] | undefined)[]): Uint8Array {
  const encoder = new TextEncoder();
  const tokens = rankList.map((value, id) => {
    if (value === undefined) throw new Error(`rank list has no token ${id}`);
    const bytes = typeof value === 'string' ? encoder.encode(value) : Uint8Array.from(value);
    if (bytes.length === 0 || bytes.length > 255) throw new Error(`token ${id} has ${bytes.length} bytes`);
    return bytes;
  });
  const lengths = Uint8Array.from(tokens, (bytes) => bytes.length);
  const blob = new Uint8Array(tokens.reduce((sum, t) => sum + t.length, 0));
  let at = 0;
  for (const bytes of tokens) {
    blob.set(bytes, at);
    at += bytes.length;
  }
  const spans = encodeGaps(boundarySpanBits(lengths, blob));
  const spansAt = HEADER_BYTES;
  const lengthsAt = spansAt + spans.length;
  const out = new Uint8Array(lengthsAt + lengths.length + blob.length);
  const view = new DataView(out.buffer);
  view.setUint32(0, MAGIC, true);
  view.setUint32(4, VERSION, true);
  view.setUint32(8, tokens.length, true);
  view.setUint32(12, blob.length, true);
  view.setUint32(16, spans.length, true);
  out.set(spans, spansAt);
  out.set(lengths, lengthsAt);
  out.set(blob, lengthsAt + lengths.length);
  return out;
}

export function decodeRankFile(file: Uint8Array): RankData {
  const view = new DataView(file.buffer, file.byteOffset, file.byteLength);
  if (file.byteLength < HEADER_BYTES || view.getUint32(0, true) !== MAGIC || view.getUint32(4, true) !== VERSION) throw new Error('not a Prompt Insight rank file (or another version)');
  const count = view.getUint32(8, true);
  const blobBytes = view.getUint32(12, true);
  const spanBytes = view.getUint32(16, true);
  const lengthsAt = HEADER_BYTES + spanBytes;
  if (file.byteLength !== lengthsAt + count + blobBytes) throw new Error('rank file is truncated or has trailing bytes');
  return { count, lengths: file.subarray(lengthsAt, lengthsAt + count), blob: file.subarray(lengthsAt + count), spans: file.subarray(HEADER_BYTES, lengthsAt) };
}

/** Ascending numbers as LEB128 varints of their gaps: 2 bytes per set bit instead of 4 (the vsix stays under 2.5 MB). */
function encodeGaps(values: Uint32Array): Uint8Array {
  const out: number[] = [];
  let previous = 0;
  for (const value of values) {
    let gap = value - previous;
    previous = value;
    while (gap >= 0x80) {
      out.push((gap & 0x7f) | 0x80);
      gap >>>= 7;
    }
    out.push(gap);
  }
  return Uint8Array.from(out);
}
