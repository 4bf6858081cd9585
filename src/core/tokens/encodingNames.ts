/** The tiktoken encodings the engine counts with; every tokenizer file names them from here. */
export type EncodingName = 'o200k_base' | 'cl100k_base';

export const ENCODINGS: readonly EncodingName[] = ['o200k_base', 'cl100k_base'];

export function isEncodingName(value: string): value is EncodingName {
  return (ENCODINGS as readonly string[]).includes(value);
}
