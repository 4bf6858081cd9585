/**
 * The pre-tokeniser patterns of o200k_base and cl100k_base, as tiktoken publishes them (the same
 * text gpt-tokenizer ships; test/unit/tokens/splitPatterns.test.ts holds them equal). Kept here so a
 * process compiles only the one it uses: importing gpt-tokenizer's constants compiles all three of
 * its Unicode-class patterns at once (~2 ms each), on the language server's path to its first answer.
 */
import type { EncodingName } from './encodingNames';

const CONTRACTION = String.raw`'(?:[sS]|[dD]|[mM]|[tT]|[lL][lL]|[vV][eE]|[rR][eE])`;
const OPTIONAL_CONTRACTION = String.raw`(?:${CONTRACTION})?`;

export const CL100K_SPLIT_PATTERN = String.raw`${CONTRACTION}|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s+$|\s*[\r\n]|\s+(?!\S)|\s`;

export const O200K_SPLIT_PATTERN = String.raw`[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*[\p{Ll}\p{Lm}\p{Lo}\p{M}]+${OPTIONAL_CONTRACTION}|[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]+[\p{Ll}\p{Lm}\p{Lo}\p{M}]*${OPTIONAL_CONTRACTION}|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n/]*|\s*[\r\n]+|\s+(?!\S)|\s+`;

/** The pattern's source; tiktoken's flags are `gu` (bpe.ts compiles it, with Unicode White_Space, on first non-ASCII text). */
export function splitPatternSource(encoding: EncodingName): string {
  return encoding === 'o200k_base' ? O200K_SPLIT_PATTERN : CL100K_SPLIT_PATTERN;
}

/** Which encoding a split pattern source is (the long-piece scanner knows these two), or undefined. */
export function encodingOfSplitPattern(source: string): EncodingName | undefined {
  return source === O200K_SPLIT_PATTERN ? 'o200k_base' : source === CL100K_SPLIT_PATTERN ? 'cl100k_base' : undefined;
}
