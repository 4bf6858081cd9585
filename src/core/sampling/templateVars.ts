/**
 * A production request's captured messages mapped back to the prompt's template variables: each of
 * the prompt's messages is rendered with a sentinel per variable, the literal text between the
 * sentinels must then match the captured message of the same role exactly (whitespace at the ends
 * aside), and what stands where a sentinel stood is that variable's value. When a template has logic
 * (`{% if %}`, `{{#each}}`), nested paths (`a.b`), or a message does not match, null: the case keeps
 * the messages as they were sent, and says so.
 */
import { renderTemplate } from '../formats/template';
import type { Prompt } from '../formats/model';
import type { CapturedMessage } from '../telemetry/capturedContent';

const sentinel = (i: number) => `\u0000PI${i}\u0000`;
const SENTINEL = /\u0000PI(\d+)\u0000/g;
const SIMPLE_NAME = /^[A-Za-z_][\w-]*$/;

export function varsFromMessages(prompt: Prompt, messages: readonly CapturedMessage[]): Record<string, string> | null {
  const vars: Record<string, string> = {};
  let used = 0;
  for (const message of prompt.messages) {
    const names = [...new Set(renderTemplate(message.template, prompt.templateSyntax, {}).unresolved.filter((p) => !p.runtime).map((p) => p.name))];
    if (names.some((n) => !SIMPLE_NAME.test(n))) return null;
    const rendered = renderTemplate(message.template, prompt.templateSyntax, Object.fromEntries(names.map((n, i) => [n, sentinel(i)])));
    if (rendered.unevaluatedLogic || rendered.unresolved.length > 0) return null;
    const template = rendered.text.trim();
    // The captured message of this role that matches, in order (the template's first message of a role is the first sent).
    const candidates = messages.slice(used).map((m, i) => ({ m, i: i + used })).filter(({ m }) => m.role === message.role);
    let matched = false;
    for (const { m, i } of candidates) {
      const values = matchTemplate(template, m.content.trim(), names);
      if (!values) continue;
      for (const [k, v] of Object.entries(values)) {
        if (k in vars && vars[k] !== v) return null; // a variable used twice must have one value
        vars[k] = v;
      }
      used = i + 1;
      matched = true;
      break;
    }
    if (!matched) return null;
  }
  return Object.keys(vars).length > 0 ? vars : null;
}

/**
 * The template's literal pieces found in the text in linear time, without a regular expression: the
 * first piece must start the text and the last must end it; each piece between is taken at its first
 * occurrence after the previous one — the leftmost-shortest reading a lazy pattern would give, and a
 * match exists exactly when this finds one. A variable used twice is found at its first place and
 * must then stand, unchanged, at the later ones (no backtracking: otherwise null, and the case keeps
 * its messages). Work is bounded by the text's length times the number of pieces.
 */
export function matchTemplate(template: string, text: string, names: readonly string[]): Record<string, string> | null {
  const literals: string[] = [];
  const slots: string[] = [];
  let last = 0;
  for (const m of template.matchAll(SENTINEL)) {
    literals.push(template.slice(last, m.index));
    slots.push(names[Number(m[1])]!);
    last = m.index! + m[0].length;
  }
  literals.push(template.slice(last));
  const head = literals[0]!;
  const tail = literals[literals.length - 1]!;
  if (slots.length === 0) return text === head ? {} : null;
  if (!text.startsWith(head) || text.length < head.length + tail.length || !text.endsWith(tail)) return null;
  const end = text.length - tail.length;
  const values: Record<string, string> = {};
  let at = head.length;
  for (let i = 0; i < slots.length; i++) {
    const name = slots[i]!;
    const next = i + 1 < slots.length ? literals[i + 1]! : null;
    const known = Object.hasOwn(values, name) ? values[name]! : undefined;
    if (known !== undefined) {
      // A repeated variable: its value must stand here, then the next piece right after it.
      if (!text.startsWith(known, at) || at + known.length > end) return null;
      at += known.length;
      if (next === null) {
        if (at !== end) return null;
      } else {
        if (!text.startsWith(next, at) || at + next.length > end) return null;
        at += next.length;
      }
      continue;
    }
    if (next === null) {
      values[name] = text.slice(at, end);
      at = end;
      continue;
    }
    const found = text.indexOf(next, at);
    if (found < 0 || found + next.length > end) return null;
    values[name] = text.slice(at, found);
    at = found + next.length;
  }
  return at === end ? values : null;
}
