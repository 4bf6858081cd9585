/** One template render, as sent to a render process (plain JSON data only: it crosses a process boundary). */
import type { DotpromptResult } from './dotprompt';
import type { EngineResult } from './engineResult';

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

/**
 * Runs the request's engine in this process: render processes call the group's runner directly;
 * this is for tests from source. Every engine gets its values as prototype-less copies (engineData.ts).
 */
export async function runEngine(request: EngineRequest): Promise<EngineAnswer> {
  // Round-trip through JSON as the pipe to a render process does, so source runs see the same data.
  const wire = JSON.parse(JSON.stringify(request)) as EngineRequest;
  if (wire.engine === 'dotprompt') return (await import('./handlebarsEngine')).runHandlebarsEngine(wire);
  return (await import('./interpretedEngines')).runInterpretedEngine(wire);
}
