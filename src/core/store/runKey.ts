/** The identity under which runs are stored and reused: prompt content + endpoint + model + parameters. */
import { createHash } from 'node:crypto';
import { canonicalJson } from '../endpoint/params';
import type { ChatRequest, EndpointConfig } from '../endpoint/types';

export interface RunKey {
  promptHash: string;
  /** Provider and URL without credentials, query or fragment. */
  endpoint: string;
  model: string;
  paramsHash: string;
}

export function runKeyOf(endpoint: EndpointConfig, request: ChatRequest): RunKey {
  return { promptHash: promptContentHash(request), endpoint: endpointIdentity(endpoint), model: request.model, paramsHash: sha256(canonicalJson(request.params)).slice(0, 16) };
}

export function runKeyString(key: RunKey): string {
  return `${key.promptHash}|${key.endpoint}|${key.model}|${key.paramsHash}`;
}

/** `openai https://host/v1`: user info, query (which may hold a key) and fragment removed. */
export function endpointIdentity(endpoint: EndpointConfig): string {
  return `${endpoint.provider} ${safeUrl(endpoint.baseUrl)}`;
}

export function safeUrl(url: string): string {
  try {
    const parsed = new URL(url);
    return `${parsed.origin}${parsed.pathname.replace(/\/+$/, '')}`;
  } catch {
    return '(invalid URL)';
  }
}

/** Hash of what the model sees (messages in order), independent of formatting around them in the file. */
export function promptContentHash(request: ChatRequest): string {
  return sha256(canonicalJson(request.messages));
}

export function sha256(text: string): string {
  return createHash('sha256').update(text, 'utf8').digest('hex');
}
