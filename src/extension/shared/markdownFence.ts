/** Code fences for text shown in the extension's Markdown documents (what will be sent, run answers). */

/** A code fence longer than any run of backticks in the text, so content can never close it. */
export function fenceFor(text: string): string {
  const longest = Math.max(0, ...[...text.matchAll(/`+/g)].map((m) => m[0].length));
  return '`'.repeat(Math.max(3, longest + 1));
}
