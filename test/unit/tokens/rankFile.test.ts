/** The binary rank file: what the build writes is what the engine reads, and the boundary index in it really cuts. */
import o200kList from 'gpt-tokenizer/bpeRanks/o200k_base';
import cl100kList from 'gpt-tokenizer/bpeRanks/cl100k_base';
import { describe, expect, it } from 'vitest';
import { decodeRankFile, encodeRankFile } from '../../../src/core/tokens/rankFile';
import { rankFileInMemory } from '../../../src/core/tokens/rankFileReaders';
import { WasmBpe } from '../../../src/core/tokens/wasmBpe';
import { chineseCorpus } from '../../fixtures/corpora.mjs';

const lists = { o200k_base: o200kList, cl100k_base: cl100kList } as const;

describe('rank file', () => {
  for (const [name, list] of Object.entries(lists)) {
    it(`${name}: every token's bytes come back under its id, and no other byte string has an id`, async () => {
      const file = encodeRankFile(list);
      expect(decodeRankFile(file).count).toBe(list.length);
      const merge = await WasmBpe.create(rankFileInMemory(file));
      const encoder = new TextEncoder();
      for (let id = 0; id < list.length; id += 97) {
        const value = list[id]!;
        const bytes = typeof value === 'string' ? encoder.encode(value) : Uint8Array.from(value);
        expect(merge.rankOfBytes(bytes)).toBe(id);
      }
      expect(merge.rankOfText('definitely-not-a-single-token')).toBe(-1);
    });
  }

  it('o200k_base: the stored boundary index cuts most boundaries inside Chinese text and never one that a token spans', async () => {
    const cuts = await WasmBpe.create(rankFileInMemory(encodeRankFile(o200kList)));
    expect(cuts.spanBitCount()).toBeGreaterThan(10_000);
    const text = [...chineseCorpus(5_000)].filter((c) => /\p{Script=Han}/u.test(c));
    let cut = 0;
    for (let i = 1; i < text.length; i++) if (cuts.isCut(text[i - 1]!.codePointAt(0)!, text[i]!.codePointAt(0)!)) cut++;
    expect(cut / (text.length - 1)).toBeGreaterThan(0.5);
    // 中国 is one o200k token: the boundary inside it must never be a cut.
    expect(cuts.rankOfText('中国')).not.toBe(-1);
    expect(cuts.isCut(0x4e2d, 0x56fd)).toBe(false);
  });

  it('a truncated file, another version or a wrong magic is refused with a clear error', () => {
    const file = encodeRankFile(cl100kList);
    expect(() => decodeRankFile(file.subarray(0, file.length - 1))).toThrow(/truncated/);
    const otherVersion = file.slice();
    otherVersion[4] = 2;
    expect(() => decodeRankFile(otherVersion)).toThrow(/another version/);
    expect(() => decodeRankFile(new Uint8Array(8))).toThrow(/not a Prompt Insight rank file/);
  });
});
