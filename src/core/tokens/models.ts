import type { EncodingName } from './encodingNames';

/** What the tokenizer knows about a model: which encoding, whether counts are exact, its context window. */
export interface ModelTokenInfo {
  /** The model id as given, or the default model when the file names none. */
  model: string;
  encoding: EncodingName;
  /** True when the encoding is the model's own (OpenAI models); otherwise an estimate. */
  exact: boolean;
  /** Model family used for the estimate note, e.g. "Claude". */
  family: string;
  contextWindowTokens?: number;
}

interface ModelRule {
  pattern: RegExp;
  encoding: EncodingName;
  exact: boolean;
  family: string;
  contextWindowTokens?: number;
}

// Order matters: the first matching rule wins, so specific ids come before their prefixes.
const RULES: ModelRule[] = [
  { pattern: /^gpt-4\.1/, encoding: 'o200k_base', exact: true, family: 'OpenAI', contextWindowTokens: 1_047_576 },
  { pattern: /^gpt-4o|^chatgpt-4o/, encoding: 'o200k_base', exact: true, family: 'OpenAI', contextWindowTokens: 128_000 },
  { pattern: /^gpt-4\.5/, encoding: 'o200k_base', exact: true, family: 'OpenAI', contextWindowTokens: 128_000 },
  { pattern: /^gpt-5/, encoding: 'o200k_base', exact: true, family: 'OpenAI', contextWindowTokens: 400_000 },
  { pattern: /^o1-mini/, encoding: 'o200k_base', exact: true, family: 'OpenAI', contextWindowTokens: 128_000 },
  { pattern: /^o[134](-|$)/, encoding: 'o200k_base', exact: true, family: 'OpenAI', contextWindowTokens: 200_000 },
  { pattern: /^gpt-oss/, encoding: 'o200k_base', exact: false, family: 'gpt-oss (harmony format)', contextWindowTokens: 131_072 },
  { pattern: /^gpt-4-32k/, encoding: 'cl100k_base', exact: true, family: 'OpenAI', contextWindowTokens: 32_768 },
  { pattern: /^gpt-4-(turbo|\d{4}-preview|vision)/, encoding: 'cl100k_base', exact: true, family: 'OpenAI', contextWindowTokens: 128_000 },
  { pattern: /^gpt-4(-\d{4})?$/, encoding: 'cl100k_base', exact: true, family: 'OpenAI', contextWindowTokens: 8_192 },
  { pattern: /^gpt-3\.5-turbo|^gpt-35-turbo/, encoding: 'cl100k_base', exact: true, family: 'OpenAI', contextWindowTokens: 16_385 },
  { pattern: /^text-embedding-(3|ada-002)/, encoding: 'cl100k_base', exact: true, family: 'OpenAI', contextWindowTokens: 8_191 },
  { pattern: /claude/, encoding: 'o200k_base', exact: false, family: 'Claude', contextWindowTokens: 200_000 },
  { pattern: /gemini-1\.5-pro/, encoding: 'o200k_base', exact: false, family: 'Gemini', contextWindowTokens: 2_097_152 },
  { pattern: /gemini/, encoding: 'o200k_base', exact: false, family: 'Gemini', contextWindowTokens: 1_048_576 },
  { pattern: /llama-?3\.[1-3]|llama-?4/, encoding: 'o200k_base', exact: false, family: 'Llama', contextWindowTokens: 128_000 },
  { pattern: /llama/, encoding: 'o200k_base', exact: false, family: 'Llama' },
  { pattern: /qwen/, encoding: 'o200k_base', exact: false, family: 'Qwen' },
  { pattern: /mistral|mixtral|codestral/, encoding: 'o200k_base', exact: false, family: 'Mistral' },
  { pattern: /deepseek/, encoding: 'o200k_base', exact: false, family: 'DeepSeek' },
  { pattern: /phi-?\d/, encoding: 'o200k_base', exact: false, family: 'Phi' },
];

/**
 * Normalises the many ways files name a model: provider prefixes (`openai/gpt-4o`,
 * `googleai/gemini-1.5-pro`), display names from VS Code prompt files (`GPT-4o (copilot)`),
 * Azure deployment spellings (`gpt-35-turbo`).
 */
export function normalizeModelId(model: string): string {
  let id = model.trim().toLowerCase();
  id = id.replace(/\s*\([^)]*\)\s*$/, '');
  const slash = id.lastIndexOf('/');
  if (slash >= 0) id = id.slice(slash + 1);
  const colon = id.indexOf(':');
  if (colon > 0 && !id.startsWith('ft:')) id = id.slice(0, colon); // ollama tags: llama3.1:8b
  return id.replace(/\s+/g, '-');
}

/** Token facts for a model; unknown models are estimated with o200k_base and say so. */
export function modelTokenInfo(model: string): ModelTokenInfo {
  const id = normalizeModelId(model);
  const rule = RULES.find((r) => r.pattern.test(id));
  if (!rule) return { model, encoding: 'o200k_base', exact: false, family: 'unknown model' };
  return {
    model,
    encoding: rule.encoding,
    exact: rule.exact,
    family: rule.family,
    ...(rule.contextWindowTokens ? { contextWindowTokens: rule.contextWindowTokens } : {}),
  };
}
