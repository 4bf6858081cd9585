/**
 * Sampled production cases appended to a promptfoo-style tests file (`NAME.tests.yaml`), through the
 * `yaml` library's document model so the file's comments and existing cases stay exactly as they
 * are: nothing is overwritten or reordered, the new cases go at the end of `tests:`. Each case carries
 * its provenance in `metadata` (promptfoo's field for it) and, unless the file's `defaultTest` has
 * assertions, one assertion so the case is runnable: no slower than 1.5× what production took.
 */
import { isMap, isSeq, parseDocument, YAMLSeq, type Document } from 'yaml';
import { turnsOfLegacy } from '../adherence/caseTurns';
import { stableKey, type SampledCase, type Strategy } from './productionSample';

export interface TestsFile {
  doc: Document;
  /** Inputs of the cases already there (same keys as sampled cases'). */
  existingKeys: Set<string>;
  hasDefaultAssertions: boolean;
  existingCases: number;
}

export class TestsFileError extends Error {}

export function readTestsFile(text: string | undefined, where: string): TestsFile {
  const doc = parseDocument(text ?? '# Test cases; `prompt-insight sample` appends production requests here.\ntests: []\n');
  const error = doc.errors[0];
  if (error) throw new TestsFileError(`${where} is not valid YAML (${error.message.split('\n')[0]}): nothing is written`);
  if (doc.contents === null) doc.contents = doc.createNode({}) as never;
  if (isMap(doc.contents) && !doc.contents.has('tests')) (doc.contents as unknown as { set(k: string, v: unknown): void }).set('tests', new YAMLSeq());
  const tests: unknown = isSeq(doc.contents) ? doc.contents : isMap(doc.contents) ? doc.contents.get('tests', true) : undefined;
  if (!isSeq(tests)) throw new TestsFileError(`${where}: \`tests:\` is not a list: nothing is written`);
  const existingKeys = new Set<string>();
  for (const item of tests.toJSON() as unknown[]) {
    if (typeof item !== 'object' || item === null) continue;
    const raw = item as { vars?: unknown; turns?: unknown; messages?: unknown };
    if (raw.turns !== undefined) existingKeys.add(stableKey({ turns: raw.turns }));
    else if (Array.isArray(raw.messages)) existingKeys.add(stableKey({ turns: turnsOfLegacy(raw.messages) }));
    else if (raw.vars !== undefined) existingKeys.add(stableKey({ vars: raw.vars }));
  }
  const defaultTest = isMap(doc.contents) ? (doc.contents.toJSON() as { defaultTest?: { assert?: unknown } }).defaultTest : undefined;
  return { doc, existingKeys, hasDefaultAssertions: Array.isArray(defaultTest?.assert) && defaultTest.assert.length > 0, existingCases: tests.items.length };
}

/** The latency bound written with a case: 1.5× production's E2E, rounded up to 100 ms, at least 1 s. */
export function latencyBoundMs(e2eMs: number): number {
  return Math.max(1000, Math.ceil((e2eMs * 1.5) / 100) * 100);
}

/** What went wrong with the call, for the case's description: `failed (429)`, `no answer`, or nothing. */
export function failureWords(c: Pick<SampledCase, 'errorType' | 'noAnswer'>): string {
  return c.errorType ? `failed (${c.errorType})` : c.noAnswer ? 'no answer' : '';
}

export function caseObject(c: SampledCase, strategy: Strategy, withAssertion: boolean): Record<string, unknown> {
  const failure = failureWords(c);
  return {
    description: `production ${c.endTime} · trace ${c.traceId.slice(0, 12)} · version ${c.version}${failure ? ` · ${failure}` : ''}`,
    // Production's turns are sent after the current prompt's instructions (run/caseTurns.ts): never an older system text.
    ...(c.turns ? { turns: c.turns } : { vars: c.vars }),
    ...(withAssertion ? { assert: [{ type: 'latency', threshold: latencyBoundMs(c.e2eMs), metric: 'no slower than 1.5× production' }] } : {}),
    metadata: {
      source: 'production',
      traceId: c.traceId,
      spanId: c.spanId,
      endTime: c.endTime,
      version: c.version,
      strategy,
      inputs: c.inputs,
      productionE2eMs: Math.round(c.e2eMs),
      ...(c.errorType ? { errorType: c.errorType } : {}),
    },
  };
}

/** The file's text with the cases appended at the end of `tests:`. */
export function appendCases(file: TestsFile, cases: readonly SampledCase[], strategy: Strategy): string {
  const tests = (isSeq(file.doc.contents) ? file.doc.contents : (file.doc.contents as unknown as { get(k: string, keep: true): unknown }).get('tests', true)) as YAMLSeq;
  tests.flow = false;
  for (const c of cases) tests.add(file.doc.createNode(caseObject(c, strategy, !file.hasDefaultAssertions)));
  return file.doc.toString({ lineWidth: 0, flowCollectionPadding: false });
}

/** A run's answer the user keeps as a test case (the editor's Add This Answer as a Test Case). */
export interface AnswerCase {
  /** The inputs the run sent. */
  vars: Record<string, unknown>;
  answer: string;
  /** Where the answer came from, for the case's description: `run at 16:05:09 on llama.cpp`. */
  from: string;
}

/** The longest stub value taken from the answer: a phrase, not the answer. */
const STUB_CHARS = 60;

/**
 * The case: the run's inputs, and a stub assertion to make precise — the answer's first line (cut to a
 * phrase), which this answer passes, so the case starts green and fails when an answer drifts from it.
 */
export function answerCaseObject(c: AnswerCase): Record<string, unknown> {
  const firstLine = c.answer.split('\n').map((l) => l.trim()).find((l) => l !== '') ?? '';
  const phrase = firstLine.length > STUB_CHARS ? firstLine.slice(0, STUB_CHARS).replace(/\s+\S*$/, '') || firstLine.slice(0, STUB_CHARS) : firstLine;
  return {
    description: `answer of the ${c.from}`,
    ...(Object.keys(c.vars).length > 0 ? { vars: c.vars } : {}),
    assert: [phrase ? { type: 'icontains', value: phrase, metric: 'stub: make this what a good answer must hold' } : { type: 'not-equals', value: '', metric: 'stub: make this what a good answer must hold' }],
    metadata: { source: 'editor run' },
  };
}

/** The file's text with the answer's case appended at the end of `tests:`. */
export function appendAnswerCase(file: TestsFile, c: AnswerCase): string {
  const tests = (isSeq(file.doc.contents) ? file.doc.contents : (file.doc.contents as unknown as { get(k: string, keep: true): unknown }).get('tests', true)) as YAMLSeq;
  tests.flow = false;
  tests.add(file.doc.createNode(answerCaseObject(c)));
  return file.doc.toString({ lineWidth: 0, flowCollectionPadding: false });
}
