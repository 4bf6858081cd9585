/**
 * The template engines run in this process, for source runs (tests): bundles run them only in their
 * render processes (renderer.ts), which call the group's runner directly.
 */
import type { EngineAnswer, EngineRequest } from './engineRequest';

/** Runs the request's engine in this process. Every engine gets its values as prototype-less copies (engineData.ts). */
export async function runEngine(request: EngineRequest): Promise<EngineAnswer> {
  // Round-trip through JSON as the pipe to a render process does, so source runs see the same data.
  const wire = JSON.parse(JSON.stringify(request)) as EngineRequest;
  if (wire.engine === 'dotprompt') return (await import('./handlebarsEngine')).runHandlebarsEngine(wire);
  return (await import('./interpretedEngines')).runInterpretedEngine(wire);
}
