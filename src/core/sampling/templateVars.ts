/**
 * A production request's captured messages mapped back to the prompt's template variables: each of
 * the prompt's messages is rendered with a sentinel per variable, the literal text between the
 * sentinels must then match the captured message of the same role exactly (whitespace at the ends
 * aside), and what stands where a sentinel stood is that variable's value. When a template has logic
 * (`{% if %}`, `{{#each}}`), nested paths (`a.b`), or a message does not match, null.
 *
 * What a sampled case keeps (sampledInputs): the variables when they can be read; else production's
 * turns without its instructions (system/developer messages), which the runner sends after the current
 * prompt's own instructions — a case from an older version never carries that version's system text.
 */
import { INSTRUCTION_ROLES } from '../adherence/caseTurns';
import { renderTemplate } from '../formats/template';
import type { Prompt } from '../formats/model';
import type { CapturedMessage } from '../telemetry/capturedContent';
import { matchLiterals } from '../text/literalPattern';

const sentinel = (i: number) => `\u0000PI${i}\u0000`;
const SENTINEL = /\u0000PI(\d+)\u0000/g;
const SIMPLE_NAME = /^[A-Za-z_][\w-]*$/;

/** What a sampled case is run with: the template's variables, or production's turns after the current instructions. */
export type SampledInputs = { vars: Record<string, string> } | { turns: CapturedMessage[] };

/**
 * The variables when every message matches; when only the instructions differ (an older system text) and
 * the turns give every variable the current prompt uses, those variables; else the turns as sent.
 */
export function sampledInputs(prompt: Prompt, messages: readonly CapturedMessage[]): SampledInputs {
  const vars = varsFromMessages(prompt, messages);
  if (vars) return { vars };
  const turns = messages.filter((m) => !INSTRUCTION_ROLES.has(m.role));
  const turnTemplates = prompt.messages.filter((m) => !INSTRUCTION_ROLES.has(m.role));
  if (turnTemplates.length < prompt.messages.length) {
    const fromTurns = varsFromMessages({ ...prompt, messages: turnTemplates }, turns);
    const needed = prompt.messages.flatMap((m) => renderTemplate(m.template, prompt.templateSyntax, {}).unresolved.filter((p) => !p.runtime).map((p) => p.name));
    if (fromTurns && needed.every((name) => Object.hasOwn(fromTurns, name))) return { vars: fromTurns };
  }
  return { turns };
}

export function varsFromMessages(prompt: Prompt, messages: readonly CapturedMessage[]): Record<string, string> | null {
  // A Map: a variable named `constructor` or `__proto__` is a name like any other here.
  const vars = new Map<string, string>();
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
      for (const [k, v] of values) {
        if (vars.has(k) && vars.get(k) !== v) return null; // a variable used twice must have one value
        vars.set(k, v);
      }
      used = i + 1;
      matched = true;
      break;
    }
    if (!matched) return null;
  }
  return vars.size > 0 ? Object.fromEntries(vars) : null;
}

/**
 * The template's variables read from the text (text/literalPattern.ts: linear time, leftmost pieces).
 * A variable used twice is found at its first place and must then stand, unchanged, at the later ones
 * (otherwise null, and the case keeps its messages).
 */
export function matchTemplate(template: string, text: string, names: readonly string[]): Map<string, string> | null {
  const literals: string[] = [];
  const slots: string[] = [];
  let last = 0;
  for (const m of template.matchAll(SENTINEL)) {
    literals.push(template.slice(last, m.index));
    slots.push(names[Number(m[1])]!);
    last = m.index! + m[0].length;
  }
  literals.push(template.slice(last));
  const gaps = matchLiterals(literals, text, (gap, earlier) => {
    const first = slots.indexOf(slots[gap]!);
    return first < gap ? earlier[first] : undefined;
  });
  return gaps && new Map(slots.map((name, i) => [name, gaps[i]!]));
}
