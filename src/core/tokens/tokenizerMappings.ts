/**
 * Which model folder counts a model: setting `promptInsight.tokens.tokenizers` maps model-name
 * patterns to folders (`{"qwen3-*": "/models/Qwen3-8B"}`); the CLI's `--tokenizer PATH` counts every
 * prompt with one folder. Each mapping remembers who wrote it (tokenizerFolder.ts decides from that
 * what may be read).
 */
import type { TokenizerOrigin } from './tokenizerFolder';
import { normalizeModelId } from './models';

export interface TokenizerMapping {
  /** A model id or a glob over it (`*`, `?`), matched case-insensitively with and without its provider prefix. */
  pattern: string;
  path: string;
  origin: TokenizerOrigin;
}

/** The mapping for a model: an exact pattern first, else the longest matching glob. */
export function tokenizerMappingFor(model: string, mappings: readonly TokenizerMapping[]): TokenizerMapping | undefined {
  const ids = [model.trim().toLowerCase(), normalizeModelId(model)];
  const exact = mappings.find((m) => ids.includes(m.pattern.trim().toLowerCase()));
  if (exact) return exact;
  return mappings
    .filter((m) => /[*?]/.test(m.pattern) && ids.some((id) => globRegExp(m.pattern).test(id)))
    .sort((a, b) => b.pattern.length - a.pattern.length)[0];
}

function globRegExp(pattern: string): RegExp {
  const source = pattern
    .trim()
    .toLowerCase()
    .replace(/[.+^${}()|[\]\\]/g, '\\$&')
    .replace(/\*/g, '.*')
    .replace(/\?/g, '.');
  return new RegExp(`^${source}$`);
}
