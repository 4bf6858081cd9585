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

/**
 * Printed in place of a variable with no value, where the variable is only printed: a message whose
 * only content is such a variable is then kept (empty), as the runtime — which has the value — sends
 * it with its per-message overhead. A private-use character: not whitespace, so the library's
 * "empty message" check sees text; removed from every message afterwards.
 */
const NO_VALUE = '\uE000';

const DOTPROMPT_HELPERS = new Set(['json', 'role', 'history', 'section', 'media', 'ifEquals', 'unlessEquals', 'if', 'unless', 'each', 'with', 'lookup', 'log']);

export async function renderDotprompt(fileSource: string, input: Record<string, unknown>, partials: Record<string, string>, runtimeData: RuntimeData = {}): Promise<DotpromptResult> {
  const source = withClosedFrontMatter(fileSource);
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
    const printedOnly = source.includes(NO_VALUE) ? [] : onlyPrinted(parsed.template, missing);
    const data = prototypeLessRecord({ ...values, ...Object.fromEntries(printedOnly.map((name) => [name, NO_VALUE])) });
    const context = runtimeData.context ? { context: prototypeLessCopy(runtimeData.context) as Record<string, unknown> } : {};
    const messages = runtimeData.messages ? { messages: prototypeLessCopy(runtimeData.messages) as unknown[] } : {};
    const rendered = await dotprompt.render(source, { input: data, ...context, ...(messages as object) });
    // History messages are the caller's prototype-less copies: read by index, not with array methods.
    const out = Array.from(rendered.messages, (message) => {
      const parts = Array.from(message.content);
      return {
        role: message.role,
        text: parts.map((part) => ('text' in part && typeof part.text === 'string' ? part.text : '')).join('').replaceAll(NO_VALUE, ''),
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

/**
 * The library (1.1.2) finds front matter only when its closing `---` ends with a line break, so a file
 * that ends at that `---` is read as one user message holding the whole file, front matter included.
 * The Dotprompt repository's own parser (dotpromptz: `identify_frontmatter`) takes a closing `---` at
 * the end of the file as the delimiter it is; so does ours, and the library gets the line break.
 */
export function withClosedFrontMatter(source: string): string {
  return /^---[ \t]*\r?\n/.test(source) && /(?:^|\n)---[ \t]*$/.test(source) ? `${source}\n` : source;
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

/**
 * The missing names (plain, undotted) that the template only prints at its top level: used nowhere
 * else (no block, condition, helper argument, partial), so a stand-in value changes nothing but the
 * printed text. A name used in `{{#if name}}` keeps no value, so the condition stays false.
 */
function onlyPrinted(template: string, missing: string[]): string[] {
  const candidates = new Set(missing.filter((name) => /^[A-Za-z_$][\w$-]*$/.test(name)));
  if (candidates.size === 0) return [];
  const usedElsewhere = new Set<string>();
  const visit = (node: unknown, printedAtTop: boolean): void => {
    if (Array.isArray(node)) {
      for (const child of node) visit(child, printedAtTop);
      return;
    }
    if (!node || typeof node !== 'object') return;
    const n = node as { type?: string; original?: unknown; params?: unknown[]; hash?: unknown; path?: unknown } & Record<string, unknown>;
    if (n.type === 'PathExpression' && typeof n.original === 'string') {
      if (!printedAtTop) usedElsewhere.add(n.original.split(/[./]/)[0]!);
      return;
    }
    if (n.type === 'MustacheStatement' && printedAtTop && (n.params ?? []).length === 0 && !n.hash) return; // `{{name}}` itself
    for (const [key, value] of Object.entries(n)) if (key !== 'loc' && value && typeof value === 'object') visit(value, false);
  };
  try {
    for (const statement of Handlebars.parse(template).body) visit(statement, true);
  } catch {
    return [];
  }
  return [...candidates].filter((name) => !usedElsewhere.has(name));
}

function lookup(data: Record<string, unknown>, parts: string[]): unknown {
  let value: unknown = data;
  for (const part of parts) {
    if (!value || typeof value !== 'object' || !Object.prototype.hasOwnProperty.call(value, part)) return undefined;
    value = (value as Record<string, unknown>)[part];
  }
  return value;
}
