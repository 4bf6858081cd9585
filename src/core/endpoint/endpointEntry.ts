/**
 * What **Add Endpoint…** writes: the kinds of server a user picks from, the checks on what they type,
 * and the `promptInsight.endpoints` entry built from the answers. No API key ever reaches the entry —
 * the answers have no field for one, and a URL that carries a credential is refused — because keys
 * live in SecretStorage only (extension/endpoints/apiKeys.ts).
 */
import type { ProviderKind } from './types';

export type EndpointKind = 'openai-compatible' | 'azure' | 'ollama' | 'llama.cpp' | 'anthropic' | 'simulated';

export interface EndpointKindInfo {
  kind: EndpointKind;
  label: string;
  detail: string;
  /** The provider written into the entry (the simulator writes no entry). */
  provider: ProviderKind;
  defaultName: string;
  defaultBaseUrl: string;
  /** Whether the server needs a model named (Azure: the deployment). */
  model: 'required' | 'optional';
  modelPrompt: string;
  /** Whether to offer storing a key: hosted services need one, local servers usually not. */
  apiKey: 'ask' | 'offer' | 'none';
}

export const ENDPOINT_KINDS: readonly EndpointKindInfo[] = [
  { kind: 'openai-compatible', label: 'OpenAI-compatible', detail: 'OpenAI, vLLM, LM Studio, TGI, SGLang, Ollama /v1 — anything serving /v1/chat/completions', provider: 'openai', defaultName: 'OpenAI', defaultBaseUrl: 'https://api.openai.com/v1', model: 'optional', modelPrompt: 'The model to use when a prompt names none, e.g. gpt-4o-mini. Empty: the prompt file’s model.', apiKey: 'ask' },
  { kind: 'azure', label: 'Azure OpenAI', detail: 'An Azure OpenAI resource; the model is the deployment name', provider: 'azure', defaultName: 'Azure OpenAI', defaultBaseUrl: 'https://YOUR-RESOURCE.openai.azure.com', model: 'required', modelPrompt: 'The deployment name (Azure sends every request to one deployment).', apiKey: 'ask' },
  { kind: 'ollama', label: 'Ollama', detail: 'Ollama’s own API, which reports prefill and decode durations', provider: 'ollama', defaultName: 'Ollama', defaultBaseUrl: 'http://localhost:11434', model: 'required', modelPrompt: 'A model Ollama has pulled, e.g. llama3.2 (see `ollama list`).', apiKey: 'none' },
  { kind: 'llama.cpp', label: 'llama.cpp server', detail: 'llama-server’s OpenAI-compatible API; its timings and /metrics are read too', provider: 'openai', defaultName: 'llama.cpp', defaultBaseUrl: 'http://127.0.0.1:8080/v1', model: 'optional', modelPrompt: 'The model name to send (llama-server serves the model it loaded whatever the name). Empty: the prompt file’s model.', apiKey: 'offer' },
  { kind: 'anthropic', label: 'Anthropic', detail: 'The Anthropic Messages API', provider: 'anthropic', defaultName: 'Anthropic', defaultBaseUrl: 'https://api.anthropic.com', model: 'optional', modelPrompt: 'The model to use when a prompt names none, e.g. claude-3-5-haiku-latest. Empty: the prompt file’s model.', apiKey: 'ask' },
  { kind: 'simulated', label: 'Simulated endpoint (bundled)', detail: 'Not a real model: rehearses timings on this machine, no server or key needed', provider: 'openai', defaultName: '', defaultBaseUrl: '', model: 'optional', modelPrompt: '', apiKey: 'none' },
];

export function endpointKindInfo(kind: EndpointKind): EndpointKindInfo {
  return ENDPOINT_KINDS.find((k) => k.kind === kind)!;
}

/** Query parameters that carry a credential: the key goes to SecretStorage, never into a setting. */
const CREDENTIAL_PARAMS = /^(key|api[-_]?key|apikey|access[-_]?token|token|code|sig|x-api-key)$/i;

/** Why this base URL cannot be used, or undefined when it can. */
export function baseUrlProblem(kind: EndpointKind, text: string): string | undefined {
  const value = text.trim();
  if (!value) return 'Enter the server’s URL';
  if (!/^https?:\/\//i.test(value)) return 'The URL starts with http:// or https://';
  if (!URL.canParse(value)) return 'This is not a valid URL';
  const url = new URL(value);
  if (!url.hostname) return 'The URL names no host';
  if (url.username || url.password) return 'No credentials in the URL: the API key is asked for next and kept in VS Code’s SecretStorage';
  for (const name of url.searchParams.keys()) if (CREDENTIAL_PARAMS.test(name)) return `No credentials in the URL (\`${name}=\`): the API key is asked for next and kept in VS Code’s SecretStorage`;
  if (kind === 'azure' && /YOUR-RESOURCE/i.test(url.hostname)) return 'Put your Azure OpenAI resource’s name in place of YOUR-RESOURCE';
  return undefined;
}

export function modelProblem(kind: EndpointKind, text: string): string | undefined {
  if (endpointKindInfo(kind).model === 'required' && !text.trim()) return kind === 'azure' ? 'Azure needs the deployment name' : 'Enter the model name';
  if (/\s/.test(text.trim())) return 'A model name has no spaces';
  return undefined;
}

export function nameProblem(text: string): string | undefined {
  const name = text.trim();
  if (!name) return 'Give the endpoint a name (it is how ▶ Run and the settings refer to it)';
  if (name.length > 80) return 'Keep the name under 80 characters';
  return undefined;
}

/** What the user answered. There is deliberately no key here: it never travels with the entry. */
export interface EndpointAnswers {
  kind: Exclude<EndpointKind, 'simulated'>;
  name: string;
  baseUrl: string;
  model?: string;
}

/** The `promptInsight.endpoints` entry, in the setting's own shape (package.json). */
export interface EndpointEntry {
  name: string;
  provider: ProviderKind;
  baseUrl: string;
  model?: string;
}

/** The entry for these answers; throws when an answer would not pass its check (the input boxes check first). */
export function endpointEntry(answers: EndpointAnswers): EndpointEntry {
  const problem = nameProblem(answers.name) ?? baseUrlProblem(answers.kind, answers.baseUrl) ?? modelProblem(answers.kind, answers.model ?? '');
  if (problem) throw new Error(problem);
  const model = answers.model?.trim();
  // Fields are picked one by one: whatever else the answers object carries is never written.
  return { name: answers.name.trim(), provider: endpointKindInfo(answers.kind).provider, baseUrl: answers.baseUrl.trim().replace(/\/+$/, ''), ...(model ? { model } : {}) };
}

/** Whether the setting already has an endpoint of this name (the user is asked before it is replaced). */
export function hasEndpointNamed(endpoints: unknown, name: string): boolean {
  return (Array.isArray(endpoints) ? endpoints : []).some((e) => nameOf(e) === name.trim());
}

/** The setting's new value: the entry in place of the one of its name (the user agreed to replace it), or appended; other entries stay as they are. */
export function withEndpoint(endpoints: unknown, entry: EndpointEntry): unknown[] {
  const list = Array.isArray(endpoints) ? [...endpoints] : [];
  const at = list.findIndex((e) => nameOf(e) === entry.name);
  if (at < 0) return [...list, entry];
  list[at] = entry;
  return list;
}

function nameOf(entry: unknown): string | undefined {
  const e = entry as { name?: unknown } | null;
  return typeof e === 'object' && e !== null && typeof e.name === 'string' ? e.name.trim() : undefined;
}
