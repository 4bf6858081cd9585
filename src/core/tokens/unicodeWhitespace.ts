/**
 * `\s` as tiktoken means it. tiktoken's pre-tokeniser runs on Rust's fancy-regex, where `\s` is
 * Unicode's White_Space property; JavaScript's `\s` differs in two characters: it lacks U+0085
 * (NEXT LINE) and adds U+FEFF (the BOM). Text with either split into other pieces than tiktoken's
 * (found by the random-bytes generator: "\x85:d" was [:, d] instead of [:d]). The patterns are
 * rewritten with the White_Space set spelled out.
 */
const WHITE_SPACE = '\\t\\n\\v\\f\\r \\u0085\\u00a0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000';

/** The pattern source with every `\s` / `\S` replaced by Unicode White_Space (inside and outside classes). */
export function withUnicodeWhitespace(source: string): string {
  let out = '';
  let inClass = false;
  for (let i = 0; i < source.length; i++) {
    const c = source[i]!;
    if (c === '\\') {
      const next = source[i + 1] ?? '';
      i++;
      if (next === 's') out += inClass ? WHITE_SPACE : `[${WHITE_SPACE}]`;
      else if (next === 'S') {
        if (inClass) throw new Error('\\S inside a character class cannot be rewritten');
        out += `[^${WHITE_SPACE}]`;
      } else out += c + next;
      continue;
    }
    if (c === '[' && !inClass) inClass = true;
    else if (c === ']' && inClass) inClass = false;
    out += c;
  }
  return out;
}
