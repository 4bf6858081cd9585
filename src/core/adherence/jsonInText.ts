/**
 * JSON in a model's answer, in linear time. The answer comes from an endpoint we do not control: the
 * old search re-scanned the rest of the text from every `{` and `[` (200,000 `{` never finished).
 * Here each bracket's partner is found once: a scan from one opening bracket jumps over every nested
 * bracket whose partner is already known, so the scans together stay linear in the text; a work
 * budget bounds what is left (candidates inside strings, failed parses of long spans) and, when it
 * runs out, the search says so instead of guessing.
 */

export type JsonSearch = { found: true; value: unknown } | { found: false; exhausted: boolean };

/** Scan steps plus characters handed to JSON.parse, per character of text (plus a constant). */
const WORK_PER_CHAR = 8;
const WORK_BASE = 1_000_000;

const UNKNOWN = -2;
const UNCLOSED = -1;

export function parseJson(text: string): { ok: true; value: unknown } | { ok: false } {
  try {
    return { ok: true, value: JSON.parse(text) };
  } catch {
    return { ok: false };
  }
}

/** The body of a ```json fence around the whole answer, else the answer trimmed. */
export function stripFence(text: string): string {
  const trimmed = text.trim();
  if (!trimmed.startsWith('```') || !trimmed.endsWith('```')) return trimmed;
  const firstNewline = trimmed.indexOf('\n');
  if (firstNewline < 0) return trimmed;
  const info = trimmed.slice(3, firstNewline).trim();
  if (info !== '' && info.toLowerCase() !== 'json') return trimmed;
  return trimmed.slice(firstNewline + 1, trimmed.length - 3).trim();
}

/**
 * The first JSON object or array embedded in text: for each `{` or `[` in order, its partner
 * bracket (counted outside strings, as the old search did) and whether that span parses.
 */
export function searchJson(text: string): JsonSearch {
  const n = text.length;
  let budget = WORK_PER_CHAR * n + WORK_BASE;
  const partner = new Int32Array(n).fill(UNKNOWN);
  const stack: number[] = [];

  /** Fills `partner` for `start` and every bracket nested in it that the scan passes outside strings. */
  const scanFrom = (start: number): boolean => {
    stack.length = 0;
    stack.push(start);
    let inString = false;
    let i = start + 1;
    while (i < n && stack.length > 0) {
      if (--budget < 0) return false;
      const c = text.charCodeAt(i);
      if (inString) {
        if (c === 0x5c /* \ */) i++;
        else if (c === 0x22 /* " */) inString = false;
      } else if (c === 0x22) inString = true;
      else if (c === 0x7b /* { */ || c === 0x5b /* [ */) {
        const known = partner[i]!;
        if (known === UNCLOSED) break; // an unclosed bracket inside leaves every enclosing one unclosed
        if (known >= 0) {
          i = known + 1;
          continue;
        }
        stack.push(i);
      } else if (c === 0x7d /* } */ || c === 0x5d /* ] */) partner[stack.pop()!] = i;
      i++;
    }
    for (const open of stack) partner[open] = UNCLOSED;
    return true;
  };

  for (let start = 0; start < n; start++) {
    const c = text.charCodeAt(start);
    if (c !== 0x7b && c !== 0x5b) continue;
    if (partner[start] === UNKNOWN && !scanFrom(start)) return { found: false, exhausted: true };
    const end = partner[start]!;
    if (end < 0) continue;
    budget -= end - start + 1;
    if (budget < 0) return { found: false, exhausted: true };
    const parsed = parseJson(text.slice(start, end + 1));
    if (parsed.ok) return { found: true, value: parsed.value };
  }
  return { found: false, exhausted: false };
}
