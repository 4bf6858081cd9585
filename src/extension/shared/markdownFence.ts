/** Code fences for text shown in the extension's Markdown documents (what will be sent, run answers). */
import { longestBacktickRun } from '../../core/text/backtickRuns';

/** A code fence longer than any run of backticks in the text, so content can never close it. */
export function fenceFor(text: string): string {
  return '`'.repeat(Math.max(3, longestBacktickRun(text) + 1));
}
