/**
 * The server's model-tokenizer settings: `promptInsight.tokens.tokenizers` (model-name pattern →
 * folder), each mapping tagged by the extension with who wrote it, and the endpoint whose
 * `/tokenize` counts models with no tokenizer at hand (the one ▶ Run uses).
 */
import { isAbsolute } from 'node:path';

export interface TokenizerMappingSetting {
  pattern: string;
  /** An absolute folder (the extension resolves a workspace setting's relative path against its folder). */
  path: string;
  /** `user`: user settings (any folder); `workspace`: the workspace's settings (only inside the workspace). */
  origin: 'user' | 'workspace';
}

export interface TokenizerSettings {
  tokenizers: TokenizerMappingSetting[];
  /** Base URL of the configured OpenAI-compatible endpoint ▶ Run uses; asked only in a trusted workspace. */
  tokenizeEndpoint?: string;
}

const MAX_MAPPINGS = 200;

/**
 * From the section `promptInsight`: the tagged list the extension sends, or the plain
 * `{pattern: folder}` object of settings.json — whose origin is unknown, so it is taken as the
 * workspace's (read only inside the workspace).
 */
export function readTokenizerSettings(raw: { tokens?: { tokenizers?: unknown }; endpoints?: unknown; run?: { endpoint?: unknown } } | null | undefined): TokenizerSettings {
  const value = raw?.tokens?.tokenizers;
  const entries: [unknown, unknown, unknown][] = Array.isArray(value)
    ? value.map((m) => [(m as TokenizerMappingSetting | null)?.pattern, (m as TokenizerMappingSetting | null)?.path, (m as TokenizerMappingSetting | null)?.origin])
    : value && typeof value === 'object'
      ? Object.entries(value).map(([pattern, path]) => [pattern, path, 'workspace'])
      : [];
  const tokenizers = entries
    .filter((e): e is [string, string, unknown] => typeof e[0] === 'string' && e[0].trim() !== '' && typeof e[1] === 'string' && isAbsolute(e[1]))
    .slice(0, MAX_MAPPINGS)
    .map(([pattern, path, origin]) => ({ pattern: pattern.trim(), path, origin: origin === 'user' ? ('user' as const) : ('workspace' as const) }));
  const endpoint = runEndpointUrl(raw?.endpoints, raw?.run?.endpoint);
  return { tokenizers, ...(endpoint ? { tokenizeEndpoint: endpoint } : {}) };
}

/** The endpoint ▶ Run uses (named by `run.endpoint`, else the only one), when it speaks OpenAI's API: vLLM and llama-server do. */
function runEndpointUrl(endpoints: unknown, name: unknown): string | undefined {
  if (!Array.isArray(endpoints)) return undefined;
  const usable = endpoints.filter((e): e is { name: string; baseUrl: string } => {
    const v = e as { name?: unknown; provider?: unknown; baseUrl?: unknown } | null;
    return !!v && typeof v.name === 'string' && (v.provider === undefined || v.provider === 'openai') && typeof v.baseUrl === 'string' && /^https?:\/\//i.test(v.baseUrl) && URL.canParse(v.baseUrl);
  });
  const chosen = typeof name === 'string' && name ? usable.find((e) => e.name === name) : endpoints.length === 1 ? usable[0] : undefined;
  return chosen?.baseUrl;
}
