/** Our copies of the pre-tokeniser patterns are tiktoken's, as gpt-tokenizer ships them: same source, same flags. */
import { CL100K_TOKEN_SPLIT_REGEX, O200K_TOKEN_SPLIT_REGEX } from 'gpt-tokenizer/encodingParams/constants';
import { describe, expect, it } from 'vitest';
import { splitPatternSource } from '../../../src/core/tokens/splitPatterns';

describe('pre-tokeniser patterns', () => {
  it.each([
    ['o200k_base', O200K_TOKEN_SPLIT_REGEX],
    ['cl100k_base', CL100K_TOKEN_SPLIT_REGEX],
  ] as const)('%s equals gpt-tokenizer’s', (name, theirs) => {
    const ours = new RegExp(splitPatternSource(name), 'gu');
    expect(ours.source).toBe(theirs.source);
    expect(ours.flags).toBe(theirs.flags);
  });
});
