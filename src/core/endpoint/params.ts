/**
 * Sampling parameters as prompt files write them (Prompty `max_tokens`, Dotprompt `maxOutputTokens`,
 * GitHub `max_completion_tokens`…) → one OpenAI-vocabulary map. Unknown keys pass through unchanged.
 */
const ALIASES: Record<string, string> = {
  maxOutputTokens: 'max_tokens',
  maxTokens: 'max_tokens',
  max_completion_tokens: 'max_tokens',
  topP: 'top_p',
  topK: 'top_k',
  stopSequences: 'stop',
  frequencyPenalty: 'frequency_penalty',
  presencePenalty: 'presence_penalty',
};

/** Keys the transport owns; a prompt file cannot switch streaming off or redirect the model here. */
const RESERVED = new Set(['stream', 'stream_options', 'messages', 'model']);

export function normalizeParams(params: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(params)) {
    if (value === undefined || value === null) continue;
    const name = ALIASES[key] ?? key;
    if (RESERVED.has(name)) continue;
    if (typeof value === 'object' && !Array.isArray(value)) continue; // nested config blocks are not request parameters
    out[name] = value;
  }
  return out;
}

/** Canonical JSON (sorted keys) so equal parameters give equal store keys. */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>).filter(([, v]) => v !== undefined).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}
