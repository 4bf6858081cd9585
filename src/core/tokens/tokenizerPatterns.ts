/**
 * Where the regular expressions of a `tokenizer.json` run. They come from a downloaded or committed
 * file, and the tokenizer library runs them on JavaScript's backtracking engine, where a pattern
 * such as `(a|aa)+$` takes longer than the age of the universe on a line of 60 a's. So each
 * normalizer and pre-tokenizer pattern is one of:
 *  - `native`: a literal string, or a real model's pattern known to take linear time there (below);
 *  - `linear`: run by RE2 (linearPattern.ts) in this thread — the library's own RegExp is swapped
 *    for the stand-in before its first use;
 *  - `unbounded`: anything RE2 cannot express (lookahead, back-references): then the whole
 *    tokenizer is built and counts in a worker stopped at a deadline (offThreadTokenizer.ts), never here.
 */
import { ReplaceNormalizer, ReplacePreTokenizer, SplitPreTokenizer } from '@huggingface/tokenizers';
import { linearPattern } from './linearPattern';

/**
 * The Split patterns of Qwen 2/2.5/3, Llama 3.x and DeepSeek V3: their lookahead (`\s+(?!\S)`) needs
 * the backtracking engine, and each alternative is one loop tried once per position, the shape of
 * the o200k/cl100k patterns every prompt is counted with (splitPatterns.ts). The counter may also
 * cut text under them (modelTokenizer.ts), property-tested on the real files.
 */
export const KNOWN_SPLITS = new Set([
  String.raw`(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+`,
  String.raw`(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+`,
  String.raw`\p{N}{1,3}`,
  '[\u4e00-\u9fa5\u3040-\u309f\u30a0-\u30ff]+',
  String.raw`[!"#$%&'()*+,\-./:;<=>?@\[\\\]^_` + '`' + String.raw`{|}~][A-Za-z]+|[^` + '\r\n' + String.raw`\p{L}\p{P}\p{S}]?[\p{L}\p{M}]+| ?[\p{P}\p{S}]+[` + '\r\n' + String.raw`]*|\s*[` + '\r\n' + String.raw`]+|\s+(?!\S)|\s+`,
]);

interface PatternConfig {
  pattern?: { Regex?: unknown; String?: unknown };
  content?: unknown;
}

/** A pattern of tokenizer.json that only the backtracking engine can run, as written there. */
export interface UnboundedPattern {
  step: 'normalizer' | 'pre-tokenizer';
  regex: string;
}

/** The patterns that only the backtracking engine can run; empty when every one is bounded in this thread. */
export function unboundedPatterns(tokenizerJson: Record<string, unknown>): UnboundedPattern[] {
  const steps = [
    ...patternSteps(tokenizerJson.normalizer, 'normalizers').map((config) => ({ step: 'normalizer' as const, config })),
    ...patternSteps(tokenizerJson.pre_tokenizer, 'pretokenizers').map((config) => ({ step: 'pre-tokenizer' as const, config })),
  ];
  return steps.filter(({ config }) => engineOf(config) === 'unbounded').map(({ step, config }) => ({ step, regex: String(config.pattern?.Regex) }));
}

/** The steps that carry a pattern (Replace, Split), through Sequences. */
function patternSteps(step: unknown, listKey: 'normalizers' | 'pretokenizers', depth = 0): PatternConfig[] {
  if (typeof step !== 'object' || step === null || depth > 32) return [];
  const { type } = step as { type?: unknown };
  if (type === 'Sequence') {
    const list = (step as Record<string, unknown>)[listKey];
    return Array.isArray(list) ? list.flatMap((s) => patternSteps(s, listKey, depth + 1)) : [];
  }
  return type === 'Replace' || type === 'Split' ? [step as PatternConfig] : [];
}

type Engine = 'native' | 'linear' | 'unbounded';

const engines = new Map<string, Engine>();

function engineOf(step: PatternConfig): Engine {
  const regex = step.pattern?.Regex;
  if (typeof regex !== 'string' || KNOWN_SPLITS.has(regex)) return 'native'; // a literal, or a pattern the library refuses itself
  // A replacement with `$` patterns is left to the RegExp that understands them.
  if (typeof step.content === 'string' && step.content.includes('$')) return 'unbounded';
  let engine = engines.get(regex);
  if (engine === undefined) {
    const source = librarySource(regex);
    engine = source === undefined ? 'native' : linearPattern(source) ? 'linear' : 'unbounded';
    engines.set(regex, engine);
  }
  return engine;
}

/** The JavaScript source the library compiles a pattern to (its Oniguruma translation); undefined when it cannot. */
function librarySource(regex: string): string | undefined {
  try {
    return new SplitPreTokenizer({ type: 'Split', pattern: { Regex: regex }, behavior: 'Isolated', invert: false }).pattern?.source;
  } catch {
    return undefined;
  }
}

let installed = false;

/**
 * Makes the library run every `linear` pattern on RE2: each Replace and Split step swaps its RegExp
 * for the stand-in on first use (the normalizer first runs inside the Tokenizer's constructor, on
 * the added tokens). A step whose pattern is `unbounded` refuses to run: such a tokenizer counts
 * in a worker, where this is not installed.
 */
export function runPatternsInLinearTime(): void {
  if (installed) return;
  installed = true;
  guard(ReplaceNormalizer.prototype, 'normalize');
  guard(SplitPreTokenizer.prototype, 'pre_tokenize_text');
  guard(ReplacePreTokenizer.prototype, 'pre_tokenize_text');
}

const checked = new WeakSet<object>();

function guard<K extends string>(prototype: { [key in K]: (...args: never[]) => unknown }, method: K): void {
  const original = prototype[method];
  Object.defineProperty(prototype, method, {
    configurable: true,
    writable: true,
    value: function (this: { pattern: unknown; config: PatternConfig }, ...args: never[]) {
      if (!checked.has(this)) {
        const engine = engineOf(this.config);
        if (engine === 'unbounded') throw new Error(`tokenizer.json's pattern ${String(this.config.pattern?.Regex)} cannot run in bounded time in this thread`);
        if (engine === 'linear' && this.pattern instanceof RegExp) this.pattern = linearPattern(this.pattern.source);
        checked.add(this);
      }
      return original.apply(this, args);
    },
  });
}
