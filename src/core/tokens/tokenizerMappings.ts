/**
 * Which model folder counts a model: setting `promptInsight.tokens.tokenizers` maps model-name
 * patterns to folders (`{"qwen3-*": "/models/Qwen3-8B"}`); the CLI's `--tokenizer PATH` counts every
 * prompt with one folder. Each mapping remembers who wrote it (tokenizerFolder.ts decides from that
 * what may be read).
 */
import { isAbsolute, resolve } from 'node:path';
import type { TokenizerOrigin } from './tokenizerFolder';
import { normalizeModelId } from './models';

export interface TokenizerMapping {
  /** A model id or a glob over it (`*`, `?`), matched case-insensitively with and without its provider prefix. */
  pattern: string;
  path: string;
  origin: TokenizerOrigin;
}

/** At most this many mappings are read from settings. */
const MAX_MAPPINGS = 200;

/** The mapping for a model: an exact pattern first, else the longest matching glob. */
export function tokenizerMappingFor(model: string, mappings: readonly TokenizerMapping[]): TokenizerMapping | undefined {
  const ids = [model.trim().toLowerCase(), normalizeModelId(model)];
  const exact = mappings.find((m) => ids.includes(m.pattern.trim().toLowerCase()));
  if (exact) return exact;
  return mappings
    .filter((m) => /[*?]/.test(m.pattern) && ids.some((id) => globRegExp(m.pattern).test(id)))
    .sort((a, b) => b.pattern.length - a.pattern.length)[0];
}

/**
 * Mappings from a settings value: `{pattern: folder}` (as written in settings.json), or the list
 * the extension sends with each mapping's origin. A plain object's entries get `origin`, and
 * relative folders are resolved against `base` (the workspace folder for workspace settings).
 */
export function readTokenizerMappings(value: unknown, origin: TokenizerOrigin, base?: string): TokenizerMapping[] {
  const mappings: TokenizerMapping[] = [];
  const add = (pattern: unknown, path: unknown, from: TokenizerOrigin) => {
    if (typeof pattern !== 'string' || !pattern.trim() || typeof path !== 'string' || !path.trim() || mappings.length >= MAX_MAPPINGS) return;
    const resolved = isAbsolute(path) ? path : base ? resolve(base, path) : undefined;
    if (resolved) mappings.push({ pattern: pattern.trim(), path: resolved, origin: from });
  };
  if (Array.isArray(value)) {
    for (const item of value) {
      const m = item as Partial<TokenizerMapping> | null;
      if (m && typeof m === 'object') add(m.pattern, m.path, m.origin === 'user' ? 'user' : 'workspace');
    }
  } else if (value && typeof value === 'object') {
    for (const [pattern, path] of Object.entries(value)) add(pattern, path, origin);
  }
  return mappings;
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
