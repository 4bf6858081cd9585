/**
 * Dotprompt files rendered by Google's `dotprompt` library (Handlebars, its built-in helpers, role
 * and history markers, partials), so messages and their text are the library's own.
 *
 * Two things are decided here. Partials are read by the caller (partials.ts) and handed over by
 * name, so rendering touches no file system. Media parts (`{{media url=…}}`) carry no text; they
 * are returned as a count and not counted as tokens (providers bill images by their size, which a
 * URL does not tell).
 */
import { Dotprompt } from 'dotprompt';
import Handlebars from 'handlebars';
import type { RuntimeData } from './engineRequest';

export interface DotpromptMessage {
  role: string;
  text: string;
  mediaParts: number;
  /** From `{{history}}` (history messages come from the caller's data; none when counting). */
  history: boolean;
}

export type DotpromptResult = { messages: DotpromptMessage[]; model?: string; missing: string[] } | { error: string };

const DOTPROMPT_HELPERS = new Set(['json', 'role', 'history', 'section', 'media', 'ifEquals', 'unlessEquals', 'if', 'unless', 'each', 'with', 'lookup', 'log']);

export async function renderDotprompt(source: string, input: Record<string, unknown>, partials: Record<string, string>, runtimeData: RuntimeData = {}): Promise<DotpromptResult> {
  try {
    const dotprompt = new Dotprompt({ partials });
    const parsed = dotprompt.parse(source);
    const defaults = (parsed.input?.default ?? {}) as Record<string, unknown>;
    const data = { ...defaults, ...structuredClone(input) };
    const rendered = await dotprompt.render(source, { input: data, ...(structuredClone(runtimeData) as object) });
    const messages = rendered.messages.map((message) => ({
      role: message.role,
      text: message.content.map((part) => ('text' in part && typeof part.text === 'string' ? part.text : '')).join(''),
      mediaParts: message.content.filter((part) => 'media' in part).length,
      history: message.metadata?.purpose === 'history',
    }));
    return { messages, ...(typeof parsed.model === 'string' ? { model: parsed.model } : {}), missing: missingVariables(parsed.template, data, partials) };
  } catch (error) {
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
