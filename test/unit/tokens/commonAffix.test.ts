import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { seeded } from '../../fixtures/propertySeed';
import { commonPrefixLength, commonSuffixLength } from '../../../src/core/tokens/commonAffix';

function naivePrefix(a: string, b: string): number {
  let i = 0;
  while (i < Math.min(a.length, b.length) && a[i] === b[i]) i++;
  return i;
}
function naiveSuffix(a: string, b: string, limit: number): number {
  let i = 0;
  while (i < limit && a[a.length - 1 - i] === b[b.length - 1 - i]) i++;
  return i;
}

describe('common prefix and suffix in chunks', () => {
  it('equal the character-by-character answer on edited texts of every size', () => {
    fc.assert(
      fc.property(fc.string({ unit: fc.constantFrom('a', 'b', '中', '\uD83D\uDE00'.charAt(0)), maxLength: 12_000 }), fc.nat(), fc.nat(), fc.string({ maxLength: 3 }), (text, at, cut, insert) => {
        const start = text.length === 0 ? 0 : at % (text.length + 1);
        const end = Math.min(text.length, start + (cut % 4));
        const edited = text.slice(0, start) + insert + text.slice(end);
        const prefix = commonPrefixLength(text, edited);
        expect(prefix).toBe(naivePrefix(text, edited));
        const limit = Math.min(text.length, edited.length) - prefix;
        expect(commonSuffixLength(text, edited, limit)).toBe(naiveSuffix(text, edited, limit));
      }),
      seeded(3000),
    );
  });
});
