/**
 * Long pre-tokenised pieces (the merge's worst case): ids equal to tiktoken's on adversarial
 * generators, on both sides of the length where the heap merge takes over (assembly/heapMerge.ts).
 */
import fc from 'fast-check';
import { get_encoding, type Tiktoken } from 'tiktoken';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { seeded } from '../../fixtures/propertySeed';
import o200kList from 'gpt-tokenizer/bpeRanks/o200k_base';
import { asciiSplitPattern } from '../../../src/core/tokens/asciiPatterns';
import { BpeEncoder, buildRankTable } from '../../../src/core/tokens/bpe';
import { loadEncoder, type TokenEncoder } from '../../../src/core/tokens/engine';
import type { EncodingName } from '../../../src/core/tokens/encodingNames';
import { encodeRankFile } from '../../../src/core/tokens/rankFile';
import { rankFileInMemory } from '../../../src/core/tokens/rankFileReaders';
import { splitPatternSource } from '../../../src/core/tokens/splitPatterns';
import { MEMORY_CEILING_BYTES, WasmBpe } from '../../../src/core/tokens/wasmBpe';

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

const length = fc.integer({ min: 1, max: 3000 });
const letter = fc.constantFrom('A', 'a', 'z', 'é', 'ß', 'я', 'ع');
const repeatOf = (unit: fc.Arbitrary<string>) => fc.tuple(unit, length).map(([u, n]) => u.repeat(Math.ceil(n / u.length)).slice(0, Math.max(n, u.length)));
const GENERATORS: [string, fc.Arbitrary<string>][] = [
  ['single-letter runs', repeatOf(letter)],
  ['two-letter alternations', repeatOf(fc.tuple(letter, letter).map(([a, b]) => a + b))],
  ['punctuation runs', repeatOf(fc.constantFrom('.', '-', '=', '*', '!?', '…', '。'))],
  ['long digit runs', fc.tuple(fc.constantFrom('7', '0', '12', '987'), length).map(([d, n]) => d.repeat(n))],
  ['CJK runs', fc.tuple(fc.array(fc.integer({ min: 0x4e00, max: 0x9fff }), { minLength: 1, maxLength: 6 }), length).map(([codes, n]) => String.fromCharCode(...codes).repeat(Math.ceil(n / codes.length)))],
  ['random bytes as Latin-1', fc.uint8Array({ minLength: 200, maxLength: 3000 }).map((bytes) => Buffer.from(bytes).toString('latin1'))],
  ['random code points', fc.string({ unit: 'binary', minLength: 200, maxLength: 2000 })],
  ['mixed scripts without spaces', fc.array(fc.constantFrom('abc', 'ДЕЖ', '中文', 'αβγ', '😀', 'xyz', 'é'), { minLength: 50, maxLength: 800 }).map((parts) => parts.join(''))],
];

describe.each(NAMES)('%s: long pieces', (name) => {
  it.each(GENERATORS)('%s: ids identical to tiktoken', (_label, generator) => {
    fc.assert(
      fc.property(generator, (text) => {
        const expected = [...oracles.get(name)!.encode_ordinary(text)];
        expect(encoders.get(name)!.encode(text)).toEqual(expected);
        encoders.get(name)!.clearCache();
        expect(encoders.get(name)!.count(text)).toBe(expected.length);
      }),
      seeded(40),
    );
  });

  it("whitespace is Unicode's White_Space as in tiktoken's regex engine: U+0085 is, U+FEFF is not", () => {
    for (const text of ['\u0085:d', 'Y\u0010\u0085:d\f', 'a\ufeffb', ' \ufeff x', 'x\u0085\u0085 y', '\u0085\n\u0085end']) {
      expect(encoders.get(name)!.encode(text), JSON.stringify(text)).toEqual([...oracles.get(name)!.encode_ordinary(text)]);
    }
  });

  it('one piece of 200,000 characters is counted (the scan merge took 111 s for this)', () => {
    const encoder = encoders.get(name)!;
    encoder.clearCache();
    // 'A' × 200k is one piece: 25,000 tokens of 'AAAAAAAA' in o200k_base (8 A's per token), the same rule in cl100k_base.
    const count = encoder.count('A'.repeat(200_000));
    const reference = oracles.get(name)!.encode_ordinary('A'.repeat(2_000)).length * 100;
    expect(count).toBe(reference);
  });
});

describe('the merge’s memory', () => {
  it('a piece of 2,000,000 characters grows it past the ceiling; the module is rebuilt, the count exact, and later counts the same', async () => {
    const table = await buildRankTable(rankFileInMemory(encodeRankFile(o200kList)), splitPatternSource('o200k_base'), asciiSplitPattern('o200k_base'));
    const encoder = new BpeEncoder(table);
    const small = encoder.count('Find homes nearby.');
    const expected = oracles.get('o200k_base')!.encode_ordinary('A'.repeat(2_000)).length * 1_000;
    expect(encoder.count('A'.repeat(2_000_000))).toBe(expected);
    expect(table.merge.rebuilds).toBe(1);
    expect(table.merge.memoryBytes()).toBeLessThanOrEqual(MEMORY_CEILING_BYTES);
    expect(encoder.count('Find homes nearby.')).toBe(small);
    expect(encoder.count('A'.repeat(20_000))).toBe(expected / 100);
  });

  it('a rank file whose span index never ends a number is refused with a clear error', async () => {
    const file = encodeRankFile(o200kList);
    const spanBytes = new DataView(file.buffer, file.byteOffset).getUint32(16, true);
    const corrupt = file.slice();
    corrupt.fill(0xff, 20, 20 + spanBytes);
    await expect(WasmBpe.create(rankFileInMemory(corrupt))).rejects.toThrow(/span index is corrupt/);
  });
});
