/**
 * Which inference server is behind an OpenAI-compatible endpoint, and the request fields that keep
 * its prefix cache out of a cold measurement. OpenAI's own API is known by its host; anything else
 * is asked once per base URL with short, keyless GETs, each answered only by its server: llama.cpp
 * `/props`, Ollama `/api/version`, TGI `/info`, SGLang `/get_model_info`, vLLM `/version`. Anything
 * else is `unknown`, and its runs are labelled from what it reports (cached tokens) rather than changed.
 */
import { randomUUID } from 'node:crypto';
import { boundedGet } from './boundedGet';
import { parseJson, record } from './jsonFields';

export type ServerKind = 'llama.cpp' | 'vllm' | 'tgi' | 'sglang' | 'ollama' | 'openai' | 'unknown';
export type CacheMode = 'cold' | 'warm' | 'as-is';

export const CACHE_MODES: readonly CacheMode[] = ['cold', 'warm', 'as-is'];

// Generous: a server busy with prefill can take a second to answer /props, and a missed probe means a run
// asked to be cold is sent without the server's cache switch (an endpoint that hangs unknown paths costs this once).
const PROBE_TIMEOUT_MS = 3000;
const MAX_PROBE_BYTES = 1_000_000;
const known = new Map<string, Promise<ServerKind>>();

async function getJson(url: string): Promise<Record<string, unknown> | undefined> {
  const answer = await boundedGet(url, PROBE_TIMEOUT_MS, MAX_PROBE_BYTES);
  return 'error' in answer || !/json/.test(answer.contentType) ? undefined : record(parseJson(answer.text));
}

/** The server's root: the base URL without a trailing /v1. */
export function serverRoot(baseUrl: string): string {
  return baseUrl.replace(/\/+$/, '').replace(/\/v1$/, '');
}

/** The server's kind, from its root. Never sends a key. */
export function probeServerKind(baseUrl: string): Promise<ServerKind> {
  const root = serverRoot(baseUrl);
  let kind = known.get(root);
  if (!kind) {
    kind = (async (): Promise<ServerKind> => {
      if (/^api\.openai\.com$/i.test(new URL(root).hostname)) return 'openai';
      // Asked at once (each path is answered by one server only), so an endpoint that lets unknown
      // paths hang costs one probe timeout, not five.
      const [props, ollama, info, modelInfo, version] = await Promise.all(['/props', '/api/version', '/info', '/get_model_info', '/version'].map((path) => getJson(`${root}${path}`)));
      if (props && ('default_generation_settings' in props || 'build_info' in props)) return 'llama.cpp';
      if (ollama && typeof ollama.version === 'string') return 'ollama';
      if (info && typeof info.model_id === 'string' && ('max_concurrent_requests' in info || 'router' in info)) return 'tgi';
      if (modelInfo && typeof modelInfo.model_path === 'string') return 'sglang';
      if (version && typeof version.version === 'string') return 'vllm';
      return 'unknown';
    })();
    known.set(root, kind);
  }
  return kind;
}

/** Servers with a Prometheus `/metrics` on the API's own port (Ollama and OpenAI have none), by the prefix of their own metric names. */
const OWN_METRIC_PREFIX: Partial<Record<ServerKind, string>> = { 'llama.cpp': 'llamacpp:', vllm: 'vllm:', tgi: 'tgi_', sglang: 'sglang:' };

/**
 * The server's own `/metrics` beside its API, when its kind has one: a source nobody configured, so
 * the sampler reads it only if it carries that server's own metrics (a probe answered "like vLLM" is
 * not enough to be sampled every half second), and keeps only those. No user or password is carried over.
 */
export function ownMetricsSource(kind: ServerKind, baseUrl: string): { kind: 'text'; url: string; ownPrefix: string } | undefined {
  const ownPrefix = OWN_METRIC_PREFIX[kind];
  if (!ownPrefix) return undefined;
  const url = new URL(`${serverRoot(baseUrl)}/metrics`);
  url.username = '';
  url.password = '';
  url.search = '';
  return { kind: 'text', url: url.href, ownPrefix };
}

/** Request fields for one run: cold runs turn the prefix cache off where the server has a per-request switch. */
export function cacheFields(kind: ServerKind, mode: CacheMode): Record<string, unknown> | undefined {
  if (mode !== 'cold') return undefined;
  if (kind === 'llama.cpp') return { cache_prompt: false };
  if (kind === 'vllm') return { cache_salt: randomUUID() }; // a salt of its own per run: nothing to share
  return undefined;
}
