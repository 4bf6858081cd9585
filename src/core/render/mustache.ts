/**
 * Mustache templates (Prompty `template.format: mustache`) rendered with mustache.js, with a fresh
 * writer (and so a fresh template cache) per render.
 *
 * mustache.js looks names up with `in` and plain member access, so on its own `{{constructor.name}}`
 * prints "Object", `{{who.constructor.name}}` prints "String" (a string's prototype), and a value
 * that is a function is called. Its lookups go through its `Context`, which it lets callers
 * replace: `OwnPropertyContext` resolves a name only through own properties of the data (which has
 * no prototypes, engineData.ts) and of strings (`length`, characters), and never yields a function.
 */
import Mustache from 'mustache';
import type { EngineResult } from './engineResult';
import { MAX_RENDERED_CHARS, renderedSizeError } from './renderLimits';

type Token = [string, string, number, number, Token[]?];

const NOT_FOUND = Symbol('not found');

/** Mustache's name resolution (innermost context first; a dotted name is resolved from its first part), through own properties only. */
class OwnPropertyContext extends Mustache.Context {
  override push(view: unknown): OwnPropertyContext {
    return new OwnPropertyContext(view, this);
  }

  override lookup(name: string): unknown {
    if (name === '.') return valueOrNothing(this.view);
    const parts = name.split('.');
    for (let context: Mustache.Context | undefined = this; context; context = context.parent) {
      const found = resolveParts(context.view, parts);
      if (found !== NOT_FOUND) return valueOrNothing(found);
    }
    return undefined;
  }
}

/** As mustache.js: a dotted name is found when its last part is a property of the value before it; a plain name only on an object. */
function resolveParts(view: unknown, parts: string[]): unknown {
  if (parts.length === 1) return ownProperty(view, parts[0]!, false);
  let value: unknown = view;
  for (const part of parts) {
    value = ownProperty(value, part, true);
    if (value === NOT_FOUND) return NOT_FOUND;
  }
  return value;
}

function ownProperty(value: unknown, name: string, primitivesToo: boolean): unknown {
  if (value !== null && typeof value === 'object') return Object.prototype.hasOwnProperty.call(value, name) ? (value as Record<string, unknown>)[name] : NOT_FOUND;
  if (primitivesToo && typeof value === 'string' && Object.prototype.hasOwnProperty.call(Object(value), name)) return (value as unknown as Record<string, unknown>)[name];
  return NOT_FOUND;
}

function valueOrNothing(value: unknown): unknown {
  return typeof value === 'function' ? undefined : value;
}

export function renderMustache(template: string, data: Record<string, unknown>): EngineResult {
  try {
    const writer = new Mustache.Writer();
    const tokens = writer.parse(template) as unknown as Token[];
    const missing = new Set<string>();
    collectMissing(tokens, [data], missing);
    // No escaping: the text goes to a model, not into HTML.
    const text = writer.render(template, new OwnPropertyContext(data), {}, { escape: (value: unknown) => String(value) });
    if (text.length > MAX_RENDERED_CHARS) return { error: renderedSizeError() };
    return { text, missing: [...missing] };
  } catch (error) {
    if (error instanceof RangeError && /string length/i.test(error.message)) return { error: renderedSizeError() };
    return { error: error instanceof Error ? error.message : String(error) };
  }
}

/** Names whose lookup finds nothing in any enclosing context (as Mustache resolves them). */
function collectMissing(tokens: Token[], stack: unknown[], missing: Set<string>): void {
  for (const token of tokens) {
    const [kind, name, , , children] = token;
    if (kind === 'name' || kind === '&' || kind === '#' || kind === '^') {
      const value = resolve(name, stack);
      if (value === undefined && name !== '.') missing.add(name);
      if (children && kind === '#') {
        const items = Array.isArray(value) ? (value.length > 0 ? [value[0]] : []) : value && typeof value === 'object' ? [value] : value ? [undefined] : [];
        for (const item of items) collectMissing(children, item === undefined ? stack : [item, ...stack], missing);
      }
    }
  }
}

function resolve(name: string, stack: unknown[]): unknown {
  if (name === '.') return stack[0];
  const parts = name.split('.');
  for (const frame of stack) {
    const found = resolveParts(frame, parts);
    if (found !== NOT_FOUND) return valueOrNothing(found);
  }
  return undefined;
}
