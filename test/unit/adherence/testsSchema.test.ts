/**
 * The tests-file schema (schemas/tests.schema.json) and the engine cannot drift: every assertion type
 * the engine scores is in the schema's enum (with its `not-` form and a one-line meaning) and every
 * type the schema offers is scored. What the schema finds wrong is said in plain words and skipped by
 * the loader, so a malformed assertion never passes unseen (a `not-icontains-any` without its list
 * used to pass every answer).
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { evaluateCheck } from '../../../src/core/adherence/assertionChecks';
import { ASSERTION_TYPES } from '../../../src/core/adherence/assertionTypes';
import { JUDGE_TYPES } from '../../../src/core/adherence/checkText';
import { CASE_CHECK_TYPES } from '../../../src/core/adherence/contextPrecision';
import { scoreRun } from '../../../src/core/adherence/score';
import { loadTestSuite, type Assertion, type TestSuite } from '../../../src/core/adherence/testCases';
import { checkTestsFile } from '../../../src/core/adherence/testsFileCheck';
import { schemaAt, supportedTypes, testsFindings, TESTS_SCHEMA } from '../../../src/core/adherence/testsSchema';
import type { Prompt } from '../../../src/core/formats/model';
import { caseObject } from '../../../src/core/sampling/testsFileAppend';

/** One usable assertion of each type, as a user writes it; a type without one here fails the first test. */
const EXAMPLES: Record<string, Record<string, unknown>> = {
  equals: { value: 'Detached' },
  contains: { value: 'house' },
  icontains: { value: 'house' },
  'contains-any': { value: ['house', 'villa'] },
  'contains-all': { value: ['house', 'yard'] },
  'icontains-any': { value: ['apartment', 'condo'] },
  'icontains-all': { value: ['house', 'yard'] },
  'starts-with': { value: '1.' },
  'ends-with': { value: '.' },
  regex: { value: '\\$[\\d,]+' },
  'is-json': {},
  'contains-json': { value: { type: 'object' } },
  'json-schema': { value: { type: 'object', required: ['homes'] } },
  'word-count': { value: { min: 1, max: 200 } },
  length: { value: 400 },
  latency: { threshold: 5000 },
  ttft: { threshold: 1000 },
  'llm-rubric': { value: 'Recommends only single-family houses.' },
  faithfulness: { threshold: 0.8 },
  'context-faithfulness': {},
  hallucination: { strict: true },
  factuality: { value: '12 Elm St costs $850,000.' },
  'answer-correctness': { threshold: 0.6 },
  'context-recall': {},
  'context-relevance': {},
  'answer-relevance': {},
  'context-precision': { threshold: 0.8 },
};

const sidecarSuite = (yaml: string): TestSuite => loadTestSuite('/w/homes.prompty', '---\nname: homes\n---\nuser:\nhi\n', 'prompty', {} as Prompt, () => yaml);

describe('the tests-file schema and the engine', () => {
  it('name the same assertion types: each in the enum with its not- form and a one-line meaning, each scored by the engine', async () => {
    // llm-choice is GitHub's llm evaluator (testData × evaluators), never written in a tests file.
    const engine = ASSERTION_TYPES.filter((t) => t !== 'llm-choice');
    expect([...supportedTypes()].sort()).toEqual([...engine].sort());
    expect(Object.keys(EXAMPLES).sort()).toEqual([...engine].sort());
    const type = schemaAt(['tests', 0, 'assert', 0, 'type'])!;
    expect(type.enum).toEqual(engine.flatMap((t) => [t, `not-${t}`]));
    expect(type.enumDescriptions).toHaveLength(type.enum!.length);
    for (const meaning of type.enumDescriptions!) expect(meaning).toMatch(/^Passes when [^\n]{10,200}\.$/);

    for (const [name, fields] of Object.entries(EXAMPLES)) {
      for (const written of [name, `not-${name}`]) {
        const suite = sidecarSuite(JSON.stringify({ tests: [{ vars: {}, assert: [{ type: written, ...fields }] }] }));
        expect(suite.problems, written).toEqual([]);
        const assertion = suite.cases[0]!.assertions[0]!;
        expect(assertion).toMatchObject({ type: name, negate: written.startsWith('not-') });
        // Scored: by a judge, by the case's passages, or by the answer checks — never "not known".
        if (!JUDGE_TYPES.has(assertion.type) && !CASE_CHECK_TYPES.has(assertion.type)) {
          const verdict = await evaluateCheck(assertion as Assertion, { answer: '{"homes": []}', vars: {}, ttftMs: 300, e2eMs: 900 });
          expect(verdict.reason, written).not.toMatch(/not known/);
        }
      }
    }
  });

  it('is the file contributed to the YAML extension, and compiles under Ajv strict mode', () => {
    const manifest = JSON.parse(readFileSync('package.json', 'utf8')) as { contributes: { yamlValidation: { fileMatch: string[]; url: string }[] } };
    expect(manifest.contributes.yamlValidation).toEqual([{ fileMatch: ['*.tests.yaml', '*.tests.yml'], url: './schemas/tests.schema.json' }]);
    expect(JSON.parse(readFileSync('schemas/tests.schema.json', 'utf8'))).toEqual(TESTS_SCHEMA);
    expect(testsFindings({ tests: [] })).toEqual([]);
    expect(readFileSync('.vscodeignore', 'utf8').split('\n')).toContain('!schemas/tests.schema.json');
  });

  it('says what is wrong in plain words at the node, and the loader skips exactly those assertions', async () => {
    const text = readFileSync('examples/homes/homes.tests.yaml', 'utf8').replace('        value: single-family\n', '        value: single-family\n      - type: not-icontains-any\n      - type:\n      - type: latency\n      - type: regex\n        value: "(unclosed"\n      - type: icontains\n        value: yard\n        weight: -1\n        provider: openai\n');
    const checked = checkTestsFile(text);
    const line = (needle: string) => text.split('\n').findIndex((l) => l.includes(needle)) + 1;
    expect(checked.findings.map((f) => [f.line, f.severity, f.message])).toEqual([
      [line('      - type: not-icontains-any'), 'error', "'not-icontains-any' needs a `value`: the texts to look for, as a list, e.g. value: [apartment, condo]"],
      [text.split('\n').indexOf('      - type:') + 1, 'error', 'needs a `type`, e.g. type: icontains'],
      [line('type: latency'), 'error', "'latency' needs a threshold in milliseconds"],
      [line('(unclosed'), 'error', 'invalid regex: Invalid regular expression: /(unclosed/: Unterminated group'],
      [line('weight: -1'), 'error', '`weight` must be a number of 0 or more'],
      [line('provider'), 'warning', '`provider` is not read by Prompt Insight; it is ignored'],
    ]);
    const suite = sidecarSuite(text);
    expect(suite.problems[0]).toBe(`homes.tests.yaml:${line('      - type: not-icontains-any')}: tests[0].assert[1]: 'not-icontains-any' needs a \`value\`: the texts to look for, as a list, e.g. value: [apartment, condo].`);
    expect(suite.problems).toHaveLength(6);
    // Only the good assertion runs: an answer naming a condo fails it, and nothing malformed passes for it.
    expect(suite.cases[0]!.assertions.map((a) => a.label)).toHaveLength(2); // defaultTest's check and the case's good one
    expect(suite.cases[0]!.assertions.map((a) => a.label)).toContain('icontains "single-family"');
    const scored = await scoreRun(suite.cases[0]!, { answer: 'A condo downtown.', ok: true, ttftMs: 100, e2eMs: 200 });
    expect(scored.status).toBe('fail');
  });

  it('checks front-matter tests with the same schema and words (no lines there)', () => {
    const text = '---\nname: t\ntests:\n  - vars: { x: 1 }\n    assert:\n      - type: contains-all\n        value: []\n      - type: contains\n        value: yes\n---\nuser:\nhi {{x}}\n';
    const suite = loadTestSuite('t.prompty', text, 'prompty', {} as Prompt, () => undefined);
    expect(suite.problems).toEqual(['front matter: tests[0].assert[0]: `value` must list the texts to look for, e.g. value: [apartment, condo].']);
    expect(suite.cases[0]!.assertions.map((a) => a.type)).toEqual(['contains']);
  });

  it('finds nothing wrong in the files the tools write: the examples and the cases sample appends', () => {
    for (const file of ['examples/homes/homes.tests.yaml', 'examples/homes/listings.tests.yaml']) expect(checkTestsFile(readFileSync(file, 'utf8')).findings, file).toEqual([]);
    const sampled = caseObject({ endTime: '2026-12-01T02:00:00Z', traceId: 'a'.repeat(32), spanId: 'b'.repeat(16), version: '2', vars: { city: 'Bellevue, WA' }, e2eMs: 1800, inputs: {} } as never, 'slowest', true);
    expect(testsFindings({ tests: [sampled] })).toEqual([]);
  });

  it('holds the rollout fields to what Compare revisions accepts', () => {
    const findings = testsFindings({ scenario: 'chat', slo: { ttfMs: { p90: 100 }, e2eMs: { p42: 1, p90: 0 }, adherence: { min: 90 } } });
    expect(findings.map((f) => `${f.path.join('.')}: ${f.message}`)).toEqual([
      'scenario: `scenario` must be one of interactive, batch, decision; Compare revisions refuses anything else',
      'slo.ttfMs: `ttfMs` is not an SLO metric: use ttftMs, e2eMs, tpotMs, adherence or hallucination',
      'slo.e2eMs.p42: `p42` is not a percentile: use p50, p90, p95 or p99',
      'slo.e2eMs.p90: the ceiling must be a positive number of milliseconds',
      'slo.adherence.min: the adherence floor must be a rate from 0 to 1',
    ]);
  });
});
