/**
 * A rank table as one compact binary file, read at start-up without parsing JavaScript: the
 * 3.3 MB JS module of o200k_base's 200k token strings took ~170 ms to compile and ~180 ms more to
 * turn into maps, most of a `tokens` call's 400 ms. Layout (little-endian):
 *   "PIRK" · u32 version · u32 token count · u32 blob bytes · u8 length[count] · blob
 * where token id i's bytes are the blob from the sum of the lengths before it. Ids are dense in
 * both tables (no gaps); tokens are at most 128 bytes (255 fits in a length byte).
 */
const MAGIC = 0x4b524950; // "PIRK"
const VERSION = 1;
const HEADER_BYTES = 16;

export interface RankData {
  count: number;
  /** Byte offset of each token in `blob`; `offsets[count]` is the blob's length. */
  offsets: Uint32Array;
  blob: Uint8Array;
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
  const blobBytes = tokens.reduce((sum, t) => sum + t.length, 0);
  const out = new Uint8Array(HEADER_BYTES + tokens.length + blobBytes);
  const view = new DataView(out.buffer);
  view.setUint32(0, MAGIC, true);
  view.setUint32(4, VERSION, true);
  view.setUint32(8, tokens.length, true);
  view.setUint32(12, blobBytes, true);
  let at = HEADER_BYTES + tokens.length;
  tokens.forEach((bytes, id) => {
    out[HEADER_BYTES + id] = bytes.length;
    out.set(bytes, at);
    at += bytes.length;
  });
  return out;
}

export function decodeRankFile(file: Uint8Array): RankData {
  const view = new DataView(file.buffer, file.byteOffset, file.byteLength);
  if (file.byteLength < HEADER_BYTES || view.getUint32(0, true) !== MAGIC || view.getUint32(4, true) !== VERSION) throw new Error('not a Prompt Insight rank file (or another version)');
  const count = view.getUint32(8, true);
  const blobBytes = view.getUint32(12, true);
  if (file.byteLength !== HEADER_BYTES + count + blobBytes) throw new Error('rank file is truncated or has trailing bytes');
  const lengths = file.subarray(HEADER_BYTES, HEADER_BYTES + count);
  const offsets = new Uint32Array(count + 1);
  for (let id = 0; id < count; id++) offsets[id + 1] = offsets[id]! + lengths[id]!;
  if (offsets[count] !== blobBytes) throw new Error('rank file lengths do not match its blob');
  return { count, offsets, blob: file.subarray(HEADER_BYTES + count) };
}
