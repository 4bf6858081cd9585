/**
 * Invisible source marks that survive template rendering, so rendered messages can be traced back
 * to the lines that made them (a loop's messages to the loop). A mark is made only of characters
 * JavaScript's trim() removes (U+FEFF and U+2000–U+200A), so the runtimes' "is this message empty"
 * checks see exactly what they would without it; marks are removed before anything is counted.
 */
const OPEN = '\uFEFF';
const CLOSE = '\uFEFF\u2009';
const DIGIT_BASE = 0x2000;
const DIGITS = 9; // U+2000–U+2008 as base-9 digits; U+2009 only ever closes a mark
const MARK = /\uFEFF([\u2000-\u2008]+)\uFEFF\u2009/g;

export function sourceMark(index: number): string {
  let digits = '';
  let n = index;
  do {
    digits = String.fromCharCode(DIGIT_BASE + (n % DIGITS)) + digits;
    n = Math.floor(n / DIGITS);
  } while (n > 0);
  return OPEN + digits + CLOSE;
}

/** True when marks could be confused with the text's own characters (then rendering maps by order). */
export function canMark(template: string): boolean {
  return !template.includes(OPEN);
}

export interface MarkAt {
  /** Offset in the text with every mark removed. */
  offset: number;
  index: number;
}

export function stripMarks(text: string): { text: string; marks: MarkAt[] } {
  const marks: MarkAt[] = [];
  let out = '';
  let last = 0;
  MARK.lastIndex = 0;
  for (let match = MARK.exec(text); match; match = MARK.exec(text)) {
    out += text.slice(last, match.index);
    let index = 0;
    for (const digit of match[1]!) index = index * DIGITS + (digit.charCodeAt(0) - DIGIT_BASE);
    marks.push({ offset: out.length, index });
    last = match.index + match[0].length;
  }
  return { text: out + text.slice(last), marks };
}
