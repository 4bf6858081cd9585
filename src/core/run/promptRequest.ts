/** A parsed prompt with values for its variables → the chat request that is sent, and its content hash. */
import { createHash } from 'node:crypto';
import type { Prompt } from '../formats/model';
import { renderTemplate } from '../formats/template';
import { canonicalJson, normalizeParams } from '../endpoint/params';
import type { ChatRequest } from '../endpoint/types';

export interface RenderedRequest {
  request: ChatRequest;
  /** Variables that had no value: the placeholder text is sent as written. */
  unresolved: string[];
}

/**
 * Model precedence: an explicit override (CLI `--model`) → the prompt file's model → the endpoint's
 * default. Parameters: the endpoint cannot set any; the file's parameters are sent.
 */
export function renderPromptRequest(prompt: Prompt, vars: Record<string, unknown>, model: { override?: string; endpointDefault?: string }): RenderedRequest {
  const unresolved = new Set<string>();
  const messages = prompt.messages.map((message) => {
    const rendered = renderTemplate(message.template, prompt.templateSyntax, { ...prompt.inputs, ...vars });
    for (const placeholder of rendered.unresolved) unresolved.add(placeholder.name);
    return { role: message.role, content: rendered.text.trim(), ...(message.name ? { name: message.name } : {}) };
  });
  const chosen = model.override ?? prompt.model ?? model.endpointDefault;
  if (!chosen) throw new Error(`No model for prompt '${prompt.name}': the file names none and the endpoint has no default model.`);
  return { request: { model: chosen, messages, params: normalizeParams(prompt.params) }, unresolved: [...unresolved] };
}

/** Hash of what the model sees (messages in order), independent of formatting around them in the file. */
export function promptContentHash(request: ChatRequest): string {
  return sha256(canonicalJson(request.messages));
}

export function sha256(text: string): string {
  return createHash('sha256').update(text, 'utf8').digest('hex');
}
