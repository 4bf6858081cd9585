/**
 * Text matched against a pattern of literal pieces with a gap between each two (a template's text
 * around its variables), in linear time, without a regular expression: the first piece must start the
 * text and the last must end it; each piece between is taken at its first occurrence after the one
 * before — the leftmost-shortest reading a lazy pattern would give, and for gaps that take any text a
 * match exists exactly when this finds one. A gap whose text is known in advance (a variable used a
 * second time) must stand there unchanged, with the next piece right after it; no backtracking.
 * Work is bounded by the text's length times the number of pieces.
 */

/**
 * The gaps' texts, or null when the text does not fit. `knownGap(i, earlier)` may say what gap i must
 * be, given the gaps found before it.
 */
export function matchLiterals(literals: readonly string[], text: string, knownGap?: (gap: number, earlier: readonly string[]) => string | undefined): string[] | null {
  const head = literals[0]!;
  const tail = literals[literals.length - 1]!;
  if (literals.length === 1) return text === head ? [] : null;
  if (!text.startsWith(head) || text.length < head.length + tail.length || !text.endsWith(tail)) return null;
  const end = text.length - tail.length;
  const gaps: string[] = [];
  let at = head.length;
  for (let gap = 0; gap < literals.length - 1; gap++) {
    // The piece after this gap; the last piece is already anchored at the end.
    const next = gap + 1 < literals.length - 1 ? literals[gap + 1]! : null;
    const known = knownGap?.(gap, gaps);
    if (known !== undefined) {
      if (!text.startsWith(known, at) || at + known.length > end) return null;
      gaps.push(known);
      at += known.length;
      if (next === null) {
        if (at !== end) return null;
      } else {
        if (!text.startsWith(next, at) || at + next.length > end) return null;
        at += next.length;
      }
      continue;
    }
    if (next === null) {
      gaps.push(text.slice(at, end));
      at = end;
      continue;
    }
    const found = text.indexOf(next, at);
    if (found < 0 || found + next.length > end) return null;
    gaps.push(text.slice(at, found));
    at = found + next.length;
  }
  return at === end ? gaps : null;
}
