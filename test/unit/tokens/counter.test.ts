import fc from 'fast-check';
import { get_encoding } from 'tiktoken';
import { describe, expect, it } from 'vitest';
import { seeded } from '../../fixtures/propertySeed';
import { TokenCounter } from '../../../src/core/tokens/counter';
import { loadEncoder } from '../../../src/core/tokens/engine';
import { chineseCorpus } from '../../fixtures/corpora.mjs';

const oracle = get_encoding('o200k_base');
const edit = fc.record({ at: fc.nat(), remove: fc.nat({ max: 6 }), insert: fc.constantFrom('', 'a', '\n', '\n\n', ' ', '。', '好', '. ', '/', 'x\ny', "'s") });

describe('TokenCounter.countVersion', () => {
  it('after any sequence of edits, equals a fresh count by tiktoken', async () => {
    const encoder = await loadEncoder('o200k_base');
    const base = chineseCorpus(3_000) + '\nThe homes assistant.\n  indented\n/slash\n';
    fc.assert(
      fc.property(fc.array(edit, { minLength: 1, maxLength: 12 }), (edits) => {
        const counter = new TokenCounter();
        let text = base;
        counter.countVersion(encoder, text, 'slot');
        for (const e of edits) {
          const at = e.at % (text.length + 1);
          text = text.slice(0, at) + e.insert + text.slice(at + e.remove);
          expect(counter.countVersion(encoder, text, 'slot')).toBe(oracle.encode_ordinary(text).length);
        }
      }),
      seeded(300),
    );
  });

  it('a one-character edit in a 200k-character text encodes only a few characters again', async () => {
    const encoder = await loadEncoder('o200k_base');
    const counter = new TokenCounter();
    const text = chineseCorpus(200_000);
    counter.countVersion(encoder, text, 'big');
    const before = counter.stats.charsEncoded;
    const edited = `${text.slice(0, 100_000)}房${text.slice(100_000)}`;
    expect(counter.countVersion(encoder, edited, 'big')).toBe(oracle.encode_ordinary(edited).length);
    expect(counter.stats.charsEncoded - before).toBeLessThan(500);
  });
});
