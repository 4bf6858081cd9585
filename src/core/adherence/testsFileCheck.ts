/**
 * A tests file's text checked against its schema (testsSchema.ts), each finding placed on the YAML
 * node it is about: the editor underlines that range, the CLI names its line. YAML that does not
 * parse is said as the prompt formats say it (formats/yaml.ts), and nothing else is checked.
 */
import { isMap, isNode, isScalar, type Document, type Node, type Pair } from 'yaml';
import { splitFrontMatter } from '../formats/frontMatter';
import { LineIndex } from '../formats/lineIndex';
import type { OffsetRange, PromptDiagnostic } from '../formats/model';
import { parseYaml } from '../formats/yaml';
import { testsFindings, type TestsFinding, type TestsPath } from './testsSchema';

export interface PlacedFinding extends TestsFinding {
  range: OffsetRange;
  /** 1-based, as a terminal names lines. */
  line: number;
}

export interface CheckedTestsFile {
  /** The file's value; undefined when its YAML does not parse. */
  value: unknown;
  parseErrors: PromptDiagnostic[];
  findings: PlacedFinding[];
}

export function checkTestsFile(text: string): CheckedTestsFile {
  const parsed = parseYaml(text, 0);
  const parseErrors = parsed.diagnostics.filter((d) => d.severity === 'error');
  if (parseErrors.length > 0 || !parsed.doc) return { value: undefined, parseErrors, findings: [] };
  const lines = new LineIndex(text);
  const findings = testsFindings(parsed.value).map((finding) => {
    const range = firstLine(text, rangeOf(parsed.doc!, finding));
    return { ...finding, range, line: lines.positionAt(range.start).line + 1 };
  });
  return { value: parsed.value, parseErrors: [], findings };
}

/**
 * A prompt file's front-matter `tests:`, checked as a tests file is and placed in the prompt file (the
 * front matter's other keys are the prompt format's to check, and its YAML errors already said).
 */
export function checkFrontMatterTests(text: string): PlacedFinding[] {
  const yaml = splitFrontMatter(text).yaml;
  if (!yaml || !/^tests\s*:/m.test(yaml.text)) return [];
  const lines = new LineIndex(text);
  return checkTestsFile(yaml.text).findings.filter((f) => f.path[0] === 'tests').map((f) => {
    const range = { start: f.range.start + yaml.start, end: f.range.end + yaml.start };
    return { ...f, range, line: lines.positionAt(range.start).line + 1 };
  });
}

/** Where a finding shows: the unknown key; the value (its key when it is empty); a mapping's `type` entry or first key. */
function rangeOf(doc: Document.Parsed, finding: TestsFinding): OffsetRange {
  const { path, mark } = finding;
  const last = path[path.length - 1];
  const pair = last !== undefined ? pairAt(doc, path.slice(0, -1), last) : undefined;
  if (mark === 'key' && pair) return spanOf(pair.key);
  const node = nodeAt(doc, path);
  if (mark === 'mapping' && isMap(node)) {
    const entry = node.items.find((p) => isScalar(p.key) && p.key.value === 'type') ?? node.items[0];
    if (entry) return { start: spanOf(entry.key).start, end: Math.max(spanOf(entry.key).end, spanOf(entry.value).end) };
  }
  if (node && node.range && node.range[1] > node.range[0]) return spanOf(node);
  // An empty value (`type:` with nothing after it) is marked on its key; else the nearest enclosing node there is.
  if (pair) return spanOf(pair.key);
  for (let depth = path.length - 1; depth >= 0; depth--) {
    const enclosing = nodeAt(doc, path.slice(0, depth));
    if (enclosing) return spanOf(enclosing);
  }
  return { start: 0, end: 0 };
}

function nodeAt(doc: Document.Parsed, path: TestsPath): Node | undefined {
  const node: unknown = path.length === 0 ? doc.contents : doc.getIn(path, true);
  return isNode(node) ? node : undefined;
}

function pairAt(doc: Document.Parsed, mapPath: TestsPath, key: string | number): Pair | undefined {
  const map = nodeAt(doc, mapPath);
  if (!isMap(map)) return undefined;
  return map.items.find((p) => isScalar(p.key) && String(p.key.value) === String(key));
}

function spanOf(node: unknown): OffsetRange {
  const range = isNode(node) ? node.range : undefined;
  return range ? { start: range[0], end: range[1] } : { start: 0, end: 0 };
}

/** A mapping or list over many lines is marked on its first line only. */
function firstLine(text: string, range: OffsetRange): OffsetRange {
  const lineEnd = text.indexOf('\n', range.start);
  return lineEnd >= 0 && lineEnd < range.end ? { start: range.start, end: lineEnd } : range;
}
