import { nearMissClosingFence, nearMissMessage } from './frontMatterFence';
import type { OffsetRange, PromptDiagnostic } from './model';

export interface FrontMatterSplit {
  /** YAML text between the fences, or undefined when the file has none (or it is unterminated). */
  yaml?: { text: string; start: number };
  /** Range of the whole front matter, fences included. */
  frontMatterRange?: OffsetRange;
  bodyStart: number;
  diagnostics: PromptDiagnostic[];
}

const OPEN_FENCE = /^\uFEFF?---[ \t]*(\r\n|\r|\n)/;
const CLOSE_FENCE = /^(---|\.\.\.)[ \t]*$/gm;

/**
 * Splits `---` fenced YAML front matter from the body. An opening fence that is never closed
 * is reported and the whole file is treated as body, so its tokens are still counted.
 */
export function splitFrontMatter(text: string, from = 0): FrontMatterSplit {
  const open = OPEN_FENCE.exec(from === 0 ? text : text.slice(from));
  if (!open) return { bodyStart: text.startsWith('\uFEFF') ? 1 : 0, diagnostics: [] };
  const yamlStart = from + open[0].length;
  CLOSE_FENCE.lastIndex = yamlStart;
  const close = CLOSE_FENCE.exec(text);
  const nearMiss = close ? undefined : nearMissClosingFence(text, yamlStart);
  if (nearMiss) {
    // `---x` where `---` was meant: read as the fence, and said loudly, rather than counting the YAML as a message.
    return {
      yaml: { text: text.slice(yamlStart, nearMiss.start), start: yamlStart },
      frontMatterRange: { start: from, end: nearMiss.end },
      bodyStart: lineAfter(text, nearMiss.end),
      diagnostics: [{ range: { start: nearMiss.start, end: nearMiss.end }, severity: 'error', code: 'unterminated-front-matter', message: nearMissMessage(nearMiss) }],
    };
  }
  if (!close) {
    return {
      bodyStart: 0,
      diagnostics: [
        {
          range: { start: from, end: yamlStart - open[1]!.length },
          severity: 'error',
          code: 'unterminated-front-matter',
          message: "Front matter opened with '---' is never closed; add a line with '---' after the YAML. The whole file is counted as prompt text.",
        },
      ],
    };
  }
  return {
    yaml: { text: text.slice(yamlStart, close.index), start: yamlStart },
    frontMatterRange: { start: from, end: close.index + close[0].length },
    bodyStart: lineAfter(text, close.index + close[0].length),
    diagnostics: [],
  };
}

/** The offset after the line break at `end`, if there is one. */
function lineAfter(text: string, end: number): number {
  if (text.startsWith('\r\n', end)) return end + 2;
  return text[end] === '\n' || text[end] === '\r' ? end + 1 : end;
}
