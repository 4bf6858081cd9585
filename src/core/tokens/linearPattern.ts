/**
 * A linear-time stand-in for a JavaScript regular expression: the same matches, found by RE2JS (RE2's
 * automaton ported to JavaScript), so no text makes it backtrack for ever. It answers the four string
 * methods a tokenizer calls with a global pattern — match, matchAll, split and replaceAll — as they
 * answer with the RegExp itself. `linearPattern` refuses a source whose meaning RE2 would change
 * (lookaround, back-references, `\s`, an empty class): those keep the backtracking engine, off-thread.
 */
import type { RE2JS } from 're2js';

let loaded: typeof import('re2js') | undefined;
/** RE2JS on first use: loading it takes ~14 ms, which the language server's start does not pay for tokenizers that never need it. */
const re2js = (): typeof import('re2js') => (loaded ??= require('re2js') as typeof import('re2js'));

export class LinearPattern {
  /** What String.prototype.matchAll and replaceAll check before calling the methods below. */
  readonly flags = 'gu';
  readonly global = true;

  constructor(
    readonly source: string,
    private readonly program: RE2JS,
  ) {}

  /** Successive matches as a global RegExp finds them: after an empty match the search moves on one code point. */
  private *matches(text: string): Generator<{ start: number; end: number; captures: (string | undefined)[] }> {
    const matcher = this.program.matcher(text);
    let from = 0;
    while (from <= text.length && matcher.find(from)) {
      const start = matcher.start();
      const end = matcher.end();
      const captures: (string | undefined)[] = [];
      for (let group = 1; group <= matcher.groupCount(); group++) captures.push(matcher.group(group) ?? undefined);
      yield { start, end, captures };
      from = end > start ? end : nextCodePoint(text, end);
    }
  }

  [Symbol.match](text: string): string[] | null {
    const found = [...this.matches(text)].map((m) => text.slice(m.start, m.end));
    return found.length > 0 ? found : null;
  }

  *[Symbol.matchAll](text: string): Generator<RegExpMatchArray> {
    for (const m of this.matches(text)) yield Object.assign([text.slice(m.start, m.end), ...m.captures], { index: m.start, input: text }) as RegExpMatchArray;
  }

  /** Only a plain replacement: one with `$` patterns never reaches here (tokenizerPatterns.ts keeps it off-thread). */
  [Symbol.replace](text: string, replacement: unknown): string {
    if (typeof replacement !== 'string' || replacement.includes('$')) throw new TypeError('a linear pattern replaces with plain text only');
    let out = '';
    let last = 0;
    for (const m of this.matches(text)) {
      out += text.slice(last, m.start) + replacement;
      last = m.end;
    }
    return out + text.slice(last);
  }

  /** String.prototype.split's steps (ECMA-262 RegExp.prototype[@@split]), captures included, with a leftmost search for its sticky one. */
  [Symbol.split](text: string): (string | undefined)[] {
    if (text.length === 0) return this.program.matcher(text).find(0) ? [] : [text];
    const parts: (string | undefined)[] = [];
    const matcher = this.program.matcher(text);
    let piece = 0;
    let from = 0;
    while (from < text.length && matcher.find(from)) {
      const start = matcher.start();
      const end = Math.min(matcher.end(), text.length);
      if (start >= text.length) break;
      if (end === piece) {
        from = nextCodePoint(text, start);
        continue;
      }
      parts.push(text.slice(piece, start));
      for (let group = 1; group <= matcher.groupCount(); group++) parts.push(matcher.group(group) ?? undefined);
      piece = end;
      from = end;
    }
    parts.push(text.slice(piece));
    return parts;
  }
}

function nextCodePoint(text: string, index: number): number {
  const code = text.charCodeAt(index);
  return code >= 0xd800 && code <= 0xdbff && index + 1 < text.length ? index + 2 : index + 1;
}

/**
 * The stand-in for a `u`-flag JavaScript source, or null where RE2 cannot run it with the same
 * meaning. The source is a tokenizer library's translation of Oniguruma, which already spells `\s`,
 * `\w`, `\b` and `.` out as Unicode classes and lookaround.
 */
export function linearPattern(source: string): LinearPattern | null {
  const translated = re2Source(source);
  if (translated === null) return null;
  try {
    const { RE2JS } = re2js();
    return new LinearPattern(source, RE2JS.compile(RE2JS.translateRegExp(translated)));
  } catch {
    return null; // lookaround, or syntax RE2 lacks
  }
}

/**
 * The lookarounds the library writes for Oniguruma's anchors, and the RE2 anchors that mean the same
 * (Oniguruma's `^` and `$` are line anchors: RE2's in multi-line mode).
 */
const ANCHORS: [string, string][] = [
  [String.raw`(?:(?=\n)|(?![\s\S]))`, '(?m:$)'],
  [String.raw`(?:(?<![\s\S])|(?<=\n))`, '(?m:^)'],
  [String.raw`(?<![\s\S])`, String.raw`\A`],
  [String.raw`(?![\s\S])`, String.raw`\z`],
];

/** `.` spelled as JavaScript means it; null for what RE2 reads otherwise: back-references (octal there), `\s`/`\S` (ASCII there), `\b`, `[]`, `[^]`. */
function re2Source(source: string): string | null {
  let out = '';
  let inClass = false;
  for (let i = 0; i < source.length; i++) {
    const ch = source[i]!;
    const anchor = inClass ? undefined : ANCHORS.find(([lookaround]) => source.startsWith(lookaround, i));
    if (anchor) {
      out += anchor[1];
      i += anchor[0].length - 1;
    } else if (ch === '\\') {
      const next = source[i + 1] ?? '';
      if (/[1-9kbBsS]/.test(next)) return null;
      out += ch + next;
      i++;
    } else if (inClass) {
      if (ch === ']') inClass = false;
      out += ch;
    } else if (ch === '[') {
      if (source.startsWith('[]', i) || source.startsWith('[^]', i)) return null;
      inClass = true;
      out += ch;
      if (source[i + 1] === '^') out += source[++i];
    } else if (ch === '.') {
      out += '[^\\n\\r\\u2028\\u2029]';
    } else {
      out += ch;
    }
  }
  return out;
}
