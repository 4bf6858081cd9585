/**
 * What a command prints from text that others wrote (production traces, Prometheus labels): the
 * terminal must show it, never obey it. Control characters — C0 but the line break and tab, DEL, C1
 * (an 8-bit CSI is as good as ESC [), the Unicode line and paragraph separators, bidirectional
 * overrides and isolates, lone surrogates — are shown as U+FFFD; JSON keeps them exact as \u escapes.
 */
import type { CliIO } from './io';

const UNSAFE = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;
/** What JSON.stringify leaves as it is but a terminal may act on (C0 it escapes already). */
const UNSAFE_IN_JSON = /[\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;

export function terminalText(text: string): string {
  return text.replace(UNSAFE, '\ufffd');
}

/** JSON text (indented by two) with every character a terminal may act on written as a \u escape; lone surrogates are escaped by JSON.stringify itself. */
export function terminalJson(value: unknown): string {
  return JSON.stringify(value, null, 2).replace(UNSAFE_IN_JSON, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

/** An io whose every write is made terminal-safe: for commands that print production strings. */
export function terminalSafeIO(io: CliIO): CliIO {
  return { stdout: (text) => io.stdout(terminalText(text)), stderr: (text) => io.stderr(terminalText(text)), interrupted: () => io.interrupted() };
}
