/**
 * The pre-tokeniser for pieces too long for the regex engine. V8's irregexp keeps one backtrack
 * entry per character a Unicode-class loop consumes, in a stack of 64 MB: a single piece of about
 * 4.19 M code units (a run of Thai letters and marks, of punctuation, of ideographic spaces — any
 * class with astral members) throws "Maximum call stack size exceeded". tiktoken (Rust) has no such
 * limit, so those pieces must still come out whole, with the same ends.
 *
 * This is the split pattern of o200k_base and cl100k_base (splitPatterns.ts) written out as scans,
 * alternative by alternative, in the order and with the backtracking the regex would do — no
 * recursion, no backtrack stack. It is slower than the regex (a class lookup per code point), so
 * bpe.ts calls it only when the regex throws; test/unit/tokens/longPieces.test.ts holds it equal
 * to the regex at every piece start of random texts, and to tiktoken on a large Thai text.
 */
import type { EncodingName } from './encodingNames';
import { tiktokenRegExp } from './unicodeClasses';
import { withUnicodeWhitespace } from './unicodeWhitespace';

const L = 1;
const LU = 2;
const LT = 4;
const LL = 8;
const LM = 16;
const LO = 32;
const M = 64;
const N = 128;
const WS = 256;
const COMPUTED = 1 << 15;

/** `[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]` and `[\p{Ll}\p{Lm}\p{Lo}\p{M}]`: o200k's upper-ish and lower-ish letter classes. */
const UPPERISH = LU | LT | LM | LO | M;
const LOWERISH = LL | LM | LO | M;

/** The classes as tiktoken has them (unicodeClasses.ts), compiled on the first long piece. */
const CLASS_SOURCES: [number, string][] = [
  [L, String.raw`\p{L}`],
  [LU, String.raw`\p{Lu}`],
  [LT, String.raw`\p{Lt}`],
  [LL, String.raw`\p{Ll}`],
  [LM, String.raw`\p{Lm}`],
  [LO, String.raw`\p{Lo}`],
  [M, String.raw`\p{M}`],
  [N, String.raw`\p{N}`],
];
let classTests: [number, RegExp][] | undefined;

let bmpFlags: Uint16Array | undefined;
const astralFlags = new Map<number, number>();
let whiteSpace: RegExp | undefined;

function computeFlags(cp: number): number {
  const ch = cp > 0xffff ? String.fromCodePoint(cp) : String.fromCharCode(cp);
  let flags = COMPUTED;
  for (const [flag, test] of (classTests ??= CLASS_SOURCES.map(([f, source]) => [f, tiktokenRegExp(source)]))) if (test.test(ch)) flags |= flag;
  if ((whiteSpace ??= new RegExp(withUnicodeWhitespace('\\s'), 'u')).test(ch)) flags |= WS;
  return flags;
}

/** The classes of one code point, computed with the regex engine itself on first sight. */
function flagsOf(cp: number): number {
  if (cp > 0xffff) {
    let flags = astralFlags.get(cp);
    if (flags === undefined) astralFlags.set(cp, (flags = computeFlags(cp)));
    return flags;
  }
  const table = (bmpFlags ??= new Uint16Array(0x10000));
  let flags = table[cp]!;
  if (flags === 0) table[cp] = flags = computeFlags(cp);
  return flags;
}

/** Code units of the code point at `i` (a lone surrogate is one, as with the `u` flag). */
function widthAt(text: string, i: number): number {
  return text.codePointAt(i)! > 0xffff ? 2 : 1;
}

/** Start of the code point that ends at `i`. */
function previousStart(text: string, i: number): number {
  const low = text.charCodeAt(i - 1);
  if (i >= 2 && low >= 0xdc00 && low <= 0xdfff) {
    const high = text.charCodeAt(i - 2);
    if (high >= 0xd800 && high <= 0xdbff) return i - 2;
  }
  return i - 1;
}

type Test = (flags: number, cp: number) => boolean;

/** First position at or after `i` whose code point fails `test` (text.length when none does). */
function runEnd(text: string, i: number, test: Test): number {
  while (i < text.length) {
    const cp = text.codePointAt(i)!;
    if (!test(flagsOf(cp), cp)) return i;
    i += cp > 0xffff ? 2 : 1;
  }
  return i;
}

/** First position in [from, to) whose code point passes `test`, or -1. */
function firstIn(text: string, from: number, to: number, test: Test): number {
  for (let i = from; i < to; ) {
    const cp = text.codePointAt(i)!;
    if (test(flagsOf(cp), cp)) return i;
    i += cp > 0xffff ? 2 : 1;
  }
  return -1;
}

/** Last position in [from, to) whose code point passes `test`, or -1 (the order a greedy loop gives back in). */
function lastIn(text: string, from: number, to: number, test: Test): number {
  for (let i = to; i > from; ) {
    i = previousStart(text, i);
    const cp = text.codePointAt(i)!;
    if (test(flagsOf(cp), cp)) return i;
  }
  return -1;
}

const CR = 0x0d;
const LF = 0x0a;
const isLetter: Test = (f) => (f & L) !== 0;
const isLetterOrMark: Test = (f) => (f & (L | M)) !== 0;
const isUpperish: Test = (f) => (f & UPPERISH) !== 0;
const isLowerish: Test = (f) => (f & LOWERISH) !== 0;
const isLowercase: Test = (f) => (f & LL) !== 0;
const isDigit: Test = (f) => (f & N) !== 0;
const isSpace: Test = (f) => (f & WS) !== 0;
const isNewline: Test = (_, cp) => cp === CR || cp === LF;
/** `[^\r\n\p{L}\p{N}]`: the one character a letter piece may start with. */
const isPrefix: Test = (f, cp) => cp !== CR && cp !== LF && (f & (L | N)) === 0;
/** `[^\s\p{L}\p{N}]`: punctuation and symbols. */
const isPunctuation: Test = (f) => (f & (WS | L | N)) === 0;
const isNewlineOrSlash: Test = (_, cp) => cp === CR || cp === LF || cp === 0x2f;

/** Length of `'(?:[sS]|[dD]|[mM]|[tT]|[lL][lL]|[vV][eE]|[rR][eE])` at `i`, or 0 (`| 0x20` lowers exactly the ASCII letters compared). */
function contractionAt(text: string, i: number): number {
  if (text.charCodeAt(i) !== 0x27) return 0;
  const a = text.charCodeAt(i + 1) | 0x20;
  const b = text.charCodeAt(i + 2) | 0x20;
  if (a === 0x73 || a === 0x64 || a === 0x6d || a === 0x74) return 2; // s d m t
  if ((a === 0x6c && b === 0x6c) || (a === 0x76 && b === 0x65) || (a === 0x72 && b === 0x65)) return 3; // ll ve re
  return 0;
}

/** `\p{N}{1,3}` at `s`. */
function digitsEnd(text: string, s: number): number {
  let i = s;
  for (let n = 0; n < 3 && i < text.length; n++) {
    const cp = text.codePointAt(i)!;
    if (!isDigit(flagsOf(cp), cp)) break;
    i += cp > 0xffff ? 2 : 1;
  }
  return i;
}

/** `[ltr]*[lower]+` from `i` (o200k's first letter alternative, without prefix and contraction): its end, or -1. */
function upperThenLowerEnd(text: string, i: number): number {
  const run = runEnd(text, i, isLetterOrMark);
  if (run === i) return -1;
  // The upper-ish loop stops at the first lowercase letter (the only letter-or-mark it refuses); the lower-ish loop runs from there.
  const lower = firstIn(text, i, run, isLowercase);
  if (lower >= 0) return runEnd(text, lower, isLowerish);
  // No lowercase: the upper-ish loop took the whole run and gives it back one code point at a
  // time until the lower-ish loop can take one (every later code point is Lu/Lt, not lower-ish).
  const last = lastIn(text, i, run, isLowerish);
  return last < 0 ? -1 : last + widthAt(text, last);
}

/** `[upper]+[lower]*` from `i` (o200k's second letter alternative): its end, or -1. */
function upperRunEnd(text: string, i: number): number {
  const upper = runEnd(text, i, isUpperish);
  return upper === i ? -1 : runEnd(text, upper, isLowerish);
}

/** ` ?[^\s\p{L}\p{N}]+` then a run of `tail` (`[\r\n/]*` or `[\r\n]*`): its end, or -1. */
function punctuationEnd(text: string, s: number, tail: Test): number {
  if (text.charCodeAt(s) === 0x20) {
    const end = runEnd(text, s + 1, isPunctuation);
    if (end > s + 1) return runEnd(text, end, tail);
  }
  const end = runEnd(text, s, isPunctuation);
  return end > s ? runEnd(text, end, tail) : -1;
}

/** A letter alternative `P?X` tried with the prefix, then without it (the optional prefix is greedy). */
function withPrefix(text: string, s: number, body: (text: string, i: number) => number): number {
  const cp = text.codePointAt(s)!;
  if (isPrefix(flagsOf(cp), cp)) {
    const end = body(text, s + (cp > 0xffff ? 2 : 1));
    if (end >= 0) return end;
  }
  return body(text, s);
}

function o200kPieceEnd(text: string, s: number): number {
  for (const body of [upperThenLowerEnd, upperRunEnd]) {
    const end = withPrefix(text, s, body);
    if (end >= 0) return end + contractionAt(text, end);
  }
  const digits = digitsEnd(text, s);
  if (digits > s) return digits;
  const punctuation = punctuationEnd(text, s, isNewlineOrSlash);
  if (punctuation >= 0) return punctuation;
  const spaces = runEnd(text, s, isSpace);
  if (spaces === s) return -1;
  // \s*[\r\n]+ — the space loop gives back until a newline follows; the newline loop then takes only that one.
  const newline = lastIn(text, s, spaces, isNewline);
  if (newline >= 0) return newline + 1;
  return trailingSpacesEnd(text, s, spaces);
}

function cl100kPieceEnd(text: string, s: number): number {
  const contraction = contractionAt(text, s);
  if (contraction > 0) return s + contraction;
  const letters = withPrefix(text, s, (t, i) => {
    const end = runEnd(t, i, isLetter);
    return end > i ? end : -1;
  });
  if (letters >= 0) return letters;
  const digits = digitsEnd(text, s);
  if (digits > s) return digits;
  const punctuation = punctuationEnd(text, s, isNewline);
  if (punctuation >= 0) return punctuation;
  const spaces = runEnd(text, s, isSpace);
  if (spaces === s) return -1;
  if (spaces === text.length) return spaces; // \s+$
  const newline = lastIn(text, s, spaces, isNewline); // \s*[\r\n]
  if (newline >= 0) return newline + 1;
  return trailingSpacesEnd(text, s, spaces);
}

/**
 * `\s+(?!\S)` then `\s+` (cl100k: `\s`) on the run of spaces [s, spaces): a run that a non-space
 * follows gives its last code point to the next piece, unless it is that one code point alone.
 */
function trailingSpacesEnd(text: string, s: number, spaces: number): number {
  if (spaces === text.length) return spaces;
  const before = previousStart(text, spaces);
  return before > s ? before : spaces;
}

/** End of the piece that starts at `start` under the encoding's split pattern, or -1 past the text. */
export function longPieceEnd(encoding: EncodingName, text: string, start: number): number {
  if (start >= text.length) return -1;
  return encoding === 'o200k_base' ? o200kPieceEnd(text, start) : cl100kPieceEnd(text, start);
}
