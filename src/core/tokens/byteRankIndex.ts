/**
 * Token bytes → id, over the rank file's blob (rankFile.ts): an open-addressing hash table of ids
 * keyed by FNV-1a of the bytes, built in a few milliseconds at load instead of two 200k-entry
 * string maps. Lookups of a text encode it into a scratch buffer; lookups of a pair of tokens
 * concatenate their bytes there.
 */
import type { RankData } from './rankFile';

export const NO_TOKEN = -1;
const MAX_TOKEN_BYTES = 255;

function fnv1a(bytes: Uint8Array, start: number, end: number): number {
  let hash = 0x811c9dc5;
  for (let i = start; i < end; i++) hash = Math.imul(hash ^ bytes[i]!, 0x01000193);
  return hash >>> 0;
}

export class ByteRankIndex {
  readonly count: number;
  private readonly offsets: Uint32Array;
  private readonly blob: Uint8Array;
  private readonly slots: Int32Array;
  private readonly mask: number;
  private readonly scratch = new Uint8Array(MAX_TOKEN_BYTES * 2 + 8);
  private readonly encoder = new TextEncoder();

  constructor(data: RankData) {
    this.count = data.count;
    this.blob = data.blob;
    this.offsets = new Uint32Array(data.count + 1);
    let size = 1;
    while (size < data.count * 2) size <<= 1;
    this.mask = size - 1;
    this.slots = new Int32Array(size).fill(NO_TOKEN);
    // One pass: offsets and hashes together (a start-up cost of every new process, run cold).
    const { lengths, blob } = data;
    const { offsets, slots, mask } = this;
    let at = 0;
    for (let id = 0; id < data.count; id++) {
      const end = at + lengths[id]!;
      offsets[id + 1] = end;
      let slot = fnv1a(blob, at, end) & mask;
      while (slots[slot] !== NO_TOKEN) slot = (slot + 1) & mask;
      slots[slot] = id;
      at = end;
    }
    if (at !== blob.length) throw new Error('rank data lengths do not match its blob');
  }

  /** The id whose bytes are `bytes[start, end)`, or NO_TOKEN. */
  rankOf(bytes: Uint8Array, start: number, end: number): number {
    const length = end - start;
    if (length <= 0 || length > MAX_TOKEN_BYTES) return NO_TOKEN;
    const { slots, mask, offsets, blob } = this;
    for (let slot = fnv1a(bytes, start, end) & mask; ; slot = (slot + 1) & mask) {
      const id = slots[slot]!;
      if (id === NO_TOKEN) return NO_TOKEN;
      const from = offsets[id]!;
      if (offsets[id + 1]! - from !== length) continue;
      let same = true;
      for (let i = 0; i < length; i++) {
        if (blob[from + i] !== bytes[start + i]) {
          same = false;
          break;
        }
      }
      if (same) return id;
    }
  }

  /** The id of `text`'s UTF-8 bytes (lone surrogates as U+FFFD, as tiktoken receives them), or NO_TOKEN. */
  rankOfText(text: string): number {
    if (text.length > MAX_TOKEN_BYTES) return NO_TOKEN;
    const { read, written } = this.encoder.encodeInto(text, this.scratch);
    if (read !== text.length || written > MAX_TOKEN_BYTES) return NO_TOKEN;
    return this.rankOf(this.scratch, 0, written);
  }

  /** The id of token a's bytes followed by token b's, or NO_TOKEN. */
  joinedRank(a: number, b: number): number {
    const { offsets, blob, scratch } = this;
    const aFrom = offsets[a]!;
    const aLength = offsets[a + 1]! - aFrom;
    const bFrom = offsets[b]!;
    const bLength = offsets[b + 1]! - bFrom;
    if (aLength + bLength > MAX_TOKEN_BYTES) return NO_TOKEN;
    scratch.set(blob.subarray(aFrom, aFrom + aLength), 0);
    scratch.set(blob.subarray(bFrom, bFrom + bLength), aLength);
    return this.rankOf(scratch, 0, aLength + bLength);
  }
}
