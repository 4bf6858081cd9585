/**
 * Pieces too long for the regex engine (issue 20: 24 MB of Thai failed with "Maximum call stack
 * size exceeded"). The scanner that replaces the regex for them (longPieces.ts) must give the
 * regex's ends at every piece start, and the engine tiktoken's counts, whichever finds the pieces.
 */
import fc from 'fast-check';
import o200kList from 'gpt-tokenizer/bpeRanks/o200k_base';
import cl100kList from 'gpt-tokenizer/bpeRanks/cl100k_base';
import { get_encoding } from 'tiktoken';
import { describe, expect, it } from 'vitest';
import { asciiSplitPattern } from '../../../src/core/tokens/asciiPatterns';
import { BpeEncoder, buildRankTable } from '../../../src/core/tokens/bpe';
import { loadEncoder } from '../../../src/core/tokens/engine';
import type { EncodingName } from '../../../src/core/tokens/encodingNames';
import { longPieceEnd } from '../../../src/core/tokens/longPieces';
import { encodeRankFile } from '../../../src/core/tokens/rankFile';
import { rankFileInMemory } from '../../../src/core/tokens/rankFileReaders';
import { splitPatternSource } from '../../../src/core/tokens/splitPatterns';
import { withTiktokenClasses } from '../../../src/core/tokens/unicodeClasses';
import { withUnicodeWhitespace } from '../../../src/core/tokens/unicodeWhitespace';

const NAMES: EncodingName[] = ['o200k_base', 'cl100k_base'];
const SEED = 20_2020;

/** Characters on every side of every class boundary the two patterns draw. */
const ALPHABET = [
  'ก', 'ข', 'ส', 'ั', 'ี', '่', '๑', // Thai: Lo, Mn, Nd
  'a', 'z', 'B', 'Q', 'é', 'ǅ', 'ʰ', '\u0301', '中', 'я', 'Ж', // Ll, Lu, Lt, Lm, Mn, Lo
  '7', '²', '.', '…', '/', '-', '"', "'", 's', 't', 'l', 'L', 'v', 'e', 'r', 'E', 'D', 'm', // digits, punctuation, contraction letters
  ' ', ' ', '\u3000', '\t', '\r', '\n', '\u0085', '\u00a0', '\ufeff', // White_Space (and the BOM, which is not)
  '😀', '𝐀', '𝐚', '\ud800', '\udc00', // astral symbol, Lu, Ll; lone surrogates
  '\u{32556}', '\u{10d50}', '\u{10d70}', '\u0295', '\u{11de0}', '\u{1e6e3}', // classes tiktoken (Unicode 16) and V8 see differently
];

function regexPieces(encoding: EncodingName, text: string): number[] {
  const pattern = new RegExp(withTiktokenClasses(withUnicodeWhitespace(splitPatternSource(encoding))), 'gv');
  const ends: number[] = [];
  for (let start = 0; start < text.length; ) {
    pattern.lastIndex = start;
    if (!pattern.test(text)) break;
    ends.push((start = pattern.lastIndex));
  }
  return ends;
}

function scannedPieces(encoding: EncodingName, text: string): number[] {
  const ends: number[] = [];
  for (let start = 0; start < text.length; ) {
    const end = longPieceEnd(encoding, text, start);
    if (end <= start) break;
    ends.push((start = end));
  }
  return ends;
}

/** Thai prose as it comes: words, spaces, digits, punctuation, line breaks, an English word now and then. */
function thaiProse(chars: number, seed: number): string {
  let state = seed;
  const next = (n: number): number => {
    state = (Math.imul(state, 1103515245) + 12345) >>> 0;
    return state % n;
  };
  const words = ['สวัสดีครับ', 'ภาษาไทย', 'กรุงเทพมหานคร', 'ขอบคุณค่ะ', 'บ้านเดี่ยว', 'คอนโดมิเนียม', 'ทาวน์เฮาส์', 'ใกล้ๆ', '๒๕๖๗', 'Bangkok', 'OK'];
  const gaps = [' ', ' ', ' ', '', '', ', ', '. ', '\n', '\n\n', ' "', '" ', ' (', ') ', '…', ' 2024 '];
  const parts: string[] = [];
  let size = 0;
  while (size < chars) {
    let word = next(4) === 0 ? Array.from({ length: 1 + next(12) }, () => String.fromCodePoint(0x0e01 + next(0x0e5b - 0x0e01 + 1))).join('') : words[next(words.length)]!;
    word += gaps[next(gaps.length)]!;
    parts.push(word);
    size += word.length;
  }
  return parts.join('');
}

describe('pieces too long for the regex engine', () => {
  it(`the scanner ends every piece where the regex does (fast-check seed ${SEED})`, () => {
    for (const encoding of NAMES) {
      fc.assert(
        fc.property(fc.array(fc.constantFrom(...ALPHABET), { minLength: 1, maxLength: 80 }), (chars) => {
          const text = chars.join('');
          expect(scannedPieces(encoding, text)).toEqual(regexPieces(encoding, text));
        }),
        { seed: SEED, numRuns: 4000 },
      );
      // Long runs of each class too (the cases the scanner exists for), cut short enough for the regex.
      for (const unit of ['สวัสดีครับ', 'กขค', 'ABCdef', 'ǅʰ', '…', ' ', '\u3000', ' \n\t', '中文', 'ก\u0301']) {
        const text = `x${unit.repeat(5000)}'s ${unit.repeat(300)}.`;
        expect(scannedPieces(encoding, text)).toEqual(regexPieces(encoding, text));
      }
    }
  });

  it('a large Thai text counts as tiktoken counts it, with every piece found by the scanner', async () => {
    const text = thaiProse(1_500_000, 7);
    for (const [encoding, list] of [['o200k_base', o200kList], ['cl100k_base', cl100kList]] as const) {
      const table = await buildRankTable(rankFileInMemory(encodeRankFile(list)), splitPatternSource(encoding), asciiSplitPattern(encoding));
      // A regex that always overflows, as the real one does on a piece of millions of letters.
      const overflowing = { lastIndex: 0, test: () => { throw new RangeError('Maximum call stack size exceeded'); } } as unknown as RegExp;
      const scanned = new BpeEncoder({ ...table, splitPattern: () => overflowing });
      const oracle = get_encoding(encoding);
      try {
        const expected = oracle.encode_ordinary(text).length;
        expect(scanned.count(text)).toBe(expected);
        expect((await loadEncoder(encoding)).count(text)).toBe(expected);
      } finally {
        oracle.free();
      }
    }
  });

  it('24 MB of Thai without a space: one piece, counted as tiktoken counts it, no stack overflow', async () => {
    // o200k takes letters and marks into one piece, cl100k letters only ('ภาษาไทย' has no mark).
    for (const [encoding, word] of [['o200k_base', 'สวัสดีครับ'], ['cl100k_base', 'ภาษาไทย']] as const) {
      const repeats = Math.ceil(8_000_000 / word.length); // 8 M code units, 24 MB of UTF-8
      const text = word.repeat(repeats);
      expect(longPieceEnd(encoding, text, 0)).toBe(text.length);
      // tiktoken's merge is quadratic on one piece (24 MB would take a day): it counts 1000 repeats,
      // and the merge of a periodic piece is periodic (checked: 1000 and 2000 repeats).
      const oracle = get_encoding(encoding);
      let perRepeat: number;
      try {
        const thousand = oracle.encode_ordinary(word.repeat(1000)).length;
        expect(oracle.encode_ordinary(word.repeat(2000)).length).toBe(2 * thousand);
        perRepeat = thousand / 1000;
      } finally {
        oracle.free();
      }
      const encoder = await loadEncoder(encoding);
      const started = performance.now();
      const count = encoder.count(text);
      console.log(`${encoding}: 24 MB of Thai in one piece, ${count} tokens in ${Math.round(performance.now() - started)} ms`);
      expect(count).toBe(perRepeat * repeats);
    }
  });
});
