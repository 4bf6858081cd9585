/**
 * The identity under which runs are stored and reused: prompt content + endpoint + model + parameters,
 * and the retrieval step that filled the prompt's passages, when it has one.
 */
import { createHash } from 'node:crypto';
import { canonicalJson } from '../endpoint/params';
import type { ChatRequest, EndpointConfig } from '../endpoint/types';

export interface RunKey {
  promptHash: string;
  /** Provider and URL without credentials, query or fragment. */
  endpoint: string;
  model: string;
  paramsHash: string;
  /**
   * The retrieval step's URL, query (its template and the query it renders to), topK and the input
   * it fills: the request is keyed before the passages are in it, so without this runs made with
   * another search service or another query would be reused. Absent for a prompt without one.
   */
  retrievalHash?: string;
}

/** What of a retrieval step shapes a run (run/retrievalRun.ts's PlannedRetrieval has these). */
export interface RetrievalShape {
  step: { url: string; query: string; topK: number; into: string };
  /** The query as sent. */
  query: string;
}

export function runKeyOf(endpoint: EndpointConfig, request: ChatRequest, retrieval?: RetrievalShape): RunKey {
  return {
    promptHash: promptContentHash(request),
    endpoint: endpointIdentity(endpoint),
    model: request.model,
    paramsHash: sha256(canonicalJson(request.params)).slice(0, 16),
    ...(retrieval ? { retrievalHash: retrievalHash(retrieval) } : {}),
  };
}

export function runKeyString(key: RunKey): string {
  return `${key.promptHash}|${key.endpoint}|${key.model}|${key.paramsHash}${key.retrievalHash ? `|${key.retrievalHash}` : ''}`;
}

/** The URL as sent (credentials are never sent, retrievalStep.ts) — its query string may pick the index — and the rest as declared. */
function retrievalHash({ step, query }: RetrievalShape): string {
  let url = step.url;
  try {
    const parsed = new URL(step.url);
    parsed.username = '';
    parsed.password = '';
    url = parsed.href;
  } catch {
    // hashed as written
  }
  return sha256(canonicalJson({ url, template: step.query, query, topK: step.topK, into: step.into })).slice(0, 16);
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
