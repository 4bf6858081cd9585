/** One template render, as sent to a render process (plain JSON data only: it crosses a process boundary). */
import type { DotpromptResult, EngineResult } from './engineResult';

/** `chatTemplate`: a model's chat template (tokenizer_config.json, a server's /props), rendered as Hugging Face renders it. */
export type InterpretedRequest = { engine: 'jinja2' | 'mustache'; template: string; data: Record<string, unknown>; chatTemplate?: boolean };
export type DotpromptRequest = { engine: 'dotprompt'; source: string; input: Record<string, unknown>; partials: Record<string, string>; runtimeData?: RuntimeData };
export type EngineRequest = InterpretedRequest | DotpromptRequest;

/** What an application passes a Dotprompt render besides inputs: `@` context values and history messages. */
export interface RuntimeData {
  context?: Record<string, unknown>;
  messages?: unknown[];
}

export type EngineAnswer = EngineResult | DotpromptResult;

/** Which render process serves an engine: the interpreting engines never generate code; Handlebars does. */
export type EngineGroup = 'interpreted' | 'handlebars';

export function engineGroupOf(request: EngineRequest): EngineGroup {
  return request.engine === 'dotprompt' ? 'handlebars' : 'interpreted';
}
