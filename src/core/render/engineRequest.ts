/** One template render, as sent to the render worker (plain data only: it crosses a thread boundary). */
import type { DotpromptResult } from './dotprompt';
import type { EngineResult } from './engineResult';

export type EngineRequest =
  | { engine: 'jinja2' | 'mustache'; template: string; data: Record<string, unknown> }
  | { engine: 'dotprompt'; source: string; input: Record<string, unknown>; partials: Record<string, string>; runtimeData?: RuntimeData };

/** What an application passes a Dotprompt render besides inputs: `@` context values and history messages. */
export interface RuntimeData {
  context?: Record<string, unknown>;
  messages?: unknown[];
}

export type EngineAnswer = EngineResult | DotpromptResult;

/** Runs the request's engine in this thread (the worker calls this; so do tests from source). */
export async function runEngine(request: EngineRequest): Promise<EngineAnswer> {
  if (request.engine === 'dotprompt') {
    const { renderDotprompt } = await import('./dotprompt');
    return renderDotprompt(request.source, request.input, request.partials, request.runtimeData);
  }
  if (request.engine === 'mustache') {
    const { renderMustache } = await import('./mustache');
    return renderMustache(request.template, request.data);
  }
  const { renderJinja } = await import('./jinja');
  return renderJinja(request.template, request.data);
}
