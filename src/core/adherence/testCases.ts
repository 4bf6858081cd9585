/**
 * Test cases of a prompt, from wherever its format keeps them: GitHub `.prompt.yml` `testData` ×
 * `evaluators`; for the other formats a sidecar `NAME.tests.yaml` beside the prompt file or a
 * front-matter `tests:` key, in promptfoo's vocabulary. Problems are reported, never thrown.
 */
import { basename, dirname, join } from 'node:path';
import { readTestsFileSync } from '../files/workspaceFile';
import { escapedLiteral, literalValues, resolveFileValues } from '../render/references';
import { readCaseTurns, type CaseTurn } from './caseTurns';
import { ASSERTION_TYPES, MAX_CONTEXT_CHARS, type AssertionType } from './assertionTypes';
import { readFrontMatter } from '../formats/frontMatterDoc';
import type { Prompt, PromptFormat } from '../formats/model';
import { isPlainRecord } from '../formats/yaml';
import { checkTestsFile } from './testsFileCheck';
import { findingWhere, testsFindings, unusableAssertions } from './testsSchema';

export interface Assertion {
  type: AssertionType;
  negate: boolean;
  value?: unknown;
  /** Per-assertion bound: ms for latency/ttft, minimum score for llm-rubric/llm-choice. */
  threshold?: number;
  weight: number;
  label: string;
  /** contains / starts-with / ends-with ignore case (GitHub string evaluators compare lowercased, as gh-models does). */
  ignoreCase?: boolean;
  /** hallucination: a claim the context does not mention counts as a hallucination too. */
  strict?: boolean;
  /** GitHub llm evaluator: judge prompt, choices with scores, optional system prompt. */
  judge?: { prompt: string; choices: { choice: string; score: number }[]; systemPrompt?: string; modelId?: string };
}

export interface TestCase {
  description: string;
  vars: Record<string, unknown>;
  assertions: Assertion[];
  /** The run passes when its weighted score reaches this (default: every assertion passes). */
  threshold: number;
  /** Retrieved passages the grounded evaluators judge the answer against (`context:` or `vars.context`). */
  context?: string[];
  /** Why the context cannot be used (unreadable file, above MAX_CONTEXT_CHARS): those evaluators are undetermined with it. */
  contextProblem?: string;
  /** The expected answer (`reference:`, `vars.reference`, GitHub's `expected`). */
  reference?: string;
  /** Each context passage's id (`{text, id}`), null where it has none, in the context's (retrieval) order. */
  passageIds?: (string | null)[];
  /** Ids of the passages relevant to the case (`relevant: [id, …]`), for context-precision. */
  relevant?: string[];
  /** Production's turns (caseTurns.ts): sent after the prompt's own instructions in place of its user and assistant messages. */
  turns?: CaseTurn[];
  /** Where the case stands in `tests:` as written, from 0 (a case without a usable assertion is skipped, so it can differ from its index among the cases). */
  position?: number;
}

export interface TestSuite {
  cases: TestCase[];
  /** Where the cases came from, for messages. */
  source: string;
  problems: string[];
  /** `scenario:` and `slo:` at the top of the tests file, as written (the rollout decision reads them). */
  rollout?: { scenario?: unknown; slo?: unknown };
  /** The assertions that hold for every answer whatever its inputs (`defaultTest: assert:`, GitHub's evaluators): production adherence scores with them. */
  everyAnswer?: Assertion[];
  /** The prompt has no test cases anywhere (no tests file, no front-matter `tests:`): its one problem says where to add them, and is no warning. */
  absent?: true;
}

/** Every assertion of a suite: those for every answer, then each case's (a check may appear in both). */
export function suiteAssertions(suite: TestSuite): Assertion[] {
  return [...(suite.everyAnswer ?? []), ...suite.cases.flatMap((c) => c.assertions)];
}

/** `homes.prompty`, `homes.prompt.md`, `homes.prompt.txt`, `homes.prompt` → `homes.tests.yaml`. */
export function sidecarPathFor(file: string): string {
  return join(dirname(file), `${promptStem(file)}.tests.yaml`);
}

/** A prompt file's name without its format's extension: the stem its sidecars (tests, labels) share. */
export function promptStem(file: string): string {
  return basename(file).replace(/\.(prompty|prompt\.ya?ml|prompt\.md|prompt\.txt|prompt|txt|md)$/i, '');
}

/**
 * `readFile` reads the sidecar: undefined when there is none; it may throw (a WorkspaceFileError for a
 * sidecar that is a link out of the workspace, a FIFO, too large), which becomes a problem here.
 * Default: readTestsFileSync (core/files/workspaceFile.ts) with the CLI's workspace rule; the editor
 * passes `(path) => readTestsFileSync(path, { workspaceFolders })`.
 */
export function loadTestSuite(file: string, text: string, format: PromptFormat, prompt: Prompt, readFile: (path: string) => string | undefined = (path) => readTestsFileSync(path)): TestSuite {
  if (format === 'github-prompt-yaml') return githubSuite(prompt);
  const problems: string[] = [];
  const frontTests = format === 'text' ? undefined : readFrontMatter(text).fields.raw('tests');
  if (frontTests !== undefined) {
    const everyAnswer: Assertion[] = [];
    // The same schema as a tests file's (testsSchema.ts); front matter has no lines of its own to name.
    const findings = testsFindings({ tests: frontTests });
    problems.push(...findings.map((f) => `front matter: ${findingWhere(f)}: ${f.message}.`));
    return { cases: promptfooCases({ tests: frontTests }, 'front matter', problems, file, everyAnswer, unusableAssertions(findings)), source: `${basename(file)} front matter`, problems, everyAnswer };
  }
  const sidecar = sidecarPathFor(file);
  let sidecarText: string | undefined;
  try {
    sidecarText = readFile(sidecar);
  } catch (error) {
    return { cases: [], source: basename(sidecar), problems: [`${basename(sidecar)} is not read: ${(error as Error).message}`] };
  }
  if (sidecarText === undefined) return { cases: [], source: basename(sidecar), problems: [`No test cases: add ${basename(sidecar)} beside the prompt (promptfoo-style \`tests:\` with \`assert:\`), or a \`tests:\` key in its front matter.`], absent: true };
  // Checked against the tests-file schema, as the editor checks it: each finding with its line.
  const parsed = checkTestsFile(sidecarText);
  const error = parsed.parseErrors[0];
  if (error) return { cases: [], source: basename(sidecar), problems: [`${basename(sidecar)}: ${error.message}`] };
  problems.push(...parsed.findings.map((f) => `${basename(sidecar)}:${f.line}: ${findingWhere(f)}: ${f.message}.`));
  const top = isPlainRecord(parsed.value) ? parsed.value : {};
  const rollout = top.scenario !== undefined || top.slo !== undefined ? { rollout: { ...(top.scenario !== undefined ? { scenario: top.scenario } : {}), ...(top.slo !== undefined ? { slo: top.slo } : {}) } } : {};
  const everyAnswer: Assertion[] = [];
  return { cases: promptfooCases(parsed.value, basename(sidecar), problems, file, everyAnswer, unusableAssertions(parsed.findings)), source: basename(sidecar), problems, everyAnswer, ...rollout };
}

/** A case without a description is named by its inputs: `#1 city=Bellevue, WA · request=Find homes…`. */
export function caseName(index: number, vars: Record<string, unknown>): string {
  const parts = Object.entries(vars).map(([k, v]) => `${k}=${typeof v === 'string' ? v : JSON.stringify(v) ?? String(v)}`);
  const text = parts.join(' · ').replace(/\s+/g, ' ');
  return text ? `#${index + 1} ${text.length > 60 ? `${text.slice(0, 59)}…` : text}` : `case ${index + 1}`;
}

/**
 * The cases of a promptfoo-style value. `unusable` names the assertions the schema found wrong
 * (`tests[0].assert[1]`, said already): they are skipped, so what runs is what the editor shows clean.
 */
function promptfooCases(root: unknown, where: string, problems: string[], promptPath: string | undefined, everyAnswer: Assertion[], unusable: ReadonlySet<string>): TestCase[] {
  const doc = Array.isArray(root) ? { tests: root } : isPlainRecord(root) ? root : undefined;
  const casePath = (index: number): string => (Array.isArray(root) ? `[${index}]` : `tests[${index}]`);
  const defaults = doc && isPlainRecord(doc.defaultTest) ? doc.defaultTest : {};
  const defaultAsserts = Array.isArray(defaults.assert) ? defaults.assert : [];
  const usableDefaults = defaultAsserts.filter((_, j) => !unusable.has(`defaultTest.assert[${j}]`));
  // The checks for every answer hold without cases too: a file of defaultTest alone scores production answers.
  for (const a of usableDefaults) {
    const assertion = readAssertion(a);
    if (assertion) everyAnswer.push(assertion);
  }
  if (!doc || !Array.isArray(doc.tests)) {
    problems.push(`${where}: expected \`tests:\` with a list of test cases.`);
    return [];
  }
  const cases: TestCase[] = [];
  doc.tests.forEach((raw, index) => {
    if (!isPlainRecord(raw)) return; // said by the schema
    const own = Array.isArray(raw.assert) ? raw.assert.filter((_, j) => !unusable.has(`${casePath(index)}.assert[${j}]`)) : [];
    // As written (a `${file:}` context is read below); the case's inputs are the literal values (`$${…}` → `${…}`).
    const rawVars = { ...(isPlainRecord(defaults.vars) ? defaults.vars : {}), ...(isPlainRecord(raw.vars) ? raw.vars : {}) };
    const vars = literalValues(rawVars);
    const assertions: Assertion[] = [];
    for (const a of [...usableDefaults, ...own]) {
      const assertion = readAssertion(a);
      if (assertion) assertions.push(assertion);
    }
    const threshold = typeof raw.threshold === 'number' ? raw.threshold : typeof defaults.threshold === 'number' ? defaults.threshold : 1;
    const turns = readCaseTurns(raw, `${where}: tests[${index}]`, problems);
    if (assertions.length === 0) problems.push(`${where}: tests[${index}] has no usable assertion; it is skipped.`);
    else cases.push({ description: typeof raw.description === 'string' && raw.description.trim() ? raw.description : caseName(index, isPlainRecord(raw.vars) ? literalValues(raw.vars) : vars), vars, assertions, threshold, ...groundingOf(raw.context ?? rawVars.context, raw.reference ?? rawVars.reference, promptPath, `${where}: tests[${index}]`, problems), ...relevantOf(raw.relevant ?? vars.relevant, raw.relevant === undefined ? `${where}: ${casePath(index)}.vars.relevant` : undefined, problems), ...(turns ? { turns } : {}), position: index });
  });
  return cases;
}

/** An assertion the schema found usable, in the engine's terms (the guards only keep the types honest). */
export function readAssertion(raw: unknown): Assertion | undefined {
  if (!isPlainRecord(raw) || typeof raw.type !== 'string') return undefined;
  const negate = raw.type.startsWith('not-');
  const type = (negate ? raw.type.slice(4) : raw.type) as AssertionType;
  if (!ASSERTION_TYPES.includes(type) || type === 'llm-choice') return undefined;
  const weight = typeof raw.weight === 'number' && raw.weight >= 0 ? raw.weight : 1;
  const threshold = typeof raw.threshold === 'number' ? raw.threshold : undefined;
  const label = typeof raw.metric === 'string' ? raw.metric : `${raw.type}${raw.value !== undefined && typeof raw.value !== 'object' ? ` ${JSON.stringify(raw.value)}` : Array.isArray(raw.value) ? ` ${JSON.stringify(raw.value)}` : ''}`;
  return { type, negate, ...(raw.value !== undefined ? { value: raw.value } : {}), ...(threshold !== undefined ? { threshold } : {}), ...(raw.strict === true ? { strict: true } : {}), weight, label: label.length > 80 ? `${label.slice(0, 77)}…` : label };
}

/**
 * The values a test case written for the prompt's sample inputs has: the inputs, and for a .prompt.yml
 * (whose sample is its first testData row) that row's `expected`, which its case carries as a variable.
 */
export function sampleCaseVars(prompt: Prompt): Record<string, unknown> {
  const first = prompt.tests[0];
  return first?.expected !== undefined && prompt.inputs === first.vars ? { ...prompt.inputs, expected: first.expected } : prompt.inputs;
}

const GITHUB_STRING: Record<string, AssertionType> = { contains: 'contains', startsWith: 'starts-with', endsWith: 'ends-with', equals: 'equals' };
/** gh-models compares contains/startsWith/endsWith lowercased and equals exactly. */
const GITHUB_IGNORES_CASE = new Set(['contains', 'startsWith', 'endsWith']);

function githubSuite(prompt: Prompt): TestSuite {
  const problems: string[] = [];
  const assertions: Assertion[] = [];
  prompt.evaluators.forEach((raw, index) => {
    const evaluator = isPlainRecord(raw) ? raw : {};
    const name = typeof evaluator.name === 'string' ? evaluator.name : `evaluator ${index + 1}`;
    if (isPlainRecord(evaluator.string)) {
      for (const [key, value] of Object.entries(evaluator.string)) {
        const type = GITHUB_STRING[key];
        if (type && typeof value === 'string') assertions.push({ type, negate: false, value, weight: 1, label: name, ...(GITHUB_IGNORES_CASE.has(key) ? { ignoreCase: true } : {}) });
        else problems.push(`evaluators[${index}] '${name}': string.${key} is not one of contains, startsWith, endsWith, equals.`);
      }
    } else if (isPlainRecord(evaluator.llm)) {
      const llm = evaluator.llm;
      const choices = Array.isArray(llm.choices) ? llm.choices.filter(isPlainRecord).map((c) => ({ choice: String(c.choice ?? ''), score: Number(c.score ?? 0) })) : [];
      if (typeof llm.prompt !== 'string' || choices.length === 0) problems.push(`evaluators[${index}] '${name}': an llm evaluator needs a prompt and choices with scores.`);
      else assertions.push({ type: 'llm-choice', negate: false, weight: 1, label: name, threshold: 0.5, judge: { prompt: llm.prompt, choices, ...(typeof llm.systemPrompt === 'string' ? { systemPrompt: llm.systemPrompt } : {}), ...(typeof llm.modelId === 'string' ? { modelId: llm.modelId } : {}) } });
    } else if (typeof evaluator.uses === 'string') {
      problems.push(`evaluators[${index}] '${name}': built-in evaluator '${evaluator.uses}' is not supported by Prompt Insight; it is skipped. Use a string or llm evaluator.`);
    } else {
      problems.push(`evaluators[${index}] '${name}': needs string, llm or uses.`);
    }
  });
  const rows = prompt.tests.length > 0 ? prompt.tests : [];
  if (rows.length === 0) problems.push('No testData rows: each row of testData is one test case.');
  const cases = assertions.length === 0 ? [] : rows.map((row, i) => ({ description: caseName(i, row.vars), vars: { ...row.vars, ...(row.expected !== undefined ? { expected: row.expected } : {}) }, assertions, threshold: 1, ...groundingOf(row.vars.context, row.expected ?? row.vars.reference, undefined, `testData[${i}]`, problems) }));
  // Evaluators hold for every row; those that quote the row's expected answer need a reference.
  const everyAnswer = assertions.filter((a) => !/\{\{\s*expected/.test(typeof a.value === 'string' ? a.value : (a.judge?.prompt ?? '')));
  // Neither rows nor evaluators: a prompt without tests, not a broken one.
  return { cases, source: 'testData × evaluators', problems, everyAnswer, ...(rows.length === 0 && prompt.evaluators.length === 0 ? { absent: true as const } : {}) };
}

/**
 * `relevant: [id, …]` on a case: the passages relevant to it, for context-precision. A malformed list
 * is not used; the schema says so of the case's own key, `unchecked` names one it does not see (in vars).
 */
function relevantOf(raw: unknown, unchecked: string | undefined, problems: string[]): Pick<TestCase, 'relevant'> {
  if (raw === undefined) return {};
  const list = Array.isArray(raw) ? raw : [raw];
  if (list.length === 0 || list.some((id) => typeof id !== 'string' && typeof id !== 'number')) {
    if (unchecked) problems.push(`${unchecked}: relevant must list passage ids, e.g. relevant: [elm-12, oak-4]; not used.`);
    return {};
  }
  return { relevant: list.map(String) };
}

/**
 * A case's context and reference: a string, a list of passages (strings or `{text}`), a JSON file of
 * either (or `{passages: [...]}`) named `${file:…}` — read inside the workspace as prompt values are
 * (render/references.ts). Context above MAX_CONTEXT_CHARS is refused, said here and by its evaluators.
 */
function groundingOf(rawContext: unknown, rawReference: unknown, promptPath: string | undefined, where: string, problems: string[]): Pick<TestCase, 'context' | 'contextProblem' | 'reference' | 'passageIds'> {
  const out: Pick<TestCase, 'context' | 'contextProblem' | 'reference' | 'passageIds'> = {};
  const read = (value: unknown, what: string): unknown => {
    if (typeof value !== 'string') return value;
    const literal = escapedLiteral(value);
    if (literal !== undefined) return literal;
    if (!/^\$\{file:[^}]+\}$/.test(value.trim())) return value;
    const resolved = resolveFileValues(promptPath, { [what]: value });
    if (resolved.notes.length > 0) throw new Error(resolved.notes.map((n) => n.message).join('; '));
    return resolved.values[what];
  };
  if (rawContext !== undefined) {
    try {
      const value = read(rawContext, 'context');
      const listed = isPlainRecord(value) && Array.isArray(value.passages) ? value.passages : Array.isArray(value) ? value : undefined;
      // Each listed passage may name a file; a single value was read above (read twice, an escaped `$${file:}` would be read as a reference).
      const list = listed ?? [value];
      const passages = (listed ? listed.map((p) => read(p, 'context')) : list).map((p) => (typeof p === 'string' ? p : isPlainRecord(p) && typeof p.text === 'string' ? p.text : undefined));
      if (passages.some((p) => p === undefined)) throw new Error('each passage must be text or {text: …}');
      const chars = (passages as string[]).reduce((n, p) => n + p.length, 0);
      if (chars > MAX_CONTEXT_CHARS) throw new Error(`the context is ${chars.toLocaleString('en-US')} characters; above ${MAX_CONTEXT_CHARS.toLocaleString('en-US')} it is not judged`);
      const kept = (passages as string[]).map((text, i) => ({ text, raw: list[i] })).filter((p) => p.text.trim().length > 0);
      out.context = kept.map((p) => p.text);
      // Ids in rank order, for context-precision (a passage written as plain text has none).
      if (kept.some((p) => isPlainRecord(p.raw) && (typeof p.raw.id === 'string' || typeof p.raw.id === 'number'))) out.passageIds = kept.map((p) => (isPlainRecord(p.raw) && (typeof p.raw.id === 'string' || typeof p.raw.id === 'number') ? String(p.raw.id) : null));
    } catch (error) {
      out.contextProblem = `context not used: ${(error as Error).message}`;
      problems.push(`${where}: ${out.contextProblem}.`);
    }
  }
  if (rawReference !== undefined) {
    try {
      const value = read(rawReference, 'reference');
      out.reference = typeof value === 'string' ? value : JSON.stringify(value);
    } catch (error) {
      problems.push(`${where}: reference not used: ${(error as Error).message}.`);
    }
  }
  return out;
}
