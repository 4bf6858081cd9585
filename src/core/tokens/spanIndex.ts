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
 * The index is a set of hashed (unit, unit) pairs (a set of 300k strings took ~60 ms of a cold
 * start). Its members are computed here when the rank file is written (rankFile.ts); the merge
 * (assembly/safeCuts.ts) places them in a hash set at load and hashes a boundary's units the same way.
 * A hash collision can only claim a span that does not exist, which withholds a cut: counts stay
 * exact, a part is only longer.
 */

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
