/** The ideograph fast path cuts exactly the pieces the pre-tokeniser regexes cut. */
import fc from 'fast-check';
import { CL100K_TOKEN_SPLIT_REGEX, O200K_TOKEN_SPLIT_REGEX } from 'gpt-tokenizer/encodingParams/constants';
import { describe, expect, it } from 'vitest';
import { seeded } from '../../fixtures/propertySeed';
import { ideographPieceEnd } from '../../../src/core/tokens/ideographRuns';

function regexPieces(pattern: RegExp, text: string): string[] {
  return text.match(new RegExp(pattern.source, 'gu')) ?? [];
}

function fastPieces(pattern: RegExp, text: string): string[] {
  const re = new RegExp(pattern.source, 'gu');
  const out: string[] = [];
  let start = 0;
  while (start < text.length) {
    let end = ideographPieceEnd(text, start);
    if (end < 0) {
      re.lastIndex = start;
      if (!re.test(text)) break;
      end = re.lastIndex;
    }
    out.push(text.slice(start, end));
    start = end;
  }
  return out;
}

const ALPHABET = [...'中文的是在不了有和人这我们家住房子', ' ', '\n', '\r', '\t', "'", 's', 'S', 'A', 'z', '1', '23', '，', '。', '、', '「', '」', '！', '（', '）', '—', '…', '々', '〇', 'の', 'ア', 'ー', 'é', '\u0301', '\u3000', '😀', '-', '.', '/', '#', '“', '”', '\uFF0C', '\uFF11', '\uFF21', '\u4DB5', '\u9FEF', '\u9FF0', '\u3400'];

describe('ideograph fast path of the pre-tokeniser', () => {
  for (const [name, pattern] of [['o200k_base', O200K_TOKEN_SPLIT_REGEX], ['cl100k_base', CL100K_TOKEN_SPLIT_REGEX]] as const) {
    it(`${name}: same pieces as the regex on 20,000 generated strings`, () => {
      fc.assert(
        fc.property(fc.array(fc.constantFrom(...ALPHABET), { maxLength: 40 }), (chars) => {
          const text = chars.join('');
          expect(fastPieces(pattern, text)).toEqual(regexPieces(pattern, text));
        }),
        seeded(20_000),
      );
    });
  }
});
