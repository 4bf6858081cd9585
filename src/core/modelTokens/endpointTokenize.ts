/**
 * Exact counts from the serving engine itself, for a model whose tokenizer is not at hand: vLLM and
 * llama.cpp's llama-server both serve `/tokenize` beside their API. Only an endpoint the user
 * configured is asked (the caller passes it; nothing here finds one), and each text is asked once:
 * an edit re-asks for the message it changed and for the request as a whole.
 *  - llama-server: `/tokenize {content, add_special: false}` per message; the request is rendered by
 *    the server's own chat template (`/apply-template`) and tokenized as a chat completion is
 *    (special tokens parsed, the model's BOS added when it adds one).
 *  - vLLM: `/tokenize {prompt}` per message, `/tokenize {messages, add_generation_prompt}` for the request.
 */
import { boundedGet, boundedPostJson } from '../endpoint/boundedGet';
import { parseJson, record } from '../endpoint/jsonFields';
import { probeServerKind, serverRoot, type ServerKind } from '../endpoint/serverKind';
import type { ChatTemplate } from '../tokens/modelTokenizer';

export interface TokenizeEndpoint {
  /** The configured endpoint's base URL (…/v1 or the server's root). */
  baseUrl: string;
  /** The key the user gave for this endpoint, if any (a server started with --api-key wants it). */
  apiKey?: string;
}

export interface ChatMessageText {
  role: string;
  content: string;
  name?: string;
}

export interface EndpointCounts {
  server: 'llama.cpp' | 'vllm';
  messageTokens: number[];
  totalTokens: number;
}

const TIMEOUT_MS = 5000;
const MAX_ANSWER_BYTES = 16 * 1024 * 1024;
const CACHE_LIMIT = 512;
const cache = new Map<string, Promise<number>>();

export class TokenizeEndpointError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'TokenizeEndpointError';
  }
}

/** Servers whose `/tokenize` is known: the rest are not asked. */
export function servesTokenize(kind: ServerKind): kind is 'llama.cpp' | 'vllm' {
  return kind === 'llama.cpp' || kind === 'vllm';
}

/** Counts every message and the whole request with the endpoint's engine; rejects with TokenizeEndpointError. */
export async function countWithEndpoint(endpoint: TokenizeEndpoint, model: string, messages: readonly ChatMessageText[]): Promise<EndpointCounts> {
  const server = await probeServerKind(endpoint.baseUrl);
  if (!servesTokenize(server)) throw new TokenizeEndpointError(`the configured endpoint (${server === 'unknown' ? 'an unrecognised server' : server}) serves no /tokenize`);
  const root = serverRoot(endpoint.baseUrl);
  const chat = messages.map((m) => ({ role: m.role, content: m.content, ...(m.name ? { name: m.name } : {}) }));
  const messageTokens = await Promise.all(
    messages.map((m) => cached(`${root}\u0000${server}\u0000${model}\u0000${m.content}`, () => (server === 'vllm' ? vllmCount(root, endpoint, { model, prompt: m.content, add_special_tokens: false }) : llamaTokenize(root, endpoint, m.content, false)))),
  );
  const totalTokens = await cached(`${root}\u0000${server}\u0000${model}\u0000request\u0000${JSON.stringify(chat)}`, async () => {
    if (server === 'vllm') return vllmCount(root, endpoint, { model, messages: chat, add_generation_prompt: true });
    const applied = await postJson(root, '/apply-template', endpoint, { messages: chat });
    if (typeof applied.prompt !== 'string') throw new TokenizeEndpointError("the server's /apply-template answered without a prompt");
    return llamaTokenize(root, endpoint, applied.prompt, true);
  });
  return { server, messageTokens, totalTokens };
}

async function llamaTokenize(root: string, endpoint: TokenizeEndpoint, content: string, asChatCompletion: boolean): Promise<number> {
  const answer = await postJson(root, '/tokenize', endpoint, { content, add_special: asChatCompletion, parse_special: true });
  if (!Array.isArray(answer.tokens)) throw new TokenizeEndpointError("the server's /tokenize answered without tokens");
  return answer.tokens.length;
}

async function vllmCount(root: string, endpoint: TokenizeEndpoint, body: Record<string, unknown>): Promise<number> {
  const answer = await postJson(root, '/tokenize', endpoint, body);
  if (typeof answer.count === 'number' && Number.isInteger(answer.count) && answer.count >= 0) return answer.count;
  if (Array.isArray(answer.tokens)) return answer.tokens.length;
  throw new TokenizeEndpointError("the server's /tokenize answered without a count");
}

async function postJson(root: string, path: string, endpoint: TokenizeEndpoint, body: unknown): Promise<Record<string, unknown>> {
  const answer = await boundedPostJson(`${root}${path}`, body, TIMEOUT_MS, MAX_ANSWER_BYTES, endpoint.apiKey);
  if ('error' in answer) throw new TokenizeEndpointError(`the server's ${path} failed: ${answer.error}`);
  const value = record(parseJson(answer.text));
  if (!value) throw new TokenizeEndpointError(`the server's ${path} did not answer JSON`);
  return value;
}

/** Answers by text, so an edit re-asks only for what changed; failures are not kept. */
function cached(key: string, ask: () => Promise<number>): Promise<number> {
  const hit = cache.get(key);
  if (hit) return hit;
  const promise = ask();
  cache.set(key, promise);
  promise.catch(() => cache.delete(key));
  if (cache.size > CACHE_LIMIT) cache.delete(cache.keys().next().value!);
  return promise;
}

/** llama-server's chat template from `/props` (keyless GET), with its BOS/EOS strings; undefined when it has none. */
export async function serverChatTemplate(endpoint: TokenizeEndpoint): Promise<ChatTemplate | undefined> {
  if ((await probeServerKind(endpoint.baseUrl)) !== 'llama.cpp') return undefined;
  const answer = await boundedGet(`${serverRoot(endpoint.baseUrl)}/props`, TIMEOUT_MS, MAX_ANSWER_BYTES);
  const props = 'error' in answer ? undefined : record(parseJson(answer.text));
  const template = typeof props?.chat_template === 'string' && props.chat_template ? props.chat_template : undefined;
  if (!template) return undefined;
  const values: Record<string, string> = {};
  for (const key of ['bos_token', 'eos_token']) if (typeof props?.[key] === 'string') values[key] = props[key] as string;
  return { template, from: "the server's /props", values };
}
