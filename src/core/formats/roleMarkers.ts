import type { OffsetRange, PromptDiagnostic, PromptMessage } from './model';

export const KNOWN_ROLES = ['system', 'user', 'assistant', 'developer', 'tool', 'function'] as const;

export interface RoleMarker {
  role: string;
  name?: string;
  /** The marker itself (line or tag), in file offsets. */
  range: OffsetRange;
  /** The marker sends messages of its own (Dotprompt `{{history}}`): an empty section after it is no mistake. */
  sendsMessages?: boolean;
}

export interface SplitOptions {
  /** Role of text that comes before the first marker. */
  defaultRole: string;
  diagnostics: PromptDiagnostic[];
  /** Text that renders to nothing (Handlebars comments): a section made only of it is empty. */
  rendersToNothing?: RegExp;
}

/**
 * Cuts a body into messages at the given markers. Content is trimmed as the runtimes do;
 * a marker with no content is reported, since it sends nothing.
 */
export function splitAtMarkers(text: string, bodyStart: number, bodyEnd: number, markers: RoleMarker[], options: SplitOptions): PromptMessage[] {
  const messages: PromptMessage[] = [];
  const sections: { role: string; name?: string; start: number; contentStart: number; end: number; marker?: OffsetRange; sendsMessages?: boolean }[] = [];
  let cursor = bodyStart;
  let current: (typeof sections)[number] = { role: options.defaultRole, start: bodyStart, contentStart: bodyStart, end: bodyEnd };
  for (const marker of markers) {
    current.end = marker.range.start;
    sections.push(current);
    cursor = marker.range.end;
    current = { role: marker.role, name: marker.name, start: marker.range.start, contentStart: cursor, end: bodyEnd, marker: marker.range, sendsMessages: marker.sendsMessages };
  }
  sections.push(current);

  for (const section of sections) {
    const content = trimmedRange(text, section.contentStart, section.end);
    if (content.start === content.end || isNothing(text.slice(content.start, content.end), options.rendersToNothing)) {
      if (section.marker && !section.sendsMessages) {
        options.diagnostics.push({
          range: section.marker,
          severity: 'warning',
          code: 'empty-message',
          message: `The ${section.role} message is empty; it sends nothing. Add content or remove the marker.`,
        });
      }
      continue;
    }
    messages.push({
      role: section.role,
      ...(section.name ? { name: section.name } : {}),
      template: text.slice(content.start, content.end),
      range: { start: section.marker ? section.start : content.start, end: content.end },
      contentRange: content,
      contentIsVerbatim: true,
    });
  }
  return messages;
}

function isNothing(content: string, rendersToNothing: RegExp | undefined): boolean {
  return rendersToNothing !== undefined && content.replace(rendersToNothing, '').trim() === '';
}

/** The range without surrounding whitespace. */
export function trimmedRange(text: string, start: number, end: number): OffsetRange {
  let s = start;
  let e = end;
  while (s < e && /\s/.test(text[s]!)) s++;
  while (e > s && /\s/.test(text[e - 1]!)) e--;
  return { start: s, end: e };
}

/** Levenshtein distance, bounded: enough to spot `sytem:` as a misspelt role. */
export function editDistance(a: string, b: string): number {
  const row = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i++) {
    let previous = row[0]!;
    row[0] = i;
    for (let j = 1; j <= b.length; j++) {
      const saved = row[j]!;
      row[j] = Math.min(row[j]! + 1, row[j - 1]! + 1, previous + (a[i - 1] === b[j - 1] ? 0 : 1));
      previous = saved;
    }
  }
  return row[b.length]!;
}

/** The known role a word was probably meant to be, if it is a near miss (not a plural or the role itself). */
export function nearMissRole(word: string): string | undefined {
  const lower = word.toLowerCase();
  if (lower.length < 3) return undefined;
  for (const role of KNOWN_ROLES) {
    if (lower === role || lower === `${role}s`) return undefined;
  }
  for (const role of KNOWN_ROLES) {
    const distance = editDistance(lower, role);
    if (distance > 0 && distance <= (role.length > 4 ? 2 : 1)) return role;
  }
  return undefined;
}
