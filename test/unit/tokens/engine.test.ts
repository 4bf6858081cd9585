import fc from 'fast-check';
import { get_encoding, type Tiktoken } from 'tiktoken';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { seeded } from '../../fixtures/propertySeed';
import { loadEncoder, type TokenEncoder } from '../../../src/core/tokens/engine';
import type { EncodingName } from '../../../src/core/tokens/encodingNames';
import { splitAtSafeBoundaries } from '../../../src/core/tokens/segments';
import { chineseCorpus, codeCorpus, englishCorpus } from '../../fixtures/corpora.mjs';

// OpenAI's tiktoken (Rust, via WASM) is the oracle for every count.
const oracles = new Map<EncodingName, Tiktoken>();
const encoders = new Map<EncodingName, TokenEncoder>();
const NAMES: EncodingName[] = ['o200k_base', 'cl100k_base'];

beforeAll(async () => {
  for (const name of NAMES) {
    oracles.set(name, get_encoding(name));
    encoders.set(name, await loadEncoder(name));
  }
});
afterAll(() => oracles.forEach((o) => o.free()));

const oracleCount = (name: EncodingName, text: string) => oracles.get(name)!.encode_ordinary(text).length;

// Characters that stress the pre-tokeniser: line breaks, '/', apostrophes, marks, CJK, digits, emoji.
const TRICKY = ['\n', '\r', '\r\n', ' ', '  ', '\t', '/', "'s", "'", '.', '。', '，', '！', 'a', 'Z', 'é', 'e\u0301', '中', '文', '123', '😀', '<|endoftext|>', '\u00a0', '\u3000', 'Hello', ' world', '//', '—'];
const trickyText = fc.array(fc.constantFrom(...TRICKY), { maxLength: 60 }).map((parts) => parts.join(''));
const anyText = fc.oneof(trickyText, fc.string({ unit: 'grapheme', maxLength: 80 }), fc.string({ unit: 'binary', maxLength: 80 }));

describe.each(NAMES)('%s', (name) => {
  it.each([
    ['English', () => englishCorpus(60_000)],
    ['source code', () => codeCorpus(60_000)],
    ['Chinese', () => chineseCorpus(130_000)],
  ])('counts %s exactly as tiktoken does', (_label, corpus) => {
    const text = corpus();
    expect(encoders.get(name)!.count(text)).toBe(oracleCount(name, text));
    expect(encoders.get(name)!.encode(text)).toEqual([...oracles.get(name)!.encode_ordinary(text)]);
  });

  it('counts special-token strings as ordinary text, as the chat APIs do', () => {
    const text = 'Say <|endoftext|> and <|im_start|> literally.';
    expect(encoders.get(name)!.count(text)).toBe(oracleCount(name, text));
  });

  it('matches tiktoken on generated text, and splitting at safe boundaries never changes the count', () => {
    fc.assert(
      fc.property(anyText, (text) => {
        const whole = oracleCount(name, text);
        expect(encoders.get(name)!.count(text)).toBe(whole);
        const parts = splitAtSafeBoundaries(text);
        expect(parts.join('')).toBe(text);
        expect(parts.reduce((sum, part) => sum + oracleCount(name, part), 0)).toBe(whole);
      }),
      seeded(3000),
    );
  });

  it('encodes pure-ASCII text (its own fast pre-tokeniser) id-for-id like tiktoken', () => {
    const asciiTricky = fc.array(fc.constantFrom('\n', '\r', '\r\n', ' ', '  ', '\t', '/', "'s", "'LL", "'", '.', 'a', 'Z', 'Hello', ' world', 'ABCdef', '123', '12345', '//', '\u000b', '\f', '?!', ' \n '), { maxLength: 60 }).map((p) => p.join(''));
    fc.assert(
      fc.property(fc.oneof(asciiTricky, fc.string({ unit: fc.integer({ min: 0, max: 127 }).map((c) => String.fromCharCode(c)), maxLength: 80 })), (text) => {
        expect(encoders.get(name)!.encode(text)).toEqual([...oracles.get(name)!.encode_ordinary(text)]);
      }),
      seeded(5000),
    );
  });

  it('encodes CJK, Hangul, kana and astral text id-for-id like tiktoken (character-level merge start)', () => {
    const cjk = fc.array(
      fc.oneof(
        fc.integer({ min: 0x4e00, max: 0x9fff }),
        fc.integer({ min: 0x3040, max: 0x30ff }),
        fc.integer({ min: 0xac00, max: 0xd7a3 }),
        fc.integer({ min: 0x20000, max: 0x2a6df }),
        fc.constantFrom(0x3002, 0xff0c, 0x20, 0x61, 0x31, 0x0a),
      ),
      { maxLength: 40 },
    ).map((cps) => String.fromCodePoint(...cps));
    fc.assert(
      fc.property(cjk, (text) => {
        expect(encoders.get(name)!.encode(text)).toEqual([...oracles.get(name)!.encode_ordinary(text)]);
      }),
      seeded(3000),
    );
  });

  it('splits real corpora into segments whose counts add up to the whole', () => {
    for (const text of [chineseCorpus(40_000), englishCorpus(40_000), codeCorpus(40_000)]) {
      const parts = splitAtSafeBoundaries(text);
      expect(parts.length).toBeGreaterThan(20);
      expect(parts.reduce((sum, part) => sum + oracleCount(name, part), 0)).toBe(oracleCount(name, text));
    }
  });
});
