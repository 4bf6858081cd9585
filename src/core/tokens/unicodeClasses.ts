/**
 * `\p{L}`, `\p{N}`, `\p{M}`… as tiktoken means them. tiktoken's pre-tokeniser (Rust regex) has the
 * Unicode 16.0 tables; V8's follow the ICU it is built with (Unicode 15.1 in VS Code's Electron, 17.0
 * in Node 20.20). Code points assigned in 17.0 — CJK Extension J (U+323B0–U+3347F), Sidetic, Tolong
 * Siki, Beria Erfe, Tai Yo… — are letters to Node 20.20 and unassigned symbols to tiktoken, so
 * "\0\u{32556}ე" split into other pieces: 5 tokens where tiktoken gives 6; and 16.0's new letters
 * (Garay, Todhri, Cyrillic Tje…) are symbols to Electron's 15.1. Each `\p{K}` of a pattern becomes
 * `[[\p{K}--[excluded]]included]` with the lists of tiktokenClasses.ts (generated), the class
 * tiktoken has on any engine from Unicode 15.0 to 17.0 (a class-set expression: the `v` flag).
 */
import { TIKTOKEN_CLASS_DIFFERENCES } from './tiktokenClasses';

type ClassName = keyof typeof TIKTOKEN_CLASS_DIFFERENCES;

function isClassName(name: string): name is ClassName {
  return Object.hasOwn(TIKTOKEN_CLASS_DIFFERENCES, name);
}

/** The class `\p{name}` of tiktoken, as a `v`-flag character class. */
export function tiktokenClass(name: ClassName): string {
  const { excluded, included } = TIKTOKEN_CLASS_DIFFERENCES[name];
  const current = excluded ? `[\\p{${name}}--[${excluded}]]` : `\\p{${name}}`;
  return included ? `[${current}${included}]` : current;
}

/** Characters that a `v`-flag class needs escaped where a `u`-flag class takes them as they are. */
const V_CLASS_SYNTAX = new Set(['(', ')', '{', '}', '/', '|']);

/**
 * A `u`-flag pattern rewritten for the `v` flag with tiktoken's classes in place of every `\p{K}`
 * it uses (inside and outside character classes). Nested classes in the input are not expected
 * (the split patterns and unicodeWhitespace.ts's output have none).
 */
export function withTiktokenClasses(source: string): string {
  let out = '';
  let inClass = false;
  for (let i = 0; i < source.length; i++) {
    const c = source[i]!;
    if (c === '\\') {
      const next = source[i + 1] ?? '';
      if (next === 'p' && source[i + 2] === '{') {
        const close = source.indexOf('}', i + 3);
        const name = source.slice(i + 3, close);
        if (close < 0 || !isClassName(name)) throw new Error(`\\p{${name}} has no tiktoken class table`);
        out += tiktokenClass(name);
        i = close;
        continue;
      }
      out += c + next;
      i++;
      continue;
    }
    if (c === '[' && !inClass) inClass = true;
    else if (c === ']' && inClass) inClass = false;
    else if (inClass && V_CLASS_SYNTAX.has(c)) {
      out += `\\${c}`;
      continue;
    }
    out += c;
  }
  return out;
}

/** A regex of tiktoken's classes from a `u`-flag source such as `[\r\n\p{L}\p{N}]`. */
export function tiktokenRegExp(source: string, flags = ''): RegExp {
  return new RegExp(withTiktokenClasses(source), `${flags}v`);
}
