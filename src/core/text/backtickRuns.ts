/** Backtick runs, for code spans and fences that text inside can never close (reports, Markdown documents). */

/** The longest run of backticks in the text: a loop, not Math.max(...runs) — text of 300,000 runs would overflow the stack. */
export function longestBacktickRun(text: string): number {
  let longest = 0;
  let run = 0;
  for (let i = 0; i < text.length; i++) {
    run = text.charCodeAt(i) === 96 ? run + 1 : 0;
    if (run > longest) longest = run;
  }
  return longest;
}
