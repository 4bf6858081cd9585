/** Code fences for text shown in the extension's Markdown documents (what will be sent, run answers). */

/** A code fence longer than any run of backticks in the text, so content can never close it. */
export function fenceFor(text: string): string {
  // A loop, not Math.max(...runs): an answer of 300,000 backtick runs would overflow the stack.
  let longest = 0;
  let run = 0;
  for (let i = 0; i < text.length; i++) {
    run = text.charCodeAt(i) === 96 ? run + 1 : 0;
    if (run > longest) longest = run;
  }
  return '`'.repeat(Math.max(3, longest + 1));
}
