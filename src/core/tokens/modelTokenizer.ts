/**
 * A model's own tokenizer from its `tokenizer.json` (Hugging Face's format: Llama 3.x, Qwen 2.5/3,
 * Mistral, Gemma, DeepSeek), run by Hugging Face's `@huggingface/tokenizers` — chosen over
 * `@lenml/tokenizers` (same ids and speed; maintained by Hugging Face, no dependencies) and over converting the vocabulary for
 * our own merge (which serves only tiktoken-style byte-level BPE, not Gemma's or Mistral's
 * SentencePiece models); `npm run bench -- model-tokenizers` measures them side by side.
 */
import { Tokenizer } from '@huggingface/tokenizers';
import type { TokenEncoder } from './engine';
import { OffThreadTokenizer } from './offThreadTokenizer';
import { safeCuts } from './segments';
import { KNOWN_SPLITS, runPatternsInLinearTime, unboundedPatterns } from './tokenizerPatterns';

/** The model's chat template and the special-token values it reads (`bos_token`, `eos_token`, …). */
export interface ChatTemplate {
  template: string;
  /** Where it came from, for labels: "tokenizer_config.json", "chat_template.jinja", "the server's /props". */
  from: string;
  values: Record<string, string>;
}

export interface ModelTokenizer {
  /**
   * Counts text as the model's tokenizer does, in this thread; special-token text (`<|im_start|>`) is
   * one token, as servers parse it in a rendered chat. Absent when a pattern of tokenizer.json only
   * runs on the backtracking engine: then `offThread` counts, within a deadline.
   */
  encoder?: TokenEncoder;
  offThread?: OffThreadTokenizer;
  /** What the counts are labelled with, e.g. "tokenizer.json of Qwen3-8B". */
  label: string;
  chatTemplate?: ChatTemplate;
}

export class TokenizerFileError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'TokenizerFileError';
  }
}

/**
 * Builds the tokenizer from parsed `tokenizer.json` and `tokenizer_config.json`; throws
 * TokenizerFileError on what the library cannot read. Its patterns never run unbounded in this
 * thread (tokenizerPatterns.ts): RE2 runs them, or the tokenizer is built and counts in a worker.
 */
export function createModelTokenizer(tokenizerJson: unknown, config: Record<string, unknown>, label: string, key: string): Omit<ModelTokenizer, 'chatTemplate'> {
  if (!isRecord(tokenizerJson) || !isRecord(tokenizerJson.model)) throw new TokenizerFileError('tokenizer.json has no "model" section: is it a Hugging Face tokenizer.json?');
  const unbounded = unboundedPatterns(tokenizerJson);
  if (unbounded.length > 0) return { offThread: new OffThreadTokenizer({ tokenizerJson, config }, unbounded), label };
  runPatternsInLinearTime();
  let tokenizer: Tokenizer;
  try {
    tokenizer = new Tokenizer(tokenizerJson, config);
  } catch (error) {
    throw new TokenizerFileError(`the tokenizer library could not read tokenizer.json (${(error as Error).message})`);
  }
  const encode = (text: string): number[] => (text.length === 0 ? [] : tokenizer.encode(text, { add_special_tokens: false }).ids);
  const encoder: TokenEncoder = {
    name: key,
    segmentable: cutsAreSafe(tokenizerJson),
    count: (text) => encode(text).length,
    encode,
    clearCache: () => (tokenizer.model as unknown as { clear_cache?: () => void } | null)?.clear_cache?.(),
  };
  return { encoder, label };
}

/**
 * Under these pre-tokeniser patterns (tokenizerPatterns.ts: Qwen 2/2.5/3, Llama 3.x, DeepSeek V3) the
 * counter's cuts (segments.ts: after a line break before a letter-like character; before sentence
 * punctuation that follows a letter) never split a piece, property-tested against whole-text counts
 * on their real files. Any other tokenizer is counted a message at a time — exact, only without the segment cache.
 */
const SEGMENTABLE_SPLITS = KNOWN_SPLITS;

export function cutsAreSafe(json: Record<string, unknown>): boolean {
  const normalizer = json.normalizer as { type?: string; normalizers?: unknown[] } | null | undefined;
  const normalizerSafe =
    !normalizer || normalizer.type === 'NFC' || (normalizer.type === 'Sequence' && (normalizer.normalizers ?? []).every((n) => isRecord(n) && n.type === 'NFC'));
  const pre = json.pre_tokenizer as { type?: string; pretokenizers?: unknown[] } | null | undefined;
  const steps = pre?.type === 'Sequence' ? (pre.pretokenizers ?? []) : pre ? [pre] : [];
  const splits = steps.filter((s) => isRecord(s) && s.type === 'Split');
  const byteLevel = steps.filter((s) => isRecord(s) && s.type === 'ByteLevel');
  const stepsSafe =
    splits.length > 0 &&
    splits.length + byteLevel.length === steps.length &&
    splits.every((s) => isRecord(s) && s.behavior === 'Isolated' && s.invert !== true && isRecord(s.pattern) && SEGMENTABLE_SPLITS.has(String(s.pattern.Regex))) &&
    byteLevel.every((b) => isRecord(b) && b.add_prefix_space !== true && b.use_regex !== true);
  // An added token that strips the whitespace beside it, or holds a cut point itself, would join what a cut separates.
  const added = Array.isArray(json.added_tokens) ? json.added_tokens : [];
  const addedSafe = added.every((t) => isRecord(t) && t.lstrip !== true && t.rstrip !== true && typeof t.content === 'string' && safeCuts(t.content, 0, t.content.length).length === 0);
  return normalizerSafe && stepsSafe && addedSafe;
}

/** The special-token strings a chat template reads, from `tokenizer_config.json` (plain or `{content}` form). */
export function specialTokenValues(config: Record<string, unknown>): Record<string, string> {
  const values: Record<string, string> = {};
  for (const [key, value] of Object.entries(config)) {
    if (!key.endsWith('_token')) continue;
    const text = typeof value === 'string' ? value : isRecord(value) && typeof value.content === 'string' ? value.content : undefined;
    if (text !== undefined) values[key] = text;
  }
  return values;
}

/**
 * The template of `tokenizer_config.json`: a string, or a list of named templates (the one named
 * "default" is what `apply_chat_template` uses without tools).
 */
export function configChatTemplate(config: Record<string, unknown>): string | undefined {
  const value = config.chat_template;
  if (typeof value === 'string') return value;
  if (Array.isArray(value)) {
    const named = value.filter(isRecord).find((t) => t.name === 'default');
    return typeof named?.template === 'string' ? named.template : undefined;
  }
  return undefined;
}

export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
