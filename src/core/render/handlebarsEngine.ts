/** Dotprompt (Handlebars): compiles templates to JavaScript, so it runs in a process of its own (renderer.ts). */
import { renderDotprompt } from './dotprompt';
import { EngineDataError } from './engineData';
import type { DotpromptRequest } from './engineRequest';
import type { DotpromptResult } from './engineResult';

export async function runHandlebarsEngine(request: DotpromptRequest): Promise<DotpromptResult> {
  try {
    return await renderDotprompt(request.source, request.input, request.partials, request.runtimeData);
  } catch (error) {
    if (error instanceof EngineDataError) return { error: error.message };
    throw error;
  }
}
