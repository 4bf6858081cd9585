/**
 * Versions by content: a prompt at a revision, rendered with a marker in place of each variable, is the
 * literal text between the variables; a production call's messages are that revision's when each
 * message of the template is found, in order and of the same role, with its literals in order. The
 * match is linear in the message's length (text/literalPattern.ts: leftmost literals, no regular
 * expression, no backtracking).
 */
import { createHash } from 'node:crypto';
import { renderTemplate } from '../formats/template';
import type { Prompt } from '../formats/model';
import { matchLiterals } from '../text/literalPattern';
import type { CapturedMessage } from './capturedContent';

export interface MessageTemplate {
  role: string;
  /** The text between the variables, trimmed at the ends; null when the template has logic (it matches any text). */
  literals: string[] | null;
}

export interface PromptTemplate {
  messages: MessageTemplate[];
  /** Literal characters in all: a template of variables alone is no evidence of anything. */
  literalChars: number;
  /** SHA-256 of the system message when it has no variables (what an app that logs no text can send). */
  systemSha256: string | null;
}

/** Below this many literal characters a template is not matched (`{{question}}` alone matches every call). */
const MIN_LITERAL_CHARS = 16;

const MARK = '\u0000PI\u0000';

/** Path segments that would reach an object's prototype: a repository's variable names never get to write there. */
const PROTOTYPE_KEYS: ReadonlySet<string> = new Set(['__proto__', 'constructor', 'prototype']);

/**
 * A nested object with the marker at each variable's path (`a.b` → {a: {b: MARK}}). The names come from a
 * repository's prompt (any revision of it): objects without a prototype, and a path through a prototype
 * key is not marked (the template then has an unresolved variable and matches nothing by its literals).
 */
function markerVars(names: readonly string[]): Record<string, unknown> {
  const vars: Record<string, unknown> = Object.create(null);
  for (const name of names) {
    const path = name.split(/\.|\[(\d+)\]/).filter((p) => p !== undefined && p !== '');
    if (path.some((key) => PROTOTYPE_KEYS.has(key))) continue;
    let at = vars;
    path.forEach((key, i) => {
      if (i === path.length - 1) at[key] = MARK;
      else at = (at[key] = typeof at[key] === 'object' && at[key] !== null ? at[key] : Object.create(null)) as Record<string, unknown>;
    });
  }
  return vars;
}

export function promptTemplate(prompt: Prompt): PromptTemplate {
  const messages: MessageTemplate[] = [];
  let literalChars = 0;
  let systemSha256: string | null = null;
  for (const message of prompt.messages) {
    const names = renderTemplate(message.template, prompt.templateSyntax, {}).unresolved.filter((p) => !p.runtime).map((p) => p.name);
    const rendered = renderTemplate(message.template, prompt.templateSyntax, markerVars(names));
    if (rendered.unevaluatedLogic || rendered.unresolved.length > 0) {
      messages.push({ role: message.role, literals: null });
      continue;
    }
    const literals = rendered.text.trim().split(MARK);
    literals[0] = literals[0]!.trimStart();
    literalChars += literals.reduce((n, l) => n + l.trim().length, 0);
    if (message.role === 'system' && systemSha256 === null && literals.length === 1) systemSha256 = sha256(literals[0]!);
    messages.push({ role: message.role, literals });
  }
  return { messages, literalChars, systemSha256 };
}

export function sha256(text: string): string {
  return createHash('sha256').update(text.trim()).digest('hex');
}

/** The template's messages found in the captured ones, in order (other messages, e.g. earlier turns, may lie between). */
export function matchesTemplate(template: PromptTemplate, captured: readonly CapturedMessage[]): boolean {
  if (template.literalChars < MIN_LITERAL_CHARS) return false;
  let next = 0;
  for (const message of template.messages) {
    let found = false;
    while (next < captured.length && !found) {
      const candidate = captured[next++]!;
      found = candidate.role === message.role && (message.literals === null || matchLiterals(message.literals, candidate.content.trim()) !== null);
    }
    if (!found) return false;
  }
  return true;
}
