/**
 * Request parameters that change what a run costs or what the provider keeps. A prompt file's front
 * matter is sent as request parameters, and a prompt file may come from a cloned repository: such a
 * file must not be able to multiply the bill (`n: 64`), buy a pricier tier (`service_tier: priority`),
 * keep the conversation on the provider's side (`store: true`) or ask for a runaway answer
 * (`max_tokens: 1000000`) without the user saying yes. Every face asks before sending what this lists
 * (the CLI refuses without `--allow-param NAME` / `--allow-cost-params`, the editor asks once per file
 * and parameter set). docs/security-endpoints.md explains each choice, and what is deliberately not listed.
 *
 * Input is the request's parameters as sent: the OpenAI vocabulary `normalizeParams` produces (so
 * `max_completion_tokens`, `maxOutputTokens`… arrive as `max_tokens`); the other spellings are
 * checked as well, so the list holds for parameters that were never normalised.
 */
import { canonicalJson } from './params';

export interface CostParam {
  /** The parameter's name as written in the request. */
  name: string;
  value: unknown;
  /** Why it matters, in a few words the user can act on. */
  why: string;
}

/** An answer longer than this many tokens is unusual for a prompt under test, and a runaway one is paid by the token. */
export const LARGE_OUTPUT_TOKENS = 16_384;

type Check = (value: unknown) => string | undefined;

/** A number as the server would read it: YAML numbers, or numeric strings (servers coerce them). */
function numeric(value: unknown): number | undefined {
  if (typeof value === 'number') return value;
  if (typeof value === 'string' && value.trim() !== '' && Number.isFinite(Number(value))) return Number(value);
  return undefined;
}

const truthy = (value: unknown): boolean => value === true || value === 'true' || value === 1;

const manyAnswers =
  (what: string): Check =>
  (value) => {
    const n = numeric(value);
    return n !== undefined && n > 1 ? `${what}: every run is billed for ${n} answers (only the first is measured)` : undefined;
  };

const outputBound: Check = (value) => {
  const n = numeric(value);
  if (n === undefined) return undefined;
  if (n < 0) return 'no limit on the answer length (negative means unbounded on llama.cpp and Ollama)';
  return n > LARGE_OUTPUT_TOKENS ? `allows answers of up to ${n} tokens per run (more than ${LARGE_OUTPUT_TOKENS}), each billed` : undefined;
};

const CHECKS: Record<string, Check> = {
  n: manyAnswers('several answers per request'),
  candidateCount: manyAnswers('several answers per request (Gemini)'),
  best_of: manyAnswers('server-side candidates'),
  bestOf: manyAnswers('server-side candidates'),
  use_beam_search: (v) => (truthy(v) ? 'beam search: several sequences generated per request' : undefined),
  service_tier: (v) => (v === undefined || v === null || v === 'auto' || v === 'default' || v === 'standard_only' ? undefined : `a different price tier (${String(v)})`),
  serviceTier: (v) => (v === undefined || v === null || v === 'auto' || v === 'default' ? undefined : `a different price tier (${String(v)})`),
  store: (v) => (truthy(v) ? "the provider keeps the request and the answer (OpenAI's stored completions)" : undefined),
  prompt_cache_retention: (v) => (v === undefined || v === null || v === 'in_memory' ? undefined : `the provider keeps the prompt's cached prefix longer (${String(v)})`),
  max_tokens: outputBound,
  max_completion_tokens: outputBound,
  max_output_tokens: outputBound,
  maxOutputTokens: outputBound,
  maxTokens: outputBound,
  n_predict: outputBound,
  num_predict: outputBound,
  min_tokens: (v) => {
    const n = numeric(v);
    return n !== undefined && n > LARGE_OUTPUT_TOKENS ? `forces answers of at least ${n} tokens per run` : undefined;
  },
  ignore_eos: (v) => (truthy(v) ? 'the model never stops on its own: every answer runs to the length limit' : undefined),
  modalities: (v) => (Array.isArray(v) && v.includes('audio') ? 'audio output, billed at audio rates' : undefined),
  tools: (v) => {
    if (!Array.isArray(v)) return undefined;
    const hosted = v.map((tool) => (tool && typeof tool === 'object' ? (tool as { type?: unknown }).type : undefined)).filter((type): type is string => typeof type === 'string' && type !== 'function' && type !== 'custom');
    return hosted.length ? `server-side tools billed per use (${[...new Set(hosted)].join(', ')})` : undefined;
  },
};

/** The parameters of one request that change its cost or what the provider keeps, in the order written. */
export function costAffectingParams(requestParams: Readonly<Record<string, unknown>>): CostParam[] {
  const found: CostParam[] = [];
  for (const [name, value] of Object.entries(requestParams)) {
    if (!Object.hasOwn(CHECKS, name)) continue;
    const why = CHECKS[name]!(value);
    if (why) found.push({ name, value, why });
  }
  return found;
}

/** Those of `found` the user has not allowed: `all` allows every one, `names` the ones named. */
export function unallowedCostParams(found: readonly CostParam[], allow: { all?: boolean; names?: readonly string[] }): CostParam[] {
  if (allow.all) return [];
  const names = new Set(allow.names ?? []);
  return found.filter((p) => !names.has(p.name));
}

/** `n: 64 (several answers per request: …); store: true (…)`, for a message or a dialog. */
export function describeCostParams(found: readonly CostParam[]): string {
  return found.map((p) => `${p.name}: ${shortValue(p.value)} (${p.why})`).join('; ');
}

/** One stable text for a parameter set (names and values), to remember a confirmation by. */
export function costParamSetKey(found: readonly CostParam[]): string {
  return canonicalJson(Object.fromEntries([...found].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0)).map((p) => [p.name, p.value])));
}

function shortValue(value: unknown): string {
  const text = typeof value === 'string' ? value : (JSON.stringify(value) ?? String(value));
  return text.length > 60 ? `${text.slice(0, 57)}...` : text;
}
