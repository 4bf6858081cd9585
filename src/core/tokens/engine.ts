/**
 * The one place that knows which BPE implementation counts tokens.
 *
 * The design card names js-tiktoken; measured here it is 0.07 MB/s on Chinese text (its merge is
 * quadratic in the length of a pre-tokenised piece), far below the hover bar. gpt-tokenizer gives
 * the same ids as OpenAI's tiktoken (tested against it as the oracle) at > 10 MB/s on every corpus,
 * so it is the engine; `npm run bench` measures all of them side by side. Swapping engines means
 * changing this file only.
 */
export type EncodingName = 'o200k_base' | 'cl100k_base';

export const ENCODINGS: readonly EncodingName[] = ['o200k_base', 'cl100k_base'];

export interface TokenEncoder {
  readonly name: EncodingName;
  /** Token count of `text` encoded as ordinary text: `<|endoftext|>` in a prompt is text, not a control token. */
  count(text: string): number;
  encode(text: string): number[];
}

// An empty disallow-list makes special-token strings count as the ordinary text they are.
const AS_ORDINARY_TEXT = { disallowedSpecial: new Set<string>() };

const loading = new Map<EncodingName, Promise<TokenEncoder>>();
const loaded = new Map<EncodingName, TokenEncoder>();

/** Loads an encoding once (its rank table takes ~0.1–0.2 s to build); later calls share it. */
export function loadEncoder(name: EncodingName): Promise<TokenEncoder> {
  let promise = loading.get(name);
  if (!promise) {
    promise = importEncoding(name).then((api) => {
      const encoder: TokenEncoder = {
        name,
        count: (text) => (text.length === 0 ? 0 : api.countTokens(text, AS_ORDINARY_TEXT)),
        encode: (text) => api.encode(text, AS_ORDINARY_TEXT),
      };
      loaded.set(name, encoder);
      return encoder;
    });
    loading.set(name, promise);
  }
  return promise;
}

/** The encoder if it has finished loading, for synchronous paths (hover) that must not wait. */
export function loadedEncoder(name: EncodingName): TokenEncoder | undefined {
  return loaded.get(name);
}

interface EncodingApi {
  countTokens(text: string, options: typeof AS_ORDINARY_TEXT): number;
  encode(text: string, options: typeof AS_ORDINARY_TEXT): number[];
}

async function importEncoding(name: EncodingName): Promise<EncodingApi> {
  // Static specifiers so the bundler includes both tables; each is evaluated only when first asked for.
  switch (name) {
    case 'o200k_base':
      return (await import('gpt-tokenizer/encoding/o200k_base')).default;
    case 'cl100k_base':
      return (await import('gpt-tokenizer/encoding/cl100k_base')).default;
  }
}

export function isEncodingName(value: string): value is EncodingName {
  return (ENCODINGS as readonly string[]).includes(value);
}
