/**
 * Character boundaries that byte-pair encoding can never merge across, so a piece can be encoded
 * as its parts cut there — and the parts (mostly words) cached.
 *
 * Every part BPE holds is a token. A merge across the boundary between characters c and d would
 * make a token whose bytes, around that boundary, read (a suffix of c's bytes, or all of them) then
 * (a prefix of d's bytes, or all of them). We index, once, every character boundary inside every
 * non-ASCII token as (unit before, unit after), where a unit is a whole UTF-8 character or, at a
 * token's edge, a fragment of one. If no pair of c's suffixes and d's prefixes is in the index, no
 * token spans c|d and the cut is safe: BPE(piece) = BPE(left) + BPE(right). On the Chinese corpus
 * 73% of the boundaries inside CJK pieces are such cuts, and 7,220 distinct pieces become 2,089
 * distinct parts.
 *
 * The index is a bit set of hashed (unit, unit) pairs (a set of 300k strings took ~60 ms of a cold
 * start). Its set bits are computed when the rank file is written (rankFile.ts) and only placed in
 * the bit set at load. A hash collision can only claim a span that does not exist, which withholds
 * a cut: counts stay exact, a part is only longer.
 */
import { IntPairMemo } from './intPairMemo';

const INDEX_BITS = 24;
const INDEX_MASK = (1 << INDEX_BITS) - 1;

/** FNV-1a of bytes[start, end). */
function unitHash(bytes: Uint8Array, start: number, end: number): number {
  let hash = 0x811c9dc5;
  for (let i = start; i < end; i++) hash = Math.imul(hash ^ bytes[i]!, 0x01000193);
  return hash;
}

function spanBit(before: number, after: number): number {
  let h = Math.imul(before ^ Math.imul(after, 0x9e3779b1), 0x85ebca6b);
  h ^= h >>> 15;
  return h & INDEX_MASK;
}

export class CharBoundaryCuts {
  private spans: SpanSet | undefined;
  private readonly memo = new IntPairMemo((a, b) => this.compute(a, b));
  private readonly left = new Uint8Array(4);
  private readonly right = new Uint8Array(4);

  /** `spanBits`: the index's set bits, as boundarySpanBits returns them. */
  constructor(private readonly spanBits: Uint32Array) {}

  /** True when no token spans the boundary between code points a and b. */
  isCut(a: number, b: number): boolean {
    return this.memo.get(a, b) === 1;
  }

  private compute(a: number, b: number): number {
    if (a < 0x80 && b < 0x80) return 0; // ASCII boundaries are not indexed
    const spans = (this.spans ??= new SpanSet(this.spanBits));
    const leftLength = utf8Into(a, this.left);
    const rightLength = utf8Into(b, this.right);
    for (let i = 1; i <= leftLength; i++) {
      const suffix = unitHash(this.left, leftLength - i, leftLength);
      for (let j = 1; j <= rightLength; j++) {
        const bit = spanBit(suffix, unitHash(this.right, 0, j));
        if (spans.has(bit)) return 0;
      }
    }
    return 1;
  }
}

/**
 * The index's set bits as an open-addressing hash set: 22k bits of o200k_base in 2^24 were a 2 MB
 * bit set, whose first touch alone took ~8 ms of a cold start; this is 256 KB, same answers.
 */
class SpanSet {
  private readonly slots: Int32Array;
  private readonly mask: number;

  constructor(bits: Uint32Array) {
    let size = 1024;
    while (size < bits.length * 2) size <<= 1;
    this.mask = size - 1;
    this.slots = new Int32Array(size).fill(-1);
    for (let i = 0; i < bits.length; i++) {
      let slot = Math.imul(bits[i]!, 0x9e3779b1) >>> 0 & this.mask;
      while (this.slots[slot] !== -1 && this.slots[slot] !== bits[i]) slot = (slot + 1) & this.mask;
      this.slots[slot] = bits[i]!;
    }
  }

  has(bit: number): boolean {
    for (let slot = Math.imul(bit, 0x9e3779b1) >>> 0 & this.mask; ; slot = (slot + 1) & this.mask) {
      const value = this.slots[slot]!;
      if (value === bit) return true;
      if (value === -1) return false;
    }
  }
}

/**
 * The index's set bits, ascending: every boundary inside every non-ASCII token, as a hashed
 * (unit before, unit after) pair. Tokens are given as their lengths by id and their bytes end to end.
 */
export function boundarySpanBits(lengths: Uint8Array, blob: Uint8Array): Uint32Array {
  const set = new Set<number>();
  for (let id = 0, from = 0; id < lengths.length; from += lengths[id]!, id++) {
    const to = from + lengths[id]!;
    let high = false;
    for (let i = from; i < to && !high; i++) high = blob[i]! >= 0x80;
    if (!high) continue;
    let previous: number | undefined;
    let i = from;
    while (i < to) {
      const lead = blob[i]!;
      let end: number;
      if (lead >= 0x80 && lead < 0xc0) {
        end = i; // continuation bytes at the token's start: a fragment of a character
        while (end < to && blob[end]! >= 0x80 && blob[end]! < 0xc0) end++;
      } else {
        end = Math.min(to, i + (lead < 0x80 ? 1 : lead >= 0xf0 ? 4 : lead >= 0xe0 ? 3 : 2));
      }
      const unit = unitHash(blob, i, end);
      if (previous !== undefined) set.add(spanBit(previous, unit));
      previous = unit;
      i = end;
    }
  }
  return Uint32Array.from([...set].sort((x, y) => x - y));
}

/** Writes code point `cp`'s UTF-8 bytes into `out`; returns their number. */
function utf8Into(cp: number, out: Uint8Array): number {
  if (cp < 0x80) {
    out[0] = cp;
    return 1;
  }
  if (cp < 0x800) {
    out[0] = 0xc0 | (cp >> 6);
    out[1] = 0x80 | (cp & 0x3f);
    return 2;
  }
  if (cp < 0x10000) {
    out[0] = 0xe0 | (cp >> 12);
    out[1] = 0x80 | ((cp >> 6) & 0x3f);
    out[2] = 0x80 | (cp & 0x3f);
    return 3;
  }
  out[0] = 0xf0 | (cp >> 18);
  out[1] = 0x80 | ((cp >> 12) & 0x3f);
  out[2] = 0x80 | ((cp >> 6) & 0x3f);
  out[3] = 0x80 | (cp & 0x3f);
  return 4;
}
