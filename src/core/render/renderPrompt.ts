/**
 * A parsed prompt and values for its variables → the messages its runtime would send, each traced
 * to the source it came from. Prompty and Dotprompt bodies go through their template engines whole
 * and are split into messages afterwards (Prompty: at role lines of the rendered text, as its
 * runtime does; Dotprompt: by the library itself), so loops and conditions produce what they
 * produce. Other formats render message by message (template.ts: gh-models' `{{var}}` rule, VS
 * Code variables, plain text).
 */
import type { OffsetRange, Prompt, PromptBody } from '../formats/model';
import { promptyRoleLines } from '../formats/prompty';
import { promptySpans, trimmedBody } from '../formats/promptyMessages';
import { trimmedRange as trimmed } from '../formats/roleMarkers';
import { renderTemplate } from '../formats/template';
import type { DotpromptResult } from './engineResult';
import type { RuntimeData } from './engineRequest';
import type { EngineResult } from './engineResult';
import { renderWithEngine } from './renderer';
import { canMark, sourceMark, stripMarks, type MarkAt } from './sentinels';

export interface RenderedMessage {
  role: string;
  name?: string;
  /** Exactly what is sent as the message's text. */
  content: string;
  /** The source section (role marker through content) this message came from. */
  range: OffsetRange;
  contentRange: OffsetRange;
  /** Media parts (Dotprompt `{{media}}`): sent, not counted as text. */
  mediaParts: number;
}

export interface UnresolvedVariable {
  name: string;
  /** Where the variable is used in the file. */
  ranges: OffsetRange[];
  /** Filled by VS Code when the prompt runs (`${input:x}`); other runtimes render a missing value empty. */
  runtime: boolean;
  /** What was sent in its place: the runtime's empty value, or the placeholder as written. */
  renderedAs: 'empty' | 'as-written';
}

export interface PromptRendering {
  messages: RenderedMessage[];
  unresolved: UnresolvedVariable[];
  /** The engine failed (syntax error, refused access, deadline): messages are the sections as written. */
  error?: string;
  /** True when a template engine rendered the body (false: no template tags, or per-message rendering). */
  engineRendered: boolean;
  /** Template logic the per-message renderer leaves as written (plain-text prompts). */
  unevaluatedLogic: boolean;
  /** Dotprompt schemas named by the file and registered by the application: rendered without them, not checked. */
  uncheckedSchemas?: string[];
}

const TEMPLATE_TAG = /\{\{|\{%|\{#/;

/** `runtimeData`: what an application adds to a Dotprompt render (context, history); none when counting. */
export async function renderPrompt(text: string, prompt: Prompt, vars: Record<string, unknown>, partials: Record<string, string> = {}, runtimeData?: RuntimeData): Promise<PromptRendering> {
  const values = { ...prompt.inputs, ...vars };
  const body = prompt.body;
  if (!body) return renderByMessage(text, prompt, values);
  if (!TEMPLATE_TAG.test(text.slice(body.bodyStart))) return asWritten(prompt);
  const sections = sectionsOf(text, body);
  return body.engine === 'dotprompt' ? renderDotpromptBody(text, body, sections, values, partials, prompt, runtimeData) : renderPromptyBody(text, body, sections, values, prompt);
}

/**
 * True when counting the prompt as runtimes send it needs a template engine or a file it names
 * (a template tag in its text, a sample file, a `${file:}` value): what Restricted Mode does not do.
 */
export function promptNeedsRendering(text: string, prompt: Prompt): boolean {
  if (TEMPLATE_TAG.test(text.slice(prompt.range.start, prompt.range.end))) return true;
  if (prompt.inputsFile) return true;
  return Object.values(prompt.inputs).some((value) => typeof value === 'string' && value.trim().startsWith('${file:'));
}

/** The prompt's messages as written: nothing rendered, nothing read (Restricted Mode; the fallback when an engine fails). */
export function renderedAsWritten(prompt: Prompt): PromptRendering {
  return asWritten(prompt);
}

/** The body's sections as written (also the fallback when an engine fails). */
function asWritten(prompt: Prompt, error?: string): PromptRendering {
  const messages = prompt.messages.map((message) => ({
    role: message.role,
    ...(message.name ? { name: message.name } : {}),
    content: message.template,
    range: message.range,
    contentRange: message.contentRange,
    mediaParts: 0,
  }));
  return { messages, unresolved: [], ...(error ? { error } : {}), engineRendered: false, unevaluatedLogic: false };
}

interface Section {
  role: string;
  name?: string;
  range: OffsetRange;
  contentRange: OffsetRange;
  /** Where the section's mark goes in the engine input (file offset). */
  markAt: number;
}

/** Section 0 is the text before the first marker; section i+1 starts at marker i. */
function sectionsOf(text: string, body: PromptBody): Section[] {
  const starts = [{ role: body.defaultRole, name: undefined as string | undefined, start: body.bodyStart, contentStart: body.bodyStart }];
  for (const marker of body.markers) starts.push({ role: marker.role, name: marker.name, start: marker.range.start, contentStart: marker.range.end });
  return starts.map((section, i) => {
    const end = starts[i + 1]?.start ?? text.length;
    const contentRange = trimmed(text, section.contentStart, end);
    return {
      role: section.role,
      ...(section.name ? { name: section.name } : {}),
      range: { start: i === 0 ? contentRange.start : section.start, end: Math.max(contentRange.end, section.contentStart) },
      contentRange,
      markAt: section.contentStart,
    };
  });
}

/** The engine input with a mark at each section start, so rendered text can be traced back. */
function markedSource(text: string, from: number, sections: Section[], to = text.length): string | undefined {
  if (!canMark(text)) return undefined;
  let out = '';
  let cursor = from;
  sections.forEach((section, i) => {
    if (section.markAt < from || section.markAt > to) return;
    // Text before any mark maps to section 0, so it needs none; one before a `---` would hide front matter from Dotprompt's anchored pattern.
    if (i === 0 && text.startsWith('---', section.markAt)) return;
    out += text.slice(cursor, section.markAt) + sourceMark(i);
    cursor = section.markAt;
  });
  return out + text.slice(cursor, to);
}

async function renderPromptyBody(text: string, body: PromptBody, sections: Section[], values: Record<string, unknown>, prompt: Prompt): Promise<PromptRendering> {
  // Prompty's loader keeps the body trimmed, and renders that.
  const trimmed = trimmedBody(text, body.sourceStart);
  const template = markedSource(text, trimmed.start, sections, trimmed.end) ?? text.slice(trimmed.start, trimmed.end);
  const answer = (await renderWithEngine({ engine: body.engine as 'jinja2' | 'mustache', template, data: values })) as EngineResult;
  if ('error' in answer) return asWritten(prompt, answer.error);
  const { text: rendered, marks } = stripMarks(answer.text);
  const messages: RenderedMessage[] = promptySpans(rendered, 0, rendered.length, promptyRoleLines(rendered), body.defaultRole).map((span) => {
    const section = sections[sectionAt(marks, span.marker?.end ?? span.content.start, !span.marker)] ?? sections[0]!;
    return { role: span.role, ...(span.name ? { name: span.name } : {}), content: rendered.slice(span.content.start, span.content.end), range: section.range, contentRange: section.contentRange, mediaParts: 0 };
  });
  return { messages, unresolved: unresolvedIn(text, body.bodyStart, answer.missing), engineRendered: true, unevaluatedLogic: false };
}

async function renderDotpromptBody(
  text: string,
  body: PromptBody,
  sections: Section[],
  values: Record<string, unknown>,
  partials: Record<string, string>,
  prompt: Prompt,
  runtimeData?: RuntimeData,
): Promise<PromptRendering> {
  const source = markedSource(text, body.sourceStart, sections) ?? text.slice(body.sourceStart);
  const answer = (await renderWithEngine({ engine: 'dotprompt', source, input: values, partials, ...(runtimeData ? { runtimeData } : {}) })) as DotpromptResult;
  if ('error' in answer) return asWritten(prompt, answer.error);
  const messages: RenderedMessage[] = [];
  let previous = 0;
  for (const message of answer.messages) {
    const { text: content, marks } = stripMarks(message.text);
    // A message's mark is the first one in it; a message with none (history, or text after a mark-less split) stays with the previous section.
    const index = marks[0]?.index ?? previous;
    previous = marks.at(-1)?.index ?? index;
    const section = sections[index] ?? sections[0]!;
    messages.push({ role: message.role, content, range: section.range, contentRange: section.contentRange, mediaParts: message.mediaParts });
  }
  return {
    messages,
    unresolved: unresolvedIn(text, body.bodyStart, answer.missing),
    engineRendered: true,
    unevaluatedLogic: false,
    ...(answer.uncheckedSchemas ? { uncheckedSchemas: answer.uncheckedSchemas } : {}),
  };
}

/** The section whose mark lies at (or, for text the template made, last before) a rendered offset. */
function sectionAt(marks: MarkAt[], offset: number, first: boolean): number {
  if (first) return 0;
  let index = 0;
  for (const mark of marks) {
    if (mark.offset > offset) break;
    index = mark.index;
  }
  return index;
}

function renderByMessage(text: string, prompt: Prompt, values: Record<string, unknown>): PromptRendering {
  const unresolved = new Map<string, UnresolvedVariable>();
  let unevaluatedLogic = false;
  const messages = prompt.messages.map((message) => {
    const rendered = renderTemplate(message.template, prompt.templateSyntax, values);
    unevaluatedLogic ||= rendered.unevaluatedLogic;
    for (const placeholder of rendered.unresolved) {
      const tag = message.template.slice(placeholder.start, placeholder.end);
      const range = message.contentIsVerbatim
        ? { start: message.contentRange.start + placeholder.start, end: message.contentRange.start + placeholder.end }
        : locateInSource(text, message.contentRange, tag);
      const entry = unresolved.get(placeholder.name) ?? { name: placeholder.name, ranges: [], runtime: placeholder.runtime, renderedAs: 'as-written' as const };
      entry.ranges.push(range);
      unresolved.set(placeholder.name, entry);
    }
    return { role: message.role, ...(message.name ? { name: message.name } : {}), content: rendered.text, range: message.range, contentRange: message.contentRange, mediaParts: 0 };
  });
  return { messages, unresolved: [...unresolved.values()], engineRendered: false, unevaluatedLogic };
}

/** Where each missing variable is used in the body: tags whose expression starts with its name. */
function unresolvedIn(text: string, bodyStart: number, names: string[]): UnresolvedVariable[] {
  return names.map((name) => {
    const ranges: OffsetRange[] = [];
    const escaped = name.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
    const use = new RegExp(`\\{\\{[{#^&/]?~?\\s*${escaped}(?![\\w-])[^}]*\\}?\\}\\}|\\{%[^%]*\\b${escaped}\\b[^%]*%\\}`, 'g');
    use.lastIndex = bodyStart;
    for (let match = use.exec(text); match; match = use.exec(text)) ranges.push({ start: match.index, end: match.index + match[0].length });
    return { name, ranges, runtime: false, renderedAs: 'empty' as const };
  });
}

function locateInSource(text: string, within: OffsetRange, tag: string): OffsetRange {
  const found = text.indexOf(tag, within.start);
  return found >= 0 && found < within.end ? { start: found, end: found + tag.length } : within;
}
