/**
 * Mustache templates (Prompty `template.format: mustache`) rendered with mustache.js. Mustache is
 * logic-less and reads only the data given (JSON values, no functions), so it runs nothing from the
 * file; sections repeat over data, which is bounded by the file itself.
 */
import Mustache from 'mustache';
import type { EngineResult } from './engineResult';

type Token = [string, string, number, number, Token[]?];

export function renderMustache(template: string, data: Record<string, unknown>): EngineResult {
  try {
    const tokens = Mustache.parse(template) as unknown as Token[];
    const missing = new Set<string>();
    collectMissing(tokens, [data], missing);
    // No escaping: the text goes to a model, not into HTML.
    return { text: Mustache.render(template, structuredClone(data), {}, { escape: (value: string) => value }), missing: [...missing] };
  } catch (error) {
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
        const items = Array.isArray(value) ? value.slice(0, 1) : value && typeof value === 'object' ? [value] : value ? [undefined] : [];
        for (const item of items) collectMissing(children, item === undefined ? stack : [item, ...stack], missing);
      }
    }
  }
}

function resolve(name: string, stack: unknown[]): unknown {
  if (name === '.') return stack[0];
  const [head, ...rest] = name.split('.');
  for (const frame of stack) {
    if (frame && typeof frame === 'object' && Object.prototype.hasOwnProperty.call(frame, head!)) {
      let value: unknown = (frame as Record<string, unknown>)[head!];
      for (const part of rest) value = value && typeof value === 'object' ? (value as Record<string, unknown>)[part] : undefined;
      return value;
    }
  }
  return undefined;
}
