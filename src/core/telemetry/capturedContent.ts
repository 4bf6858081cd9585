/**
 * The messages a model call sent, as each source writes them (conventions.ts ContentField), reduced to
 * role and text: GenAI `{role, parts:[{type:'text', content}]}`, the flat `{role, content}` (a string or
 * OpenAI's `[{type:'text', text}]`), a system-instructions array, flattened `PREFIX.N.role` attributes,
 * Langfuse's `{messages:[…]}` input. Anything else is null — never guessed at. Values over the cap are
 * not read (a test case or a content match is not a 1 MB document).
 */
import type { AnswerField, ContentField } from './conventions';
import { parseBoundedJson } from './importLines';

export interface CapturedMessage {
  role: string;
  content: string;
}

/** Captured text longer than this is not read. */
export const MAX_CAPTURED_CHARS = 256 * 1024;
/** Flattened messages read per span at most (`PREFIX.0` … `PREFIX.199`). */
const MAX_INDEXED_MESSAGES = 200;

/** Text of a part list: GenAI parts (`content`) and OpenAI's (`text`); null when there is no text part. */
function partsText(parts: readonly unknown[]): string | null {
  const texts: string[] = [];
  for (const p of parts) {
    if (typeof p === 'string') texts.push(p);
    else if (typeof p === 'object' && p !== null) {
      const part = p as { type?: unknown; content?: unknown; text?: unknown };
      if (part.type !== undefined && part.type !== 'text') continue;
      if (typeof part.content === 'string') texts.push(part.content);
      else if (typeof part.text === 'string') texts.push(part.text);
    }
  }
  return texts.length ? texts.join('\n') : null;
}

/** One message object in any of the forms above, or null. */
function messageOf(value: unknown): CapturedMessage | null {
  if (typeof value !== 'object' || value === null) return null;
  const { role, parts, content } = value as { role?: unknown; parts?: unknown; content?: unknown };
  if (typeof role !== 'string') return null;
  const text = Array.isArray(parts) ? partsText(parts) : typeof content === 'string' ? content : Array.isArray(content) ? partsText(content) : null;
  return text === null ? null : { role, content: text };
}

/** Production's text, parsed within the cap and with bounded nesting (a 14 MiB line of nested arrays is refused, not parsed). */
function parseJson(raw: string): unknown {
  if (raw.length > MAX_CAPTURED_CHARS) return undefined;
  const parsed = parseBoundedJson(raw);
  return parsed.ok ? parsed.value : undefined;
}

/** A JSON array of messages; null unless every message is readable. */
export function parseMessagesJson(raw: string): CapturedMessage[] | null {
  const value = parseJson(raw);
  if (!Array.isArray(value) || value.length === 0) return null;
  const out: CapturedMessage[] = [];
  for (const m of value) {
    const message = messageOf(m);
    if (!message) return null;
    out.push(message);
  }
  return out;
}

/** The content fields of a span (or log record), in the row's order; the first field that reads wins for each kind. */
export function capturedMessages(fields: readonly ContentField[], attributes: ReadonlyMap<string, unknown>): CapturedMessage[] | null {
  let system: CapturedMessage | null = null;
  let messages: CapturedMessage[] | null = null;
  for (const field of fields) {
    if (field.kind === 'system-instructions') {
      const raw = attributes.get(field.attribute);
      if (typeof raw !== 'string' || system) continue;
      const value = parseJson(raw);
      const text = Array.isArray(value) ? partsText(value) : typeof value === 'string' ? value : value === undefined && raw.length <= MAX_CAPTURED_CHARS ? raw : null;
      if (text !== null) system = { role: 'system', content: text };
      continue;
    }
    if (messages) continue;
    if (field.kind === 'indexed') messages = indexedMessages(field, attributes);
    else {
      const raw = attributes.get(field.attribute);
      if (typeof raw !== 'string') continue;
      if (field.kind === 'json-messages') messages = parseMessagesJson(raw);
      else {
        const value = parseJson(raw);
        const list = Array.isArray(value) ? value : typeof value === 'object' && value !== null ? (value as { messages?: unknown }).messages : undefined;
        messages = Array.isArray(list) ? parseMessagesJson(JSON.stringify(list)) : null;
      }
    }
  }
  if (!system) return messages;
  // The system instructions are sent first; a message list that has its own system message keeps it.
  return messages?.[0]?.role === 'system' ? messages : [system, ...(messages ?? [])];
}

function indexedMessages(field: Extract<ContentField, { kind: 'indexed' }>, attributes: ReadonlyMap<string, unknown>): CapturedMessage[] | null {
  const out: CapturedMessage[] = [];
  for (let i = 0; i < MAX_INDEXED_MESSAGES; i++) {
    const role = attributes.get(`${field.prefix}${i}.${field.role}`);
    const content = attributes.get(`${field.prefix}${i}.${field.content}`);
    if (typeof role !== 'string') break;
    if (typeof content !== 'string' || content.length > MAX_CAPTURED_CHARS) return null;
    out.push({ role, content });
  }
  return out.length ? out : null;
}

/**
 * The answer a call received, from the row's answer fields: the last assistant message's text (GenAI
 * `gen_ai.output.messages`, flattened `PREFIX.N`, Langfuse's output as messages, one message or a string),
 * or the attribute's text itself (the AI SDK's `ai.response.text`). Null when none reads.
 */
export function capturedAnswer(fields: readonly AnswerField[], attributes: ReadonlyMap<string, unknown>): string | null {
  for (const field of fields) {
    if (field.kind === 'system-instructions') continue;
    if (field.kind === 'indexed') {
      const text = lastAnswer(indexedMessages(field, attributes));
      if (text !== null) return text;
      continue;
    }
    const raw = attributes.get(field.attribute);
    if (typeof raw !== 'string' || raw.length > MAX_CAPTURED_CHARS) continue;
    if (field.kind === 'text') return raw;
    const value = parseJson(raw);
    // Langfuse writes a streamed answer's text as it is, not as JSON.
    if (field.kind === 'json-input' && (typeof value === 'string' || value === undefined)) return typeof value === 'string' ? value : raw;
    const list = Array.isArray(value) ? value : typeof value === 'object' && value !== null ? ((value as { messages?: unknown }).messages ?? [value]) : undefined;
    const text = Array.isArray(list) ? lastAnswer(list.map(messageOf).filter((m): m is CapturedMessage => m !== null)) : null;
    if (text !== null) return text;
  }
  return null;
}

function lastAnswer(messages: readonly CapturedMessage[] | null): string | null {
  const answers = (messages ?? []).filter((m) => m.role === 'assistant' || m.role === 'model');
  return answers.at(-1)?.content ?? null;
}

/** The GenAI JSON form (what `gen_ai.input.messages` holds): how every source's messages are handed on. */
export function toGenAiJson(messages: readonly CapturedMessage[]): string {
  return JSON.stringify(messages.map((m) => ({ role: m.role, parts: [{ type: 'text', content: m.content }] })));
}
