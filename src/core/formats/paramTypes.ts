/**
 * Sampling parameters of a prompt file checked against the types their runtimes and the OpenAI API
 * take (Prompty `model.parameters`/`options`, Dotprompt `config`, GitHub `modelParameters`):
 * `temperature: "hot"` or `max_tokens: lots` are sent as written and the server refuses the request,
 * so they are reported at the value. Unknown keys pass unchecked (providers add their own).
 */
import { describe, type FieldReader } from './fields';

type Expected = 'number' | 'integer' | 'boolean' | 'string or list of strings' | 'list of strings' | 'mapping' | 'list';

const NUMBER: Expected = 'number';
const INTEGER: Expected = 'integer';

/** Each name as prompt files spell it (params.ts maps the aliases to the OpenAI vocabulary). */
const EXPECTED: Record<string, Expected> = {
  temperature: NUMBER,
  top_p: NUMBER, topP: NUMBER,
  frequency_penalty: NUMBER, frequencyPenalty: NUMBER,
  presence_penalty: NUMBER, presencePenalty: NUMBER,
  repetition_penalty: NUMBER, min_p: NUMBER,
  max_tokens: INTEGER, maxTokens: INTEGER, maxOutputTokens: INTEGER, max_completion_tokens: INTEGER,
  top_k: INTEGER, topK: INTEGER, seed: INTEGER, n: INTEGER, candidateCount: INTEGER,
  stop: 'string or list of strings',
  stopSequences: 'list of strings',
  logprobs: 'boolean', parallel_tool_calls: 'boolean',
  response_format: 'mapping',
  tools: 'list',
};

function fits(value: unknown, expected: Expected): boolean {
  switch (expected) {
    case 'number':
      return typeof value === 'number' && Number.isFinite(value);
    case 'integer':
      return typeof value === 'number' && Number.isInteger(value);
    case 'boolean':
      return typeof value === 'boolean';
    case 'string or list of strings':
      return typeof value === 'string' || (Array.isArray(value) && value.every((v) => typeof v === 'string'));
    case 'list of strings':
      return Array.isArray(value) && value.every((v) => typeof v === 'string');
    case 'mapping':
      return typeof value === 'object' && value !== null && !Array.isArray(value);
    case 'list':
      return Array.isArray(value);
  }
}

function shown(value: unknown): string {
  if (typeof value === 'string') return `the string ${JSON.stringify(value.length > 30 ? `${value.slice(0, 29)}…` : value)}`;
  if (typeof value === 'number') return `${value}`;
  return describe(value);
}

/** Reports each known parameter of `params` whose value has the wrong type; `where` names the block (`model.parameters`). */
export function checkParameterTypes(params: FieldReader | undefined, where: string): void {
  if (!params) return;
  for (const [key, expected] of Object.entries(EXPECTED)) {
    const value = params.raw(key);
    if (value === undefined || fits(value, expected)) continue;
    const an = /^[aeiou]/.test(expected) ? 'an' : 'a';
    params.report(key, `'${where}.${key}' should be ${an} ${expected}, not ${shown(value)}: sent as written, the server refuses the request.`);
  }
}
