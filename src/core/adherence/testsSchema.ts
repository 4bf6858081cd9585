/**
 * The one JSON Schema of tests files (schemas/tests.schema.json, also contributed to the YAML
 * extension), compiled with Ajv once. It turns a tests file's value into findings in plain words,
 * each at a path: the CLI's problems and the editor's diagnostics are both these findings
 * (testsFileCheck.ts places them in the text). The schema's own `errorMessage` (ajv-errors' keyword
 * name, read here) words what a plain Ajv message would not: "needs a `value`: the texts to look for…".
 */
import type { ErrorObject, ValidateFunction } from 'ajv';
import schemaJson from '../../../schemas/tests.schema.json';
import { editDistance } from '../formats/roleMarkers';
import { testsSchemaAjv } from './testsSchemaAjv';

export type TestsPath = readonly (string | number)[];

export interface TestsFinding {
  path: TestsPath;
  message: string;
  /** error: what it names is not used as written (an assertion with one is skipped); warning: a key that is ignored. */
  severity: 'error' | 'warning';
  /** What to mark in the text: the key itself (an unknown key), the value at the path, or the mapping a key is missing from. */
  mark: 'key' | 'value' | 'mapping';
}

/** A schema node as the look-ups read it (the JSON is plain data). */
export interface SchemaNode {
  type?: string | string[];
  title?: string;
  description?: string;
  errorMessage?: string;
  enum?: unknown[];
  enumDescriptions?: string[];
  properties?: Record<string, SchemaNode>;
  items?: SchemaNode;
  $ref?: string;
  anyOf?: SchemaNode[];
  [keyword: string]: unknown;
}

export const TESTS_SCHEMA = schemaJson as unknown as SchemaNode;

let validator: ValidateFunction | undefined;

/**
 * Bundled, the validator Ajv generated at build time (esbuild.mjs: ~10 ms to load where compiling took
 * ~100 ms, paid by every CLI run and every production read in the editor); from source, compiled at first use.
 */
function compiled(): ValidateFunction {
  validator ??= process.env.PROMPT_INSIGHT_BUNDLED === '1' ? generatedValidator() : testsSchemaAjv().validate;
  return validator;
}

/**
 * esbuild.mjs resolves this require to the generated validator. In a try, so that any other bundling
 * of the source (tests run snippets of it in child processes) leaves it unresolved instead of failing.
 */
function generatedValidator(): ValidateFunction {
  try {
    return (require('./testsSchemaValidator.js') as { default: ValidateFunction }).default;
  } catch (error) {
    throw new Error(`the tests-file schema's generated validator is missing beside the bundle (${(error as Error).message})`);
  }
}

/** Why a `regex` value is not a regular expression, as the check compiles it; undefined when it is one. */
function regexError(pattern: string): string | undefined {
  try {
    new RegExp(pattern);
    return undefined;
  } catch (error) {
    return (error as Error).message;
  }
}

/** What the schema says about a tests file's value (a sidecar's whole value, or `{tests: …}` of front matter), in document order. */
export function testsFindings(value: unknown): TestsFinding[] {
  const validate = compiled();
  const findings = validate(value) ? [] : findingsOf(validate.errors ?? [], value);
  findings.push(...regexFindings(value));
  return findings.sort((a, b) => comparePaths(documentOrder(value, a.path), documentOrder(value, b.path)));
}

function findingsOf(errors: readonly ErrorObject[], value: unknown): TestsFinding[] {
  // A failed `anyOf` is said once, in its own words; its branches' errors (at it or under it) would only repeat it.
  const unions = errors.filter((e) => e.keyword === 'anyOf');
  const inUnion = (e: ErrorObject): boolean => unions.some((u) => u !== e && e.schemaPath.startsWith(`${u.schemaPath}/`) && e.instancePath.startsWith(u.instancePath));
  const groups = new Map<string, { path: (string | number)[]; errors: ErrorObject[] }>();
  for (const error of errors) {
    // `if` and `propertyNames` only say that their inner errors happened; those are the findings.
    if (error.keyword === 'if' || error.keyword === 'propertyNames' || inUnion(error)) continue;
    const path: (string | number)[] = pointerPath(error.instancePath, value);
    if (error.keyword === 'additionalProperties') path.push(String((error.params as { additionalProperty: string }).additionalProperty));
    else if (error.propertyName !== undefined) path.push(error.propertyName);
    const key = `${error.keyword === 'additionalProperties' ? 'unknown' : error.propertyName !== undefined ? 'name' : 'value'}:${JSON.stringify(path)}`;
    const group = groups.get(key) ?? { path, errors: [] };
    group.errors.push(error);
    groups.set(key, group);
  }
  return [...groups.values()].flatMap(({ path, errors }) => findingsAt(path, errors, value));
}

/** A `regex` value the check could not compile (JSON Schema has no keyword that compiles a pattern as the check does). */
function regexFindings(root: unknown): TestsFinding[] {
  const lists: [(string | number)[], unknown][] = [[['defaultTest', 'assert'], valueAt(root, ['defaultTest', 'assert'])]];
  const cases = Array.isArray(root) ? root.map((_, i) => [i]) : (valueAt(root, ['tests']) as unknown[] | undefined)?.map?.((_, i) => ['tests', i]) ?? [];
  for (const at of cases) lists.push([[...at, 'assert'], valueAt(root, [...at, 'assert'])]);
  return lists.flatMap(([path, list]) =>
    (Array.isArray(list) ? list : []).flatMap((assertion: unknown, j) => {
      const { type, value } = (assertion ?? {}) as { type?: unknown; value?: unknown };
      const problem = (type === 'regex' || type === 'not-regex') && typeof value === 'string' ? regexError(value) : undefined;
      return problem ? [{ path: [...path, j, 'value'], severity: 'error' as const, mark: 'value' as const, message: `invalid regex: ${problem}` }] : [];
    }),
  );
}

/** `tests[0].assert[1].value` */
export function pathText(path: TestsPath): string {
  return path.map((p, i) => (typeof p === 'number' ? `[${p}]` : i === 0 ? p : `.${p}`)).join('') || 'the file';
}

/** Where a finding is, for a line of text: its path, less a last key the message names itself (`tests[0]: \`relevant\` must…`). */
export function findingWhere(finding: TestsFinding): string {
  const last = finding.path[finding.path.length - 1];
  return typeof last === 'string' && finding.message.includes(`\`${last}\``) ? pathText(finding.path.slice(0, -1)) : pathText(finding.path);
}

/**
 * The assertions the findings make unusable, as pathText keys (`tests[0].assert[1]`): an assertion
 * with an error at or under it is skipped, so the loader and the editor agree on what runs.
 */
export function unusableAssertions(findings: readonly TestsFinding[]): Set<string> {
  const out = new Set<string>();
  for (const finding of findings) {
    if (finding.severity !== 'error') continue;
    const at = finding.path.lastIndexOf('assert');
    if (at >= 0 && typeof finding.path[at + 1] === 'number') out.add(pathText(finding.path.slice(0, at + 2)));
  }
  return out;
}

function findingsAt(path: (string | number)[], errors: ErrorObject[], root: unknown): TestsFinding[] {
  const first = errors[0]!;
  const key = path[path.length - 1];
  if (first.keyword === 'additionalProperties') {
    const known = Object.keys((first.parentSchema as SchemaNode | undefined)?.properties ?? {});
    const near = known.find((k) => editDistance(k, String(key)) <= 2);
    return [{ path, severity: 'warning', mark: 'key', message: `\`${key}\` is not read by Prompt Insight${near ? ` (did you mean \`${near}\`?)` : ''}; it is ignored` }];
  }
  if (first.propertyName !== undefined) {
    return [{ path, severity: 'error', mark: 'key', message: `\`${key}\` ${errorMessageOf(errors) ?? 'is not a key this mapping takes'}` }];
  }
  const required = errors.filter((e) => e.keyword === 'required');
  if (required.length > 0) {
    const type = valueAt(root, [...path, 'type']);
    return required.map((e) => {
      const missing = (e.params as { missingProperty: string }).missingProperty;
      const message = missing === 'type' ? 'needs a `type`, e.g. type: icontains' : `${typeof type === 'string' ? `'${type}' ` : ''}${(e.parentSchema as SchemaNode).errorMessage ?? `needs \`${missing}\``}`;
      return { path, severity: 'error' as const, mark: 'mapping' as const, message };
    });
  }
  return [{ path, severity: 'error', mark: 'value', message: valueMessage(path, errors, valueAt(root, path)) }];
}

function valueMessage(path: (string | number)[], errors: ErrorObject[], value: unknown): string {
  const key = path[path.length - 1];
  if (key === 'type' && errors.some((e) => e.schemaPath.startsWith('#/definitions/assertion/properties/type/'))) {
    if (value === null || value === undefined || value === '') return 'needs a `type`, e.g. type: icontains';
    if (typeof value !== 'string') return '`type` must be text, e.g. type: icontains';
    return `assertion type '${value}' is not supported (supported: ${supportedTypes().join(', ')}, each negatable with not-)`;
  }
  const worded = errorMessageOf(errors);
  if (worded) return worded;
  const subject = typeof key === 'string' ? `\`${key}\`` : (errors[0]!.parentSchema as SchemaNode | undefined)?.title ? `a ${(errors[0]!.parentSchema as SchemaNode).title}` : 'this item';
  return `${subject} ${plainAjvMessage(errors[0]!)}`;
}

/** The schema's own wording for an error at this node: an `anyOf` holder's first, since its branches' errors say less. */
function errorMessageOf(errors: readonly ErrorObject[]): string | undefined {
  const worded = errors.filter((e) => typeof (e.parentSchema as SchemaNode | undefined)?.errorMessage === 'string');
  return ((worded.find((e) => e.keyword === 'anyOf') ?? worded[0])?.parentSchema as SchemaNode | undefined)?.errorMessage;
}

const TYPE_WORDS: Record<string, string> = { string: 'text', number: 'a number', integer: 'a whole number', boolean: 'true or false', array: 'a list', object: 'a mapping (key: value lines)', null: 'empty' };

function plainAjvMessage(error: ErrorObject): string {
  const params = error.params as Record<string, unknown>;
  switch (error.keyword) {
    case 'type': {
      const types = ([] as string[]).concat(params.type as string | string[]);
      return `must be ${types.map((t) => TYPE_WORDS[t] ?? t).join(' or ')}`;
    }
    case 'enum':
      return `must be one of ${(params.allowedValues as unknown[]).join(', ')}`;
    case 'minimum':
    case 'maximum':
    case 'exclusiveMinimum':
    case 'exclusiveMaximum':
      return `must be ${params.comparison} ${params.limit}`;
    case 'minItems':
      return `must list at least ${params.limit}`;
    default:
      return error.message ?? 'is not valid here';
  }
}

/** The assertion types a tests file may name, without their `not-` forms (the schema's enum). */
export function supportedTypes(): string[] {
  const types = (TESTS_SCHEMA.definitions as Record<string, SchemaNode>).assertion!.properties!.type!.enum as string[];
  return types.filter((t) => !t.startsWith('not-'));
}

/** `/tests/0/assert/1` → ['tests', 0, 'assert', 1]: indices of lists as numbers. */
function pointerPath(pointer: string, root: unknown): (string | number)[] {
  const path: (string | number)[] = [];
  let node = root;
  for (const raw of pointer.split('/').slice(1)) {
    const segment = raw.replace(/~1/g, '/').replace(/~0/g, '~');
    const step = Array.isArray(node) ? Number(segment) : segment;
    path.push(step);
    node = (node as Record<string | number, unknown> | undefined)?.[step];
  }
  return path;
}

function valueAt(root: unknown, path: TestsPath): unknown {
  let node = root;
  for (const step of path) {
    if (typeof node !== 'object' || node === null) return undefined;
    node = (node as Record<string | number, unknown>)[step];
  }
  return node;
}

/** A path as positions in the value (keys by their order in their mapping; a key not there after the others). */
function documentOrder(root: unknown, path: TestsPath): number[] {
  const order: number[] = [];
  let node = root;
  for (const step of path) {
    if (typeof step === 'number') order.push(step);
    else {
      const keys = typeof node === 'object' && node !== null ? Object.keys(node) : [];
      order.push(keys.includes(step) ? keys.indexOf(step) : keys.length);
    }
    node = typeof node === 'object' && node !== null ? (node as Record<string | number, unknown>)[step] : undefined;
  }
  return order;
}

function comparePaths(a: number[], b: number[]): number {
  for (let i = 0; i < Math.min(a.length, b.length); i++) if (a[i] !== b[i]) return a[i]! - b[i]!;
  return a.length - b.length;
}

/**
 * The schema node that describes the value at a path (`['tests', 0, 'assert', 1, 'type']`), its
 * `$ref` followed (a description beside the `$ref` wins); undefined where the schema says nothing.
 * The editor's completion and hover read keys, values and their descriptions from it.
 */
export function schemaAt(path: TestsPath): SchemaNode | undefined {
  let node: SchemaNode | undefined = resolved(TESTS_SCHEMA);
  for (const step of path) {
    if (!node) return undefined;
    node = resolved(typeof step === 'number' ? node.items : node.properties?.[step]);
  }
  return node;
}

function resolved(node: SchemaNode | undefined): SchemaNode | undefined {
  if (!node?.$ref) return node;
  const name = node.$ref.replace('#/definitions/', '');
  const { $ref: _ref, ...beside } = node;
  return { ...resolved((TESTS_SCHEMA.definitions as Record<string, SchemaNode>)[name]), ...beside };
}
