import { isMap, isScalar, isSeq, parseDocument, type Document, type Node, type YAMLMap } from 'yaml';
import type { OffsetRange, PromptDiagnostic } from './model';

/** Alias expansion limit: a "billion laughs" document is refused instead of expanded. */
const MAX_ALIAS_COUNT = 100;

export interface ParsedYaml {
  doc?: Document.Parsed;
  value: unknown;
  diagnostics: PromptDiagnostic[];
}

/**
 * Parses YAML with the `yaml` package, shifting every range by `baseOffset` so that it
 * points into the containing file. Never throws: errors become diagnostics.
 */
export function parseYaml(text: string, baseOffset: number): ParsedYaml {
  const diagnostics: PromptDiagnostic[] = [];
  try {
    const doc = parseDocument(text, { uniqueKeys: true, prettyErrors: false, keepSourceTokens: false });
    for (const error of doc.errors) {
      // The yaml package may place an error one past the end; keep ranges inside the text.
      const start = Math.min(error.pos[0], text.length);
      const end = Math.min(Math.max(error.pos[1], start + 1), text.length);
      diagnostics.push({
        range: { start: baseOffset + start, end: baseOffset + end },
        severity: 'error',
        code: 'parse-error',
        message: `YAML: ${firstLine(error.message)}`,
      });
    }
    if (doc.errors.length > 0) return { doc, value: undefined, diagnostics };
    const value = doc.toJS({ maxAliasCount: MAX_ALIAS_COUNT });
    return { doc, value, diagnostics };
  } catch (error) {
    // toJS throws on excessive aliases; deep nesting can exhaust the stack.
    const reason = error instanceof RangeError ? 'the document is nested too deeply' : firstLine(String((error as Error)?.message ?? error));
    diagnostics.push({
      range: { start: baseOffset, end: baseOffset + Math.min(text.length, 1) },
      severity: 'error',
      code: 'parse-error',
      message: `YAML could not be read: ${reason}.`,
    });
    return { value: undefined, diagnostics };
  }
}

function firstLine(message: string): string {
  return message.split('\n')[0]!.trim();
}

export function nodeRange(node: unknown, baseOffset: number, fallback: OffsetRange): OffsetRange {
  const range = (node as { range?: [number, number, number] } | null)?.range;
  if (!range) return fallback;
  return { start: baseOffset + range[0], end: baseOffset + range[1] };
}

export function mapNode(node: unknown): YAMLMap | undefined {
  return isMap(node) ? node : undefined;
}

export function childNode(map: YAMLMap | undefined, key: string): Node | undefined {
  if (!map) return undefined;
  const node = map.get(key, true);
  return (node ?? undefined) as Node | undefined;
}

export function seqItems(node: unknown): unknown[] {
  return isSeq(node) ? node.items : [];
}

export function isPlainRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Whether a scalar's source text equals its value (plain or quoted on one line without escapes). */
export function isVerbatimScalar(node: unknown, source: string, baseOffset: number): boolean {
  if (!isScalar(node) || typeof node.value !== 'string' || !node.range) return false;
  if (node.type !== 'PLAIN') return false;
  return source.slice(baseOffset + node.range[0], baseOffset + node.range[1]) === node.value;
}
