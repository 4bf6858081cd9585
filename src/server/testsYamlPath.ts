/**
 * Where in a tests file's structure a position is, read with the `yaml` package's own parser (not a
 * YAML language server, which the bundles have no room for): the path of keys and list indices from
 * the top to the node at an offset, for hover; and for completion, what is being typed — a key of a
 * mapping or the value of a key. Text being typed is rarely valid YAML at the cursor, so completion
 * parses the text with a placeholder where the word is, and finds the placeholder.
 */
import { isMap, isScalar, isSeq, parseDocument, type Node } from 'yaml';
import type { TestsPath } from '../core/adherence/testsSchema';

export type YamlPathStep = string | number;

/** The key or scalar value under an offset, with its path (a key's path ends with that key). */
export interface NodeAtOffset {
  path: YamlPathStep[];
  role: 'key' | 'value';
  value: unknown;
  range: [number, number];
}

export function nodeAtOffset(text: string, offset: number): NodeAtOffset | undefined {
  const doc = parseDocument(text, { keepSourceTokens: false });
  return findIn(doc.contents, [], offset);
}

function findIn(node: unknown, path: YamlPathStep[], offset: number): NodeAtOffset | undefined {
  if (isMap(node)) {
    for (const pair of node.items) {
      if (!isScalar(pair.key)) continue;
      const keyPath = [...path, String(pair.key.value)];
      if (within(pair.key, offset)) return { path: keyPath, role: 'key', value: pair.key.value, range: rangeOf(pair.key) };
      const found = findIn(pair.value, keyPath, offset);
      if (found) return found;
    }
    return undefined;
  }
  if (isSeq(node)) {
    for (const [index, item] of node.items.entries()) {
      const found = findIn(item, [...path, index], offset);
      if (found) return found;
    }
    return undefined;
  }
  if (isScalar(node) && within(node, offset)) return { path, role: 'value', value: node.value, range: rangeOf(node) };
  return undefined;
}

const within = (node: Node, offset: number): boolean => node.range !== undefined && node.range !== null && node.range[0] <= offset && offset <= node.range[1];
const rangeOf = (node: Node): [number, number] => [node.range![0], node.range![1]];

/** What is being typed at the cursor: a key (in the mapping at `mapPath`, which has `existingKeys`) or the value at `path`. */
export type TypingAt =
  | { kind: 'key'; mapPath: TestsPath; existingKeys: string[]; replace: [number, number] }
  | { kind: 'value'; path: TestsPath; replace: [number, number] };

const PLACEHOLDER = 'promptInsightCursor';
const WORD_AFTER = /^[^\s#,:{}[\]]*/;

export function typingAt(text: string, offset: number): TypingAt | undefined {
  const lineStart = text.lastIndexOf('\n', offset - 1) + 1;
  const before = text.slice(lineStart, offset);
  if (/#/.test(before.replace(/"[^"]*"|'[^']*'/g, ''))) return undefined; // in a comment
  const wordAfter = WORD_AFTER.exec(text.slice(offset))![0];
  const value = /(?:^|[\s{,-])([\w-]+):[ \t]*([^\s#,{}[\]]*)$/.exec(before);
  if (value) {
    const replace: [number, number] = [offset - value[2]!.length, offset + wordAfter.length];
    // Right after the colon, YAML needs the space before the value to see a key at all.
    const found = placeholderPath(`${text.slice(0, replace[0])}${before.endsWith(':') ? ' ' : ''}${PLACEHOLDER}${text.slice(replace[1])}`, 'value');
    return found ? { kind: 'value', path: found.path, replace } : undefined;
  }
  const key = /(^[\s-]*|[{,]\s*)([\w-]*)$/.exec(before);
  if (!key) return undefined;
  const inFlow = key[1]!.trim().startsWith('{') || key[1]!.trim().startsWith(',');
  const replace: [number, number] = [offset - key[2]!.length, offset + wordAfter.length];
  const found = placeholderPath(`${text.slice(0, replace[0])}${PLACEHOLDER}${inFlow ? '' : ':'}${text.slice(replace[1])}`, 'key');
  return found ? { kind: 'key', mapPath: found.path, existingKeys: found.siblings, replace } : undefined;
}

/** The path of the placeholder: as a value, its own path; as a key, its mapping's path and the other keys there. */
function placeholderPath(text: string, role: 'key' | 'value'): { path: YamlPathStep[]; siblings: string[] } | undefined {
  const doc = parseDocument(text, { keepSourceTokens: false });
  const walk = (node: unknown, path: YamlPathStep[]): { path: YamlPathStep[]; siblings: string[] } | undefined => {
    if (isMap(node)) {
      const keys = node.items.map((p) => (isScalar(p.key) ? String(p.key.value) : '')).filter((k) => k !== '');
      for (const pair of node.items) {
        if (!isScalar(pair.key)) continue;
        if (role === 'key' && pair.key.value === PLACEHOLDER) return { path, siblings: keys.filter((k) => k !== PLACEHOLDER) };
        const found = walk(pair.value, [...path, String(pair.key.value)]);
        if (found) return found;
      }
      return undefined;
    }
    if (isSeq(node)) {
      for (const [index, item] of node.items.entries()) {
        const found = walk(item, [...path, index]);
        if (found) return found;
      }
      return undefined;
    }
    return role === 'value' && isScalar(node) && node.value === PLACEHOLDER ? { path, siblings: [] } : undefined;
  };
  return walk(doc.contents, []);
}

/** A case of a tests file: its place in `tests:` (from 0), where its node starts, and its description as written. */
export interface TestCaseNode {
  position: number;
  start: number;
  description: string;
}

/** The cases of `tests:` (or of a top-level list, which promptfoo reads the same way), each where it starts. */
export function testCaseNodes(text: string): TestCaseNode[] {
  const doc = parseDocument(text, { keepSourceTokens: false });
  const root: unknown = doc.contents;
  const tests: unknown = isSeq(root) ? root : isMap(root) ? root.get('tests', true) : undefined;
  if (!isSeq(tests)) return [];
  const cases: TestCaseNode[] = [];
  tests.items.forEach((item, position) => {
    const start = (item as Node | null)?.range?.[0];
    if (start === undefined) return;
    const description = isMap(item) ? item.get('description') : undefined;
    cases.push({ position, start, description: typeof description === 'string' ? description : '' });
  });
  return cases;
}
