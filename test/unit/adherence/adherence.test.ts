import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseJudgeVerdict, scoreRun, type ScoredRun } from '../../../src/core/adherence/score';
import { loadTestSuite, sidecarPathFor, type Assertion, type TestCase } from '../../../src/core/adherence/testCases';
import { parsePromptFile } from '../../../src/core/formats/detect';
import { readFileSync } from 'node:fs';

const answer = (text: string, extra: Partial<ScoredRun> = {}): ScoredRun => ({ answer: text, ok: true, ttftMs: 200, e2eMs: 900, ...extra });
const one = (a: Partial<Assertion> & { type: Assertion['type'] }): TestCase => ({ description: 'c', vars: { city: 'Bellevue' }, threshold: 1, assertions: [{ negate: false, weight: 1, label: a.type, ...a }] });
const passes = async (a: Partial<Assertion> & { type: Assertion['type'] }, text: string, extra: Partial<ScoredRun> = {}) => (await scoreRun(one(a), answer(text, extra))).pass;

describe('assertions (promptfoo vocabulary)', () => {
  it.each([
    [{ type: 'equals', value: 'Detached' }, ' Detached ', true],
    [{ type: 'equals', value: { a: 1 } }, '{"a":1}', true],
    [{ type: 'contains', value: 'Single-family' }, 'A Single-family house', true],
    [{ type: 'contains', value: 'single-family' }, 'A Single-family house', false],
    [{ type: 'icontains', value: 'single-family' }, 'A Single-family house', true],
    [{ type: 'icontains', value: '{{city}}' }, 'homes in bellevue', true],
    [{ type: 'contains-any', value: ['condo', 'house'] }, 'a house', true],
    [{ type: 'contains-all', value: ['house', 'condo'] }, 'a house', false],
    [{ type: 'icontains-any', value: ['APARTMENT', 'condo'] }, 'an apartment', true],
    [{ type: 'icontains-all', value: ['HOUSE', 'price'] }, 'house, price', true],
    [{ type: 'starts-with', value: '1.' }, '  1. house', true],
    [{ type: 'ends-with', value: 'Bellevue' }, 'house in Bellevue\n', true],
    [{ type: 'regex', value: '\\$[\\d,]+' }, 'costs $1,150,000', true],
    [{ type: 'is-json' }, '```json\n{"homes": []}\n```', true],
    [{ type: 'is-json' }, 'here: {"homes": []}', false],
    [{ type: 'contains-json' }, 'here: {"homes": [1, "}"]} done', true],
    [{ type: 'json-schema', value: { type: 'object', required: ['homes'], properties: { homes: { type: 'array', items: { type: 'string' } } } } }, '{"homes": ["a"]}', true],
    [{ type: 'json-schema', value: { type: 'object', required: ['homes'] } }, '{"houses": []}', false],
    [{ type: 'word-count', value: { min: 2, max: 4 } }, 'one two three', true],
    [{ type: 'word-count', value: { max: 2 } }, 'one two three', false],
    [{ type: 'length', value: { max: 5 } }, '中文中文中', true],
    [{ type: 'latency', threshold: 1000 }, 'x', true],
    [{ type: 'ttft', threshold: 100 }, 'x', false],
  ] as [Partial<Assertion> & { type: Assertion['type'] }, string, boolean][])('%j on %j → %s', async (assertion, text, expected) => {
    expect(await passes(assertion, text)).toBe(expected);
    expect(await passes({ ...assertion, negate: true }, text)).toBe(!expected);
  });

  it('weights and thresholds: the score is the weighted share passed; a failed run is unscored, not 0', async () => {
    const testCase: TestCase = {
      description: 'homes',
      vars: {},
      threshold: 0.7,
      assertions: [
        { type: 'icontains', negate: false, value: 'single-family', weight: 3, label: 'sf' },
        { type: 'icontains-any', negate: true, value: ['apartment', 'condo'], weight: 1, label: 'no apt' },
      ],
    };
    expect(await scoreRun(testCase, answer('Single-family house; also a condo'))).toMatchObject({ score: 0.75, pass: true });
    expect(await scoreRun(testCase, answer('a condo'))).toMatchObject({ score: 0, pass: false });
    expect(await scoreRun(testCase, answer('Single-family', { ok: false, errorMessage: 'connection reset' }))).toMatchObject({ status: 'unscored', score: null, pass: false, unscoredReason: 'the run failed: connection reset, so its answer was not scored' });
  });

  it('llm-rubric asks the judge and reads its verdict robustly; without a judge it is undecided with the reason', async () => {
    const testCase = one({ type: 'llm-rubric', value: 'Lists only detached houses', threshold: 0.6 });
    const judged = await scoreRun(testCase, answer('Single-family house'), async (messages) => {
      expect(messages.at(-1)!.content).toContain('Lists only detached houses');
      return 'Sure! ```json\n{"pass": true, "score": 0.9, "reason": "only houses"}\n```';
    });
    expect(judged).toMatchObject({ pass: true, results: [{ score: 0.9 }] });
    expect((await scoreRun(testCase, answer('x'))).results[0]).toMatchObject({ outcome: 'undecided', reason: expect.stringContaining('no judge configured') });
    expect(parseJudgeVerdict('Verdict: FAIL — it lists a condo')).toMatchObject({ pass: false, score: 0 });
    expect(parseJudgeVerdict('{"verdict": "pass"}')).toMatchObject({ pass: true, score: 1 });
    expect(parseJudgeVerdict('{"pass": false, "score": 0.2}')).toMatchObject({ pass: false, score: 0.2 });
    expect(parseJudgeVerdict('no idea')).toMatchObject({ pass: false });
    expect(parseJudgeVerdict('hmm')).toBeUndefined();
  });
});

describe('test case sources', () => {
  it('sidecar NAME.tests.yaml beside any non-GitHub prompt file', () => {
    expect(sidecarPathFor('/w/examples/homes.prompty')).toBe('/w/examples/homes.tests.yaml');
    expect(sidecarPathFor('homes.prompt.md')).toBe('homes.tests.yaml');
    const text = readFileSync('examples/homes/homes.prompty', 'utf8');
    const doc = parsePromptFile('homes.prompty', text);
    const suite = loadTestSuite('examples/homes/homes.prompty', text, doc.format, doc.prompts[0]!, (p) => readFileSync(p, 'utf8'));
    expect(suite.problems).toEqual([]);
    expect(suite.cases.length).toBeGreaterThanOrEqual(1);
    expect(suite.cases[0]!.assertions.map((a) => `${a.negate ? 'not-' : ''}${a.type}`)).toEqual(['not-icontains-any', 'icontains']); // defaultTest's check first
  });

  it('a case without a description is named by its inputs, not "case 1"; scenario and slo at the top of the tests file are kept', () => {
    const text = readFileSync('examples/homes/homes.prompty', 'utf8');
    const doc = parsePromptFile('homes.prompty', text);
    const sidecar = 'scenario: batch\nslo:\n  ttftMs: { p90: 900 }\ntests:\n  - vars: { city: "Bellevue, WA", request: "Find homes nearby with at least three bedrooms and a yard." }\n    assert: [{ type: contains, value: house }]\n  - vars: {}\n    assert: [{ type: contains, value: house }]\n';
    const suite = loadTestSuite('h/homes.prompty', text, doc.format, doc.prompts[0]!, () => sidecar);
    expect(suite.cases.map((c) => c.description)).toEqual(['#1 city=Bellevue, WA · request=Find homes nearby with at least…', 'case 2']);
    expect(suite.rollout).toEqual({ scenario: 'batch', slo: { ttftMs: { p90: 900 } } });
  });

  it('scenario and slo in a prompt file: Prompty front matter and a .prompt.yml top level', () => {
    const prompty = parsePromptFile('p.prompty', '---\nname: p\nscenario: decision\nslo:\n  adherence: { min: 0.95 }\n---\nuser:\nhi\n');
    expect(prompty.prompts[0]!.rollout).toEqual({ scenario: 'decision', slo: { adherence: { min: 0.95 } } });
    const yml = parsePromptFile('p.prompt.yml', 'name: p\nmodel: openai/gpt-4o-mini\nscenario: interactive\nmessages:\n  - role: user\n    content: hi\n');
    expect(yml.prompts[0]!.rollout).toEqual({ scenario: 'interactive' });
    // A typo is a diagnostic at the key, in the editor, before anyone compares.
    const typo = parsePromptFile('p.prompty', '---\nname: p\nscenario: chat\nslo:\n  ttftMs: { p42: 100 }\n---\nuser:\nhi\n');
    const messages = typo.diagnostics.filter((d) => d.code === 'invalid-field').map((d) => d.message);
    expect(messages).toEqual([
      "'scenario' must be one of interactive, batch, decision; Compare revisions refuses anything else.",
      "slo: slo.ttftMs.p42: unknown percentile 'p42' (use p50, p90, p95 or p99)",
    ]);
    expect(typo.diagnostics.find((d) => d.message.startsWith("'scenario'"))!.range).toEqual({ start: 22, end: 26 }); // on 'chat'
  });

  it('front-matter tests: key wins over the sidecar; bad assertions are reported, not thrown', () => {
    const text = '---\nname: t\ntests:\n  - vars: { x: 1 }\n    assert:\n      - type: contains\n        value: yes\n      - type: telepathy\n      - type: latency\n  - description: empty\n---\nuser:\nhi {{x}}\n';
    const doc = parsePromptFile('t.prompty', text);
    const suite = loadTestSuite('t.prompty', text, doc.format, doc.prompts[0]!, () => undefined);
    expect(suite.cases).toHaveLength(1);
    expect(suite.problems.join('\n')).toMatch(/telepathy.*not supported[\s\S]*latency.*threshold[\s\S]*no usable assertion/);
  });

  it('GitHub testData × evaluators: string evaluators, llm evaluators, unsupported built-ins reported', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'pi-gh-'));
    const text = `name: homes
model: openai/gpt-4o-mini
messages:
  - role: user
    content: "Find homes in {{city}}"
testData:
  - city: Bellevue
    expected: single-family
  - city: Redmond
    expected: single-family
evaluators:
  - name: says the type
    string:
      contains: "{{expected}}"
  - name: judge
    llm:
      modelId: openai/gpt-4o-mini
      prompt: "Does this list only houses? {{completion}} Answer good or bad."
      choices:
        - choice: good
          score: 1
        - choice: bad
          score: 0
  - name: similarity
    uses: github/similarity
`;
    writeFileSync(join(dir, 'homes.prompt.yml'), text);
    const doc = parsePromptFile('homes.prompt.yml', text);
    const suite = loadTestSuite(join(dir, 'homes.prompt.yml'), text, doc.format, doc.prompts[0]!, () => undefined);
    expect(suite.cases).toHaveLength(2);
    expect(suite.cases[1]!.vars).toMatchObject({ city: 'Redmond', expected: 'single-family' });
    expect(suite.problems.join('\n')).toContain("built-in evaluator 'github/similarity' is not supported");
    const scored = await scoreRun(suite.cases[0]!, answer('A single-family house'), async () => 'good');
    expect(scored).toMatchObject({ pass: true, score: 1 });
    const bad = await scoreRun(suite.cases[0]!, answer('A single-family house'), async () => 'Bad.');
    expect(bad.pass).toBe(false);
  });
});

describe('regex assertions from untrusted test files run in bounded time', () => {
  it('a catastrophic pattern (nested quantifiers) decides at once on RE2, as a JavaScript regex would', async () => {
    const started = performance.now();
    expect(await passes({ type: 'regex', value: '^(a+)+$' }, `${'a'.repeat(29)}!`)).toBe(false);
    expect(await passes({ type: 'regex', value: '^(a+)+$' }, 'a'.repeat(29))).toBe(true);
    expect(performance.now() - started).toBeLessThan(5000);
  });

  it('a pattern RE2 cannot run (backreference) that backtracks forever is stopped and fails with the reason, negated or not', async () => {
    const evil = '^(a+)+\\1$';
    const text = `${'a'.repeat(40)}!`;
    for (const negate of [false, true]) {
      const result = await scoreRun(one({ type: 'regex', value: evil, negate }), answer(text));
      expect(result.pass).toBe(false);
      expect(result.results[0]!.reason).toMatch(/did not finish within 1000 ms/);
    }
  });

  it('lookaround and backreferences still work where they finish', async () => {
    expect(await passes({ type: 'regex', value: '(?<=\\$)\\d+' }, 'costs $42')).toBe(true);
    expect(await passes({ type: 'regex', value: '(\\w)\\1' }, 'tall')).toBe(true);
    expect(await passes({ type: 'regex', value: '(\\w)\\1' }, 'tal')).toBe(false);
  });
});
