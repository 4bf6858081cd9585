/** Code fences and inert text for the extension's Markdown documents (what will be sent, run answers, decisions). */
import { longestBacktickRun } from '../../core/text/backtickRuns';

/** A code fence longer than any run of backticks in the text, so content can never close it. */
export function fenceFor(text: string): string {
  return '`'.repeat(Math.max(3, longestBacktickRun(text) + 1));
}

/**
 * Text from outside (a model, a server, production traces) placed in a document the Markdown preview
 * renders: every ASCII punctuation mark escaped, so it reads as written and is never a link, an image
 * (fetched as the preview opens), a tag or emphasis.
 */
export function inertMarkdown(text: string): string {
  return text.replace(/[!-/:-@[-`{-~]/g, (c) => (c === '<' ? '&lt;' : c === '&' ? '&amp;' : `\\${c}`));
}
