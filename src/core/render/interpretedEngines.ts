/** The engines that interpret templates (Jinja2, Mustache): never generate code, so their process may not either. */
import { EngineDataError, prototypeLessRecord } from './engineData';
import type { InterpretedRequest } from './engineRequest';
import type { EngineResult } from './engineResult';
import { renderJinja } from './jinja';
import { renderMustache } from './mustache';

export function runInterpretedEngine(request: InterpretedRequest): EngineResult {
  let data: Record<string, unknown>;
  try {
    data = prototypeLessRecord(request.data);
  } catch (error) {
    if (error instanceof EngineDataError) return { error: error.message };
    throw error;
  }
  return request.engine === 'mustache' ? renderMustache(request.template, data) : renderJinja(request.template, data, request.chatTemplate === true);
}
