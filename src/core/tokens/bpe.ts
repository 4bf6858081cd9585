/**
 * Byte-pair encoding over tiktoken rank tables, written for counting speed.
 *
 * Rank lists and pre-tokeniser patterns come from gpt-tokenizer (data only); the merge is ours, in
 * WebAssembly (assembly/, its entry bpe.ts, through wasmBpe.ts): this file is the pre-tokeniser, which hands the
 * pieces over in batches. gpt-tokenizer and js-tiktoken look every candidate pair up by its bytes;
 * on CJK text, where pieces are long and pairs split characters, that runs at 0.3–1.5 MB/s here.
 * The merge keeps a pair table (for two adjacent tokens, the token their bytes join into, whose id
 * is its merge priority), so it is integer work, equal to tiktoken's by construction and by test.
 */
import { isAsciiText } from './asciiPatterns';
import { ideographPieceEnd } from './ideographRuns';
import { longPieceEnd } from './longPieces';
import type { RankFileSource } from './rankFileReaders';
import { encodingOfSplitPattern } from './splitPatterns';
import { withTiktokenClasses } from './unicodeClasses';
import { withUnicodeWhitespace } from './unicodeWhitespace';
import { WasmBpe } from './wasmBpe';

export interface RankTable {
  readonly merge: WasmBpe;
  /** tiktoken's pattern with its Unicode classes (unicodeClasses.ts), compiled on the first non-ASCII text (a Unicode-class pattern takes a few ms to build). */
  readonly splitPattern: () => RegExp;
  /** The same pattern for pure-ASCII text, without Unicode classes (see asciiPatterns.ts). */
  readonly asciiSplitPattern: RegExp;
  /** The pre-tokeniser for a piece too long for the regex engine (longPieces.ts): same ends, no backtrack stack. */
  readonly longPieceEnd: (text: string, start: number) => number;
}

/** Builds the tables once per encoding from its rank file (rankFile.ts). */
export async function buildRankTable(rankFile: RankFileSource, splitPatternSource: string, asciiSplitPattern: RegExp): Promise<RankTable> {
  let splitPattern: RegExp | undefined;
  const encoding = encodingOfSplitPattern(splitPatternSource);
  return {
    merge: await WasmBpe.create(rankFile),
    splitPattern: () => (splitPattern ??= new RegExp(withTiktokenClasses(withUnicodeWhitespace(splitPatternSource)), 'gv')),
    asciiSplitPattern,
    longPieceEnd: (text, start) => {
      if (!encoding) throw new Error(`A piece of ${text.length - start} characters is too long for this split pattern's regex.`);
      return longPieceEnd(encoding, text, start);
    },
  };
}

/** Pieces per batch handed to the merge, and the text length after which a batch is handed over early. */
const BATCH_PIECES = 1 << 14;
const BATCH_UNITS = 1 << 16;

export class BpeEncoder {
  constructor(private readonly table: RankTable) {}

  count(text: string): number {
    let total = 0;
    this.eachBatch(text, (from, to, pieces) => {
      total += this.table.merge.countBatch(text, from, to, pieces);
    });
    return total;
  }

  encode(text: string): number[] {
    const out: number[] = [];
    this.eachBatch(text, (from, to, pieces) => this.table.merge.encodeBatch(text, from, to, pieces, out));
    return out;
  }

  clearCache(): void {
    this.table.merge.clearCache();
  }

  /** Splits `text` into pieces and hands them to `handle` in batches: text[from, to) with `pieces` ends in the merge's ends view. */
  private eachBatch(text: string, handle: (from: number, to: number, pieces: number) => void): void {
    const splitPattern = isAsciiText(text) ? this.table.asciiSplitPattern : this.table.splitPattern();
    let ends = this.table.merge.endsView(BATCH_PIECES);
    let from = 0;
    let pieces = 0;
    let end = 0;
    for (let start = 0; start < text.length; start = end) {
      const next = this.pieceEnd(text, start, splitPattern);
      if (next < 0) break;
      end = next;
      ends[pieces++] = end - from;
      if (pieces === BATCH_PIECES || end - from >= BATCH_UNITS) {
        handle(from, end, pieces);
        ends = this.table.merge.endsView(BATCH_PIECES);
        from = end;
        pieces = 0;
      }
    }
    if (pieces > 0) handle(from, end, pieces);
  }

  /**
   * The pre-tokeniser: end of the piece that starts at `start`, or -1 past the last one. Runs of CJK
   * ideographs take the fast path (ideographRuns.ts); everything else the split pattern, with
   * test() + lastIndex so that no match array is allocated per piece. A piece of millions of
   * letters (24 MB of Thai without spaces) overflows the regex engine's backtrack stack: that one
   * piece is found by longPieces.ts instead.
   */
  private pieceEnd(text: string, start: number, splitPattern: RegExp): number {
    if (splitPattern !== this.table.asciiSplitPattern) {
      const end = ideographPieceEnd(text, start);
      if (end >= 0) return end;
    }
    splitPattern.lastIndex = start;
    try {
      return splitPattern.test(text) ? splitPattern.lastIndex : -1;
    } catch (error) {
      if (!(error instanceof RangeError)) throw error;
      return this.table.longPieceEnd(text, start);
    }
  }
}
