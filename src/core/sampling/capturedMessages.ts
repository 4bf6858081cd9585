/**
 * `gen_ai.input.messages` as the GenAI semantic conventions record it — a JSON array of
 * `{role, parts: [{type: "text", content}]}` — and the older flat `{role, content}` form some SDKs
 * still write, reduced to role and text. Anything else (not JSON, not an array, no text) is null:
 * the span is counted as "input not readable", never guessed at.
 */

import { parseBoundedJson } from '../telemetry/importLines';

export interface CapturedMessage {
  role: string;
  content: string;
}

/** Captured inputs longer than this are not sampled (a test case is not a 1 MB document). */
export const MAX_CAPTURED_CHARS = 256 * 1024;

export function parseCapturedMessages(raw: string): CapturedMessage[] | null {
  if (raw.length > MAX_CAPTURED_CHARS) return null;
  const parsed = parseBoundedJson(raw);
  if (!parsed.ok) return null;
  const value = parsed.value;
  if (!Array.isArray(value) || value.length === 0) return null;
  const out: CapturedMessage[] = [];
  for (const m of value) {
    if (typeof m !== 'object' || m === null || typeof (m as { role?: unknown }).role !== 'string') return null;
    const { role, parts, content } = m as { role: string; parts?: unknown; content?: unknown };
    let text: string | null = null;
    if (Array.isArray(parts)) {
      const texts = parts.filter((p): p is { type: string; content: string } => typeof p === 'object' && p !== null && (p as { type?: unknown }).type === 'text' && typeof (p as { content?: unknown }).content === 'string').map((p) => p.content);
      text = texts.length ? texts.join('\n') : null;
    } else if (typeof content === 'string') text = content;
    else if (Array.isArray(content)) {
      // OpenAI's content parts: [{type: 'text', text}]
      const texts = content.filter((p): p is { text: string } => typeof p === 'object' && p !== null && typeof (p as { text?: unknown }).text === 'string').map((p) => p.text);
      text = texts.length ? texts.join('\n') : null;
    }
    if (text === null) return null;
    out.push({ role, content: text });
  }
  return out;
}
