/**
 * Messages as Prompty's runtime splits a body (its v2 chat parser, `parsers/prompty` in the Python and
 * TypeScript runtimes): the body, trimmed, is read line by line; a role line starts a message, and
 * every line after it up to the next role line is that message's content. A role line followed by at
 * least one line is a message even when those lines are blank — sent with empty content; a role line
 * followed at once by another (or by the end) sends nothing. Lines before the first role line are a
 * system message. Content keeps its spaces; only line breaks at its ends are dropped.
 */
import type { OffsetRange } from './model';
import type { RoleMarker } from './roleMarkers';

export interface PromptySpan {
  role: string;
  name?: string;
  /** The role line; none for the text before the first one. */
  marker?: OffsetRange;
  /** The content, without the line breaks at its ends (empty for a message sent empty). */
  content: OffsetRange;
}

/** `from`–`to` is the trimmed body; `markers` are its role lines, in order. */
export function promptySpans(text: string, from: number, to: number, markers: readonly RoleMarker[], defaultRole: string): PromptySpan[] {
  const inside = markers.filter((m) => m.range.start >= from && m.range.end <= to);
  const spans: PromptySpan[] = [];
  const lead = text.slice(from, inside[0]?.range.start ?? to);
  // The body's lines before the first role line (the line break ending the last of them belongs to it).
  const leadLines = inside.length > 0 ? count(lead, '\n') : 1;
  if (leadLines > 0 && (inside.length > 0 || lead.length > 0)) spans.push({ role: defaultRole, content: withoutEndBreaks(text, from, from + lead.length) });
  inside.forEach((marker, i) => {
    const next = inside[i + 1];
    const end = next?.range.start ?? to;
    const breaks = count(text.slice(marker.range.end, end), '\n');
    const lines = next ? breaks - 1 : breaks;
    if (lines < 1) return;
    spans.push({ role: marker.role, ...(marker.name ? { name: marker.name } : {}), marker: marker.range, content: withoutEndBreaks(text, marker.range.end, end) });
  });
  return spans;
}

/** The body without the whitespace around it, as Prompty's loader keeps it. */
export function trimmedBody(text: string, from: number, to = text.length): OffsetRange {
  let start = from;
  let end = to;
  while (start < end && /\s/.test(text[start]!)) start++;
  while (end > start && /\s/.test(text[end - 1]!)) end--;
  return { start, end };
}

function withoutEndBreaks(text: string, start: number, end: number): OffsetRange {
  let s = start;
  let e = end;
  while (s < e && (text[s] === '\n' || text[s] === '\r')) s++;
  while (e > s && (text[e - 1] === '\n' || text[e - 1] === '\r')) e--;
  return { start: s, end: e };
}

function count(text: string, char: string): number {
  let n = 0;
  for (let i = text.indexOf(char); i >= 0; i = text.indexOf(char, i + 1)) n++;
  return n;
}
