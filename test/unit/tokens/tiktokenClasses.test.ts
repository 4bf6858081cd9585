/**
 * tiktoken's Unicode classes (16.0) where the regex engine's differ (Node 20.20: Unicode 17.0). Every
 * code point whose class differs between tiktoken and any engine from Unicode 15.0 to 17.0
 * (tiktokenClasses.ts) is counted in contexts that show each class the split patterns use — letter
 * runs, o200k's upper/lower-case runs, the one-character prefix, digit runs, contractions,
 * punctuation runs, marks — with ids equal to tiktoken's.
 */
import { get_encoding, type Tiktoken } from 'tiktoken';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadEncoder, type TokenEncoder } from '../../../src/core/tokens/engine';
import type { EncodingName } from '../../../src/core/tokens/encodingNames';
import { longPieceEnd } from '../../../src/core/tokens/longPieces';
import { splitAtSafeBoundaries } from '../../../src/core/tokens/segments';
import { TIKTOKEN_CLASS_DIFFERENCES } from '../../../src/core/tokens/tiktokenClasses';
import { splitPatternSource } from '../../../src/core/tokens/splitPatterns';
import { tiktokenRegExp, withTiktokenClasses } from '../../../src/core/tokens/unicodeClasses';
import { withUnicodeWhitespace } from '../../../src/core/tokens/unicodeWhitespace';

const NAMES: EncodingName[] = ['o200k_base', 'cl100k_base'];
const oracles = new Map<EncodingName, Tiktoken>();
const encoders = new Map<EncodingName, TokenEncoder>();
beforeAll(async () => {
  for (const name of NAMES) {
    oracles.set(name, get_encoding(name));
    encoders.set(name, await loadEncoder(name));
  }
});
afterAll(() => oracles.forEach((o) => o.free()));

/** Every code point the class lists name. */
function listedCodePoints(): number[] {
  const set = new Set<number>();
  for (const { excluded, included } of Object.values(TIKTOKEN_CLASS_DIFFERENCES)) {
    for (const [, from, to] of `${excluded}${included}`.matchAll(/\\u\{([0-9a-f]+)\}(?:-\\u\{([0-9a-f]+)\})?/g)) {
      for (let c = Number.parseInt(from!, 16); c <= Number.parseInt(to ?? from!, 16); c++) set.add(c);
    }
  }
  return [...set].sort((a, b) => a - b);
}

const contexts = (x: string) => [`a${x}b`, `A${x}a`, `${x}A`, `\u0000${x}ე`, `1${x}23`, `${x}'s`, ` ${x}.`, `.${x}`, `${x}${x}x`, `é${x}\u0301`, `${x}\u0301'S`];
const hex = (c: number) => `U+${c.toString(16).toUpperCase()}`;

describe("tiktoken's Unicode classes", () => {
  it('the input a fresh-clone CI found: "\\u0000\\u{32556}ე" (CJK Extension J, Unicode 17) is 6 tokens in o200k_base, as in tiktoken', () => {
    for (const name of NAMES) {
      const expected = [...oracles.get(name)!.encode_ordinary('\u0000\u{32556}ე')];
      if (name === 'o200k_base') expect(expected).toHaveLength(6);
      expect(encoders.get(name)!.encode('\u0000\u{32556}ე'), name).toEqual(expected);
      expect(encoders.get(name)!.count('\u0000\u{32556}ე'), name).toBe(expected.length);
    }
  });

  it('every code point whose class differs is split and merged as tiktoken does, in every context', () => {
    const codePoints = listedCodePoints();
    expect(codePoints.length).toBeGreaterThan(4000); // 17.0's and 16.0's new letters, marks and digits
    for (const name of NAMES) {
      const encoder = encoders.get(name)!;
      const oracle = oracles.get(name)!;
      const differing: string[] = [];
      for (const c of codePoints) {
        for (const text of contexts(String.fromCodePoint(c))) {
          if (encoder.encode(text).join() !== oracle.encode_ordinary(text).join()) {
            differing.push(`${hex(c)} in ${JSON.stringify(text)}`);
            break;
          }
        }
      }
      expect(differing, name).toEqual([]);
    }
  });

  it('the long-piece scanner and the safe cuts use the same classes', () => {
    for (const name of NAMES) {
      // A run of Extension J ideographs is punctuation to tiktoken: the prefix, then a piece of its own.
      const text = `x\u{32556}\u{32557}\u{32558}. Garay\u{10d50}\u{10d70}s`;
      const ends: number[] = [];
      for (let start = 0; start < text.length; ) ends.push((start = longPieceEnd(name, text, start)));
      const pattern = new RegExp(withTiktokenClasses(withUnicodeWhitespace(splitPatternSource(name))), 'gv');
      expect(ends, name).toEqual([...text.matchAll(pattern)].map((m) => m.index + m[0].length));
      expect(encoders.get(name)!.count(text)).toBe(oracles.get(name)!.encode_ordinary(text).length);
    }
    // A sentence end after a character that is a letter only to newer Unicode is no safe cut.
    expect(splitAtSafeBoundaries('\u0c5c.x\u0c5c.')).toEqual(['\u0c5c.x\u0c5c.']);
    expect(splitAtSafeBoundaries('a.b')).toEqual(['a', '.b']);
  });

  it('class expressions: a newer letter is no letter, an older one is', () => {
    expect(tiktokenRegExp(String.raw`\p{L}`).test('\u{32556}')).toBe(false);
    expect(tiktokenRegExp(String.raw`\p{L}`).test('中')).toBe(true);
    expect(tiktokenRegExp(String.raw`\p{Ll}`).test('\u0295')).toBe(true); // Ll in 16.0, Lo since 17.0
    expect(tiktokenRegExp(String.raw`\p{Lo}`).test('\u0295')).toBe(false);
    expect(tiktokenRegExp(String.raw`[^\r\n/\p{L}]`).test('/')).toBe(false);
  });
});
