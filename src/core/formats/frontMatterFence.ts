/**
 * A front matter whose closing line is almost `---` (`---x`, `--- x`, `----`): the fence the author
 * meant. Without it the whole file would be counted as prompt text — the YAML sent as a system
 * message, about twice the tokens — with only "never closed" to go on.
 */

export interface NearMissFence {
  /** Offsets of the line, without its line break. */
  start: number;
  end: number;
  /** 1-based, as editors number lines. */
  lineNumber: number;
  line: string;
}

// `---` or `...` followed by anything but blanks, or a longer run of dashes: never a fence in YAML front matter.
const NEAR_MISS = /^(?:(?:---|\.\.\.)[ \t]*[^\s].*|-{4,}[ \t]*)$/gm;

/** The first line after `from` that looks like a closing fence with a stray character, if any. */
export function nearMissClosingFence(text: string, from: number): NearMissFence | undefined {
  NEAR_MISS.lastIndex = from;
  const match = NEAR_MISS.exec(text);
  if (!match) return undefined;
  const line = match[0].replace(/\r$/, '');
  let lineNumber = 1;
  for (let i = text.indexOf('\n'); i !== -1 && i < match.index; i = text.indexOf('\n', i + 1)) lineNumber++;
  return { start: match.index, end: match.index + line.length, lineNumber, line };
}

export function nearMissMessage(fence: NearMissFence): string {
  const shown = fence.line.length > 40 ? `${fence.line.slice(0, 39)}…` : fence.line;
  return `The front matter is not closed: line ${fence.lineNumber} has \`${shown}\`, and the closing line must be \`---\` alone. Counted as if line ${fence.lineNumber} closed it; fix the line, or a runtime that looks for \`---\` reads the whole file, YAML included, as the prompt.`;
}
