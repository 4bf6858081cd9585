/**
 * A fast path of the pre-tokeniser for runs of CJK ideographs, the bulk of Chinese text, where the
 * Unicode-property regex costs ~75 ns per character. In both the o200k and the cl100k pattern, a
 * piece that starts at an ideograph (or at one non-letter, non-digit, non-newline character
 * followed by one) is the letter alternative: it takes the whole run of letters, then, in o200k
 * only, an ASCII contraction ('s, 're…). So when the run of ideographs is followed by a character
 * that is neither a letter, a mark nor an apostrophe, the piece ends right there. Anything else —
 * kana, Latin, marks, apostrophes, characters outside the tables — falls back to the regex.
 */
import { tiktokenRegExp } from './unicodeClasses';

/** CJK Unified Ideographs and Extension A, as assigned since Unicode 11: all Lo. */
function isIdeograph(c: number): boolean {
  return (c >= 0x4e00 && c <= 0x9fef) || (c >= 0x3400 && c <= 0x4db5);
}

/** Classes computed once with the regex engine itself (tiktoken's Unicode classes, unicodeClasses.ts), for ASCII, general punctuation, CJK symbols and fullwidth forms. */
const TABLE_RANGES: [number, number][] = [[0x0000, 0x007f], [0x2000, 0x206f], [0x3000, 0x303f], [0xff00, 0xffef]];
const PREFIX = 1;
const STOP = 2;
/** Per BMP code unit: PREFIX | STOP flags; 0 outside the tables (never fast). Built on first use (~2 ms, only non-ASCII text needs it). */
let classTable: Uint8Array | undefined;

function buildClasses(): Uint8Array {
  const classes = new Uint8Array(0x10000);
  const letterDigitNewline = tiktokenRegExp(String.raw`[\r\n\p{L}\p{N}]`);
  const letterMarkApostrophe = tiktokenRegExp(String.raw`[\p{L}\p{M}']`);
  for (const [from, to] of TABLE_RANGES) {
    for (let c = from; c <= to; c++) {
      const ch = String.fromCharCode(c);
      let flags = 0;
      if (!letterDigitNewline.test(ch)) flags |= PREFIX;
      if (!letterMarkApostrophe.test(ch)) flags |= STOP;
      classes[c] = flags;
    }
  }
  return classes;
}

/** End of the piece starting at `start` when the fast path applies, else -1. */
export function ideographPieceEnd(text: string, start: number): number {
  const classes = (classTable ??= buildClasses());
  let i = start;
  if (!isIdeograph(text.charCodeAt(i))) {
    if ((classes[text.charCodeAt(i)]! & PREFIX) === 0) return -1;
    i++;
    if (i >= text.length || !isIdeograph(text.charCodeAt(i))) return -1;
  }
  while (i < text.length && isIdeograph(text.charCodeAt(i))) i++;
  if (i < text.length && (classes[text.charCodeAt(i)]! & STOP) === 0) return -1;
  return i;
}
