/**
 * Byte-pair encoding over tiktoken rank tables, written for counting speed.
 *
 * Rank lists and pre-tokeniser patterns come from gpt-tokenizer (data only); the merge is ours.
 * gpt-tokenizer and js-tiktoken look every candidate pair up by its bytes (gpt-tokenizer through a
 * UTF-8 validator and a TextDecoder); on CJK text, where pieces are long and pairs split
 * characters, that runs at 0.3–1.5 MB/s here. We keep a pair table: for two adjacent parts that
 * are tokens A and B, the token their bytes join into (its id is also its merge priority), filled
 * on demand. The merge is then integer work on typed arrays, equal to tiktoken's by construction
 * and by test.
 */
import { isAsciiText } from './asciiPatterns';
import { ByteRankIndex, NO_TOKEN } from './byteRankIndex';
import { CharBoundaryCuts } from './charBoundaryCuts';
import { CharLevelStart } from './charLevel';
import { HeapMerge } from './heapMerge';
import { ideographPieceEnd } from './ideographRuns';
import type { RankData } from './rankFile';
import { withUnicodeWhitespace } from './unicodeWhitespace';
import { IntPairMemo, NONE } from './intPairMemo';

const UNKNOWN = -1;

/**
 * (A, B) → the token A's and B's bytes join into, or NONE. Filled on demand from the byte index and
 * memoised: a text only ever asks for a small share of the pairs. Pairs of single-byte tokens, the
 * first lookups of every merge, sit in a direct 256×256 table.
 */
class PairTable {
  private readonly bytePairs = new Int32Array(256 * 256).fill(UNKNOWN);
  private readonly memo: IntPairMemo;

  constructor(private readonly ranks: ByteRankIndex) {
    this.memo = new IntPairMemo((a, b) => this.resolve(a, b));
  }

  get(a: number, b: number): number {
    if (a < 256 && b < 256) {
      const direct = this.bytePairs[(a << 8) | b]!;
      if (direct !== UNKNOWN) return direct;
      return (this.bytePairs[(a << 8) | b] = this.resolve(a, b));
    }
    return this.memo.get(a, b);
  }

  private resolve(a: number, b: number): number {
    const joined = this.ranks.joinedRank(a, b);
    return joined === NO_TOKEN ? NONE : joined;
  }
}

export interface RankTable {
  /** Token bytes → id (whole pieces and parts are looked up here first). */
  readonly ranks: ByteRankIndex;
  readonly byteRanks: Int32Array;
  readonly pairs: PairTable;
  readonly charLevel: CharLevelStart;
  readonly cuts: CharBoundaryCuts;
  readonly splitPattern: RegExp;
  /** The same pattern for pure-ASCII text, without Unicode classes (see asciiPatterns.ts). */
  readonly asciiSplitPattern: RegExp;
}

/** Builds the tables once per encoding from its rank file's data (rankFile.ts). */
export function buildRankTable(data: RankData, splitPattern: RegExp, asciiSplitPattern: RegExp): RankTable {
  const ranks = new ByteRankIndex(data);
  const byteRanks = new Int32Array(256);
  const single = new Uint8Array(1);
  for (let b = 0; b < 256; b++) {
    single[0] = b;
    const rank = ranks.rankOf(single, 0, 1);
    if (rank === NO_TOKEN) throw new Error(`rank table has no token for byte ${b}`);
    byteRanks[b] = rank;
  }
  const pairs = new PairTable(ranks);
  return { ranks, byteRanks, pairs, charLevel: new CharLevelStart(pairs, byteRanks), cuts: new CharBoundaryCuts(data.spanBits), splitPattern: new RegExp(withUnicodeWhitespace(splitPattern.source), 'gu'), asciiSplitPattern };
}

const PIECE_CACHE_LIMIT = 100_000;
/** Above this many initial parts the heap merge wins over the linear scan (measured: bench tokenizers). */
const HEAP_MERGE_MIN_PARTS = 256;

export class BpeEncoder {
  private readonly pieceCounts = new Map<string, number>();
  private parts = new Int32Array(256);
  /** Tokens of each BMP character on its own (0 = not yet known): the piece cache for one-character parts. */
  private readonly singleCharCounts = new Uint8Array(0x10000);
  private pairRanks = new Int32Array(256);
  private readonly heapMerge = new HeapMerge();

  constructor(private readonly table: RankTable) {}

  count(text: string): number {
    const { ranks } = this.table;
    const cache = this.pieceCounts;
    const splitPattern = this.splitPatternFor(text);
    let total = 0;
    for (let start = 0, end; start < text.length; start = end) {
      end = this.pieceEnd(text, start, splitPattern);
      if (end < 0) break;
      const piece = text.slice(start, end);
      // Repeated pieces (most of any text) cost one lookup; single-token pieces are cached as 1.
      let count = cache.get(piece);
      if (count === undefined) {
        count = ranks.rankOfText(piece) !== NO_TOKEN ? 1 : this.countByCuts(piece);
        if (cache.size >= PIECE_CACHE_LIMIT) cache.clear();
        cache.set(piece, count);
      }
      total += count;
    }
    return total;
  }

  encode(text: string): number[] {
    const { ranks } = this.table;
    const splitPattern = this.splitPatternFor(text);
    const out: number[] = [];
    for (let start = 0, end; start < text.length; start = end) {
      end = this.pieceEnd(text, start, splitPattern);
      if (end < 0) break;
      const piece = text.slice(start, end);
      const rank = ranks.rankOfText(piece);
      if (rank !== NO_TOKEN) {
        out.push(rank);
        continue;
      }
      const cuts = this.cutOffsets(piece);
      for (let k = 0; k <= cuts.length; k++) {
        const part = cuts.length === 0 ? piece : piece.slice(k === 0 ? 0 : cuts[k - 1]!, k < cuts.length ? cuts[k]! : piece.length);
        const partRank = ranks.rankOfText(part);
        if (partRank !== NO_TOKEN) {
          out.push(partRank);
          continue;
        }
        const n = this.merge(part);
        for (let i = 0; i < n; i++) out.push(this.parts[i]!);
      }
    }
    return out;
  }

  /**
   * The pre-tokeniser: end of the piece that starts at `start`, or -1 past the last one. Runs of CJK
   * ideographs take the fast path (ideographRuns.ts); everything else the split pattern, with
   * test() + lastIndex so that no match array is allocated per piece.
   */
  private pieceEnd(text: string, start: number, splitPattern: RegExp): number {
    if (splitPattern !== this.table.asciiSplitPattern) {
      const end = ideographPieceEnd(text, start);
      if (end >= 0) return end;
    }
    splitPattern.lastIndex = start;
    return splitPattern.test(text) ? splitPattern.lastIndex : -1;
  }

  /**
   * Tokens of `piece` as the sum of its parts between safe cuts. Parts of one BMP character (most
   * of them in CJK text) are counted from a per-character memo, without a string or a cache lookup.
   */
  private countByCuts(piece: string): number {
    const cuts = this.cutOffsets(piece);
    if (cuts.length === 0) return this.merge(piece);
    let total = 0;
    let from = 0;
    for (const to of cuts) {
      total += this.countPartAt(piece, from, to);
      from = to;
    }
    return total + this.countPartAt(piece, from, piece.length);
  }

  /** Tokens of piece[from, to), through the per-character memo or the piece cache. */
  private countPartAt(piece: string, from: number, to: number): number {
    if (to - from === 1) {
      const code = piece.charCodeAt(from);
      let count = this.singleCharCounts[code]!;
      if (count === 0) {
        const ch = piece[from]!;
        count = this.table.ranks.rankOfText(ch) !== NO_TOKEN ? 1 : this.merge(ch);
        this.singleCharCounts[code] = count;
      }
      return count;
    }
    const part = piece.slice(from, to);
    let count = this.pieceCounts.get(part);
    if (count === undefined) {
      count = this.table.ranks.rankOfText(part) !== NO_TOKEN ? 1 : this.merge(part);
      this.pieceCounts.set(part, count);
    }
    return count;
  }

  /** Offsets inside `piece` at boundaries no token spans (charBoundaryCuts.ts); none for a lone surrogate. */
  private cutOffsets(piece: string): number[] {
    const { cuts } = this.table;
    const offsets: number[] = [];
    let previous = -1;
    for (let i = 0; i < piece.length; i++) {
      const at = i;
      let cp = piece.charCodeAt(i);
      if (cp >= 0xd800 && cp <= 0xdfff) {
        const low = piece.charCodeAt(i + 1);
        if (cp > 0xdbff || !(low >= 0xdc00 && low <= 0xdfff)) return []; // lone surrogate: no cutting
        cp = 0x10000 + ((cp - 0xd800) << 10) + (low - 0xdc00);
        i++;
      }
      if (previous >= 0 && (previous >= 0x80 || cp >= 0x80) && cuts.isCut(previous, cp)) offsets.push(at);
      previous = cp;
    }
    return offsets;
  }

  clearCache(): void {
    this.pieceCounts.clear();
    this.singleCharCounts.fill(0);
  }

  private splitPatternFor(text: string): RegExp {
    return isAsciiText(text) ? this.table.asciiSplitPattern : this.table.splitPattern;
  }

  /**
   * tiktoken's merge on `piece`'s UTF-8 bytes: repeatedly join the adjacent pair with the lowest
   * merged id (leftmost on ties). Parts stay contiguous so the minimum search is a linear scan over
   * adjacent memory, the fastest form for pieces of a few dozen bytes.
   * Returns the number of tokens, whose ids are then `parts[0..n)`.
   */
  private merge(piece: string): number {
    const { byteRanks, pairs, charLevel } = this.table;
    if (this.parts.length < piece.length * 3 + 4) {
      this.parts = new Int32Array(piece.length * 3 + 4);
      this.pairRanks = new Int32Array(piece.length * 3 + 4);
    }
    const { parts, pairRanks } = this;
    let n = charLevel.tryStart(piece, parts);
    if (n < 0) n = writeUtf8(piece, parts, byteRanks);
    // Long pieces: the scan below is quadratic in their length; the heap merge is O(n log n) (heapMerge.ts).
    if (n > HEAP_MERGE_MIN_PARTS) return this.heapMerge.merge(parts, n, pairs);
    for (let i = 0; i < n - 1; i++) pairRanks[i] = pairs.get(parts[i]!, parts[i + 1]!);
    pairRanks[n - 1] = NONE;
    while (n > 1) {
      let best = NONE;
      let at = -1;
      for (let i = 0; i < n - 1; i++) {
        const rank = pairRanks[i]!;
        if (rank < best) {
          best = rank;
          at = i;
        }
      }
      if (at < 0) break;
      parts[at] = best;
      for (let i = at + 1; i < n - 1; i++) {
        parts[i] = parts[i + 1]!;
        pairRanks[i] = pairRanks[i + 1]!;
      }
      n--;
      pairRanks[n - 1] = NONE;
      if (at + 1 < n) pairRanks[at] = pairs.get(best, parts[at + 1]!);
      else pairRanks[at] = NONE;
      if (at > 0) pairRanks[at - 1] = pairs.get(parts[at - 1]!, best);
    }
    return n;
  }
}

/** Writes the byte tokens of `text`'s UTF-8 encoding into `out`; lone surrogates become U+FFFD as TextEncoder does. */
function writeUtf8(text: string, out: Int32Array, byteRanks: Int32Array): number {
  let n = 0;
  for (let i = 0; i < text.length; i++) {
    let code = text.charCodeAt(i);
    if (code < 0x80) {
      out[n++] = byteRanks[code]!;
      continue;
    }
    if (code >= 0xd800 && code <= 0xdbff && i + 1 < text.length) {
      const low = text.charCodeAt(i + 1);
      if (low >= 0xdc00 && low <= 0xdfff) {
        code = 0x10000 + ((code - 0xd800) << 10) + (low - 0xdc00);
        i++;
        out[n++] = byteRanks[0xf0 | (code >> 18)]!;
        out[n++] = byteRanks[0x80 | ((code >> 12) & 0x3f)]!;
        out[n++] = byteRanks[0x80 | ((code >> 6) & 0x3f)]!;
        out[n++] = byteRanks[0x80 | (code & 0x3f)]!;
        continue;
      }
    }
    if (code >= 0xd800 && code <= 0xdfff) code = 0xfffd;
    if (code < 0x800) {
      out[n++] = byteRanks[0xc0 | (code >> 6)]!;
      out[n++] = byteRanks[0x80 | (code & 0x3f)]!;
    } else {
      out[n++] = byteRanks[0xe0 | (code >> 12)]!;
      out[n++] = byteRanks[0x80 | ((code >> 6) & 0x3f)]!;
      out[n++] = byteRanks[0x80 | (code & 0x3f)]!;
    }
  }
  return n;
}
