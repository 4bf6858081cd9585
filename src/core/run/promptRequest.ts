/** A parsed prompt with values for its variables → the chat request that is sent, and its content hash. */
import type { Prompt } from '../formats/model';
import type { RenderedMessage } from '../render/renderPrompt';
import { renderWithReferences, type PromptReferences } from '../render/renderWithReferences';
import { normalizeParams } from '../endpoint/params';
import type { ChatRequest } from '../endpoint/types';

export interface RenderedRequest {
  request: ChatRequest;
  /** Variables that had no value: the placeholder text is sent as written. */
  unresolved: string[];
}

/**
 * Renders the prompt as its runtime would (render/renderPrompt.ts) and builds the request. Model
 * precedence: an explicit override (CLI `--model`) → the prompt file's model → the endpoint's
 * default. Parameters: the endpoint cannot set any; the file's parameters are sent. `references`:
 * where partials and `${file:}` values are read (none for a revision from git history).
 */
export async function renderPromptRequest(
  text: string,
  prompt: Prompt,
  vars: Record<string, unknown>,
  model: { override?: string; endpointDefault?: string },
  references: PromptReferences = {},
): Promise<RenderedRequest> {
  const { rendering } = await renderWithReferences(text, prompt, vars, references);
  if (rendering.error) throw new Error(`Prompt '${prompt.name}' could not be rendered: ${rendering.error}.`);
  return { request: requestOf(prompt, rendering.messages, model), unresolved: rendering.unresolved.map((v) => v.name) };
}

/** The request for messages already rendered (the editor's analysis holds them). */
export function requestOf(prompt: Prompt, messages: readonly Pick<RenderedMessage, 'role' | 'name' | 'content'>[], model: { override?: string; endpointDefault?: string }): ChatRequest {
  const chosen = model.override ?? prompt.model ?? model.endpointDefault;
  if (!chosen) {
    throw new Error(`No model for prompt '${prompt.name}': the file names none and the endpoint has no default model. Name one in the file's front matter (model:), pass --model, or set a model on the endpoint (promptInsight.endpoints).`);
  }
  return { model: chosen, messages: messages.map((m) => ({ role: m.role, content: m.content, ...(m.name ? { name: m.name } : {}) })), params: normalizeParams(prompt.params) };
}
