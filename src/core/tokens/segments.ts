import { tiktokenRegExp } from './unicodeClasses';

/**
 * Splits text at points no BPE piece of o200k_base or cl100k_base can cross, so the token count
 * of the whole equals the sum of the counts of the parts. That lets a cache recount only the
 * part an edit touched.
 *
 * Why the cut is safe: in both pre-tokeniser patterns the only pieces that contain a line break
 * are whitespace runs ending in the break (greedy, so they end at the last consecutive break)
 * and punctuation runs followed by `[\r\n/]*` (o200k) or `[\r\n]*`. A piece never continues
 * past a line break into a character that is neither whitespace nor '/'. So we cut after a run
 * of line breaks when the next character is such a character.
 *
 * Long lines (CJK text has no spaces) are also cut before sentence punctuation that follows a
 * letter: the only pieces holding letters are letter runs, which end at any character that is
 * not a letter, a mark or the apostrophe of a contraction. Cuts depend on the neighbouring
 * characters only, so an edit changes just the segment it falls in. Property-tested against tiktoken.
 */
export function splitAtSafeBoundaries(text: string): string[] {
  const segments: string[] = [];
  let start = 0;
  for (const cut of safeCuts(text, 0, text.length)) {
    segments.push(text.slice(start, cut));
    start = cut;
  }
  if (start < text.length) segments.push(text.slice(start));
  return segments;
}

/** Safe cut positions strictly between `from` and `to`. Each depends only on text[i-1] and text[i]. */
export function safeCuts(text: string, from: number, to: number): number[] {
  const cuts: number[] = [];
  for (let i = Math.max(1, from + 1); i < to; i++) {
    if (isSafeCut(text, i, text.charCodeAt(i))) cuts.push(i);
  }
  return cuts;
}

/** A letter as tiktoken's pattern has it (unicodeClasses.ts), compiled on first use. */
let letter: RegExp | undefined;

function isSafeCut(text: string, i: number, next: number): boolean {
  const previous = text.charCodeAt(i - 1);
  if (previous === 10 || previous === 13) {
    return !(next === 10 || next === 13 || next === 47 /* / */ || isWhitespace(next));
  }
  return isSentencePunctuation(next) && (letter ??= tiktokenRegExp(String.raw`\p{L}`)).test(text[i - 1]!);
}

function isSentencePunctuation(code: number): boolean {
  // . ! ? ; and their full-width forms 。！？；，
  return code === 46 || code === 33 || code === 63 || code === 59 || code === 0x3002 || code === 0xff01 || code === 0xff1f || code === 0xff1b || code === 0xff0c;
}

function isWhitespace(code: number): boolean {
  // \s in the pre-tokeniser: ASCII whitespace and the Unicode White_Space set.
  return (
    code === 32 || (code >= 9 && code <= 13) || code === 0x85 || code === 0xa0 || code === 0x1680 ||
    (code >= 0x2000 && code <= 0x200a) || code === 0x2028 || code === 0x2029 || code === 0x202f ||
    code === 0x205f || code === 0x3000 || code === 0xfeff
  );
}
