/**
 * What a command prints from text that others wrote (a repository's front matter and file names, an
 * endpoint's answers and errors, production traces, Prometheus labels): the terminal must show it,
 * never obey it. Control characters — C0 but the line break (LF, or CRLF as CSV ends its rows) and tab,
 * DEL, C1 (an 8-bit CSI is as good as ESC [), the Unicode line and paragraph separators, bidirectional
 * overrides and isolates, lone surrogates — are shown as U+FFFD; JSON keeps them exact as \u escapes.
 */
import type { CliIO } from './io';

const UNSAFE = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]|\r(?!\n)|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;
/** What JSON.stringify leaves as it is but a terminal may act on (C0 it escapes already). */
const UNSAFE_IN_JSON = /[\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;

export function terminalText(text: string): string {
  return text.replace(UNSAFE, '\ufffd');
}

/** JSON text (indented by two) with every character a terminal may act on written as a \u escape; lone surrogates are escaped by JSON.stringify itself. */
export function terminalJson(value: unknown): string {
  return terminalJsonText(JSON.stringify(value, null, 2));
}

/** JSON text already written (an export's lines) with the same escapes: such characters only occur inside its strings. */
export function terminalJsonText(json: string): string {
  return json.replace(UNSAFE_IN_JSON, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

/** A carriage return that begins a write is the CLI's own (a progress counter redrawn in place); any other is replaced. */
function terminalWrite(text: string): string {
  return text.startsWith('\r') ? `\r${terminalText(text.slice(1))}` : terminalText(text);
}

/** An io whose every write is made terminal-safe: runCli gives every command this one, so none can forget. */
export function terminalSafeIO(io: CliIO): CliIO {
  return { stdout: (text) => io.stdout(terminalWrite(text)), stderr: (text) => io.stderr(terminalWrite(text)), interrupted: () => io.interrupted() };
}
