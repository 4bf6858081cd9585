/**
 * Dotprompt files rendered by Google's `dotprompt` library (Handlebars, its built-in helpers, role
 * and history markers, partials), so messages and their text are the library's own.
 *
 * Two things are decided here. Partials are read by the caller (partials.ts) and handed over by
 * name, so rendering touches no file system. Media parts (`{{media url=…}}`) carry no text; they
 * are returned as a count and not counted as tokens (providers bill images by their size, which a
 * URL does not tell).
 *
 * Handlebars compiles templates to JavaScript, so this runs in its own render process (renderer.ts)
 * that is allowed to generate code and nothing else the interpreting engines' process is denied.
 * Values are prototype-less copies (engineData.ts; Handlebars' own access control also refuses
 * members that are not own properties), and the library's shared Handlebars instance is emptied
 * of the previous render's partials, so every render starts from the same state.
 */
import { Dotprompt } from 'dotprompt';
import Handlebars from 'handlebars';
import { prototypeLessCopy, prototypeLessRecord } from './engineData';
import type { RuntimeData } from './engineRequest';
import type { DotpromptMessage, DotpromptResult } from './engineResult';
import { MAX_RENDERED_CHARS, renderedSizeError } from './renderLimits';

const DOTPROMPT_HELPERS = new Set(['json', 'role', 'history', 'section', 'media', 'ifEquals', 'unlessEquals', 'if', 'unless', 'each', 'with', 'lookup', 'log']);

/**
 * The messages are the library's own: a message that renders empty (a role marker followed only by
 * a variable with no value, or by nothing) is dropped, as Genkit drops it; the variable is reported
 * missing. A file whose front matter the library does not find is rendered whole, as it sends it.
 */
export async function renderDotprompt(source: string, input: Record<string, unknown>, partials: Record<string, string>, runtimeData: RuntimeData = {}): Promise<DotpromptResult> {
  try {
    // A named schema is the application's (Genkit defineSchema): rendering does not need it, so any name resolves to an open schema, recorded.
    const uncheckedSchemas = new Set<string>();
    const dotprompt = new Dotprompt({
      schemaResolver: (name: string) => {
        uncheckedSchemas.add(name);
        return {};
      },
    });
    const handlebars = (dotprompt as unknown as { handlebars: typeof Handlebars }).handlebars;
    for (const name of Object.keys(handlebars.partials)) handlebars.unregisterPartial(name);
    for (const [name, text] of Object.entries(partials)) dotprompt.definePartial(name, text);
    const parsed = dotprompt.parse(source);
    const defaults = (parsed.input?.default ?? {}) as Record<string, unknown>;
    const values = { ...defaults, ...input };
    const missing = missingVariables(parsed.template, values, partials);
    const data = prototypeLessRecord(values);
    const context = runtimeData.context ? { context: prototypeLessCopy(runtimeData.context) as Record<string, unknown> } : {};
    const messages = runtimeData.messages ? { messages: prototypeLessCopy(runtimeData.messages) as unknown[] } : {};
    const rendered = await dotprompt.render(source, { input: data, ...context, ...(messages as object) });
    // History messages are the caller's prototype-less copies: read by index, not with array methods.
    const out = Array.from(rendered.messages, (message) => {
      const parts = Array.from(message.content);
      return {
        role: message.role,
        text: parts.map((part) => ('text' in part && typeof part.text === 'string' ? part.text : '')).join(''),
        mediaParts: parts.filter((part) => 'media' in part).length,
        history: message.metadata?.purpose === 'history',
      };
    });
    if (out.reduce((sum, message) => sum + message.text.length, 0) > MAX_RENDERED_CHARS) return { error: renderedSizeError() };
    return {
      messages: out,
      ...(typeof parsed.model === 'string' ? { model: parsed.model } : {}),
      missing,
      ...(uncheckedSchemas.size > 0 ? { uncheckedSchemas: [...uncheckedSchemas] } : {}),
    };
  } catch (error) {
    if (error instanceof RangeError && /string length/i.test(error.message)) return { error: renderedSizeError() };
    return { error: error instanceof Error ? error.message : String(error) };
  }
}

/** Top-level `{{name}}` / `{{a.b}}` lookups outside blocks that change the context, with no value in `data`. */
function missingVariables(template: string, data: Record<string, unknown>, partials: Record<string, string>): string[] {
  const missing = new Set<string>();
  const visit = (program: hbs.AST.Program | undefined, depth: number): void => {
    for (const statement of program?.body ?? []) {
      if (statement.type === 'MustacheStatement') {
        const mustache = statement as hbs.AST.MustacheStatement;
        const path = mustache.path as hbs.AST.PathExpression;
        if (depth > 0 || path.type !== 'PathExpression' || path.data || mustache.params.length > 0 || mustache.hash) continue;
        if (path.parts.length === 0 || DOTPROMPT_HELPERS.has(path.original) || path.original in partials) continue;
        if (lookup(data, path.parts) === undefined) missing.add(path.original);
      } else if (statement.type === 'BlockStatement') {
        const block = statement as hbs.AST.BlockStatement;
        const name = (block.path as hbs.AST.PathExpression).original;
        const changesContext = name === 'each' || name === 'with' || !DOTPROMPT_HELPERS.has(name);
        visit(block.program, changesContext ? depth + 1 : depth);
        visit(block.inverse, depth);
      }
    }
  };
  try {
    visit(Handlebars.parse(template), 0);
  } catch {
    // The library rendered it, so it parses; a failure here only loses the diagnostic.
  }
  return [...missing];
}

function lookup(data: Record<string, unknown>, parts: string[]): unknown {
  let value: unknown = data;
  for (const part of parts) {
    if (!value || typeof value !== 'object' || !Object.prototype.hasOwnProperty.call(value, part)) return undefined;
    value = (value as Record<string, unknown>)[part];
  }
  return value;
}
