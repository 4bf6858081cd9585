/**
 * Grounded evaluators (issue 25) against a scripted judge — a real OpenAI-compatible HTTP server on
 * 127.0.0.1 replaying the claims and verdicts of Ragas's and DeepEval's documented worked examples —
 * and what happens when the judge fails, answers off-format or the answer refuses: UNDETERMINED, counted
 * apart with its reason, never a 0 and never NaN in the rate.
 */
import { mkdirSync, mkdtempSync, realpathSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adherenceOf, scoreRun, type ScoredRun } from '../../../src/core/adherence/score';
import { loadTestSuite, type Assertion, type TestCase } from '../../../src/core/adherence/testCases';
import { MAX_CONTEXT_CHARS } from '../../../src/core/adherence/assertionTypes';
import type { Prompt } from '../../../src/core/formats/model';
import { parsePromptFile } from '../../../src/core/formats/detect';
import { startScriptedJudge, type ScriptedJudge } from './scriptedJudge';

const run = (text: string): ScoredRun => ({ answer: text, ok: true, ttftMs: 100, e2eMs: 400 });
const caseOf = (extra: Partial<TestCase>, ...assertions: (Partial<Assertion> & { type: Assertion['type'] })[]): TestCase => ({
  description: 'c', vars: {}, threshold: 1, ...extra,
  assertions: assertions.map((a) => ({ negate: false, weight: 1, label: a.label ?? a.type, ...a })),
});

// Ragas, "Faithfulness" (docs.ragas.io, metrics/available_metrics/faithfulness): the Einstein example.
const EINSTEIN_CONTEXT = 'Albert Einstein (born 14 March 1879) was a German-born theoretical physicist, widely held to be one of the greatest and most influential scientists of all time.';
const EINSTEIN_QUESTION = 'Where and when was Einstein born?';
const HIGH = 'Einstein was born in Germany on 14th March 1879.';
const LOW = 'Einstein was born in Germany on 20th March 1879.';
// Not in Ragas's page: the low answer plus a claim the context does not mention, where the two definitions part.
const LOW_PLUS = 'Einstein was born in Germany on 20th March 1879. He won the Nobel Prize in 1921.';
const HIGH_PLUS = 'Einstein was born in Germany on 14th March 1879. He won the Nobel Prize in 1921.';
// DeepEval, "Faithfulness" (deepeval.com/docs/metrics-faithfulness): the shoe refund example.
const REFUND_CONTEXT = 'All customers are eligible for a 30 day full refund at no extra cost.';
const REFUND_ANSWER = 'We offer a 30-day full refund at no extra cost.';
// Ragas, "Answer Correctness" / "Factual Correctness": ground truth and the low-correctness answer.
const GROUND_TRUTH = 'Einstein was born in 1879 in Germany.';
const SPAIN = 'Einstein was born in Spain in 1879.';

const verdict = (claim: number, v: string, passage: number | null, reason = '') => ({ claim, verdict: v, ...(passage !== null ? { passage } : {}), reason });

let judge: ScriptedJudge;
beforeAll(async () => {
  judge = await startScriptedJudge([
    { step: 'claims', when: `Text:\n${HIGH_PLUS}`, reply: { claims: ['Einstein was born in Germany.', 'Einstein was born on 14th March 1879.', 'Einstein won the Nobel Prize in 1921.'] } },
    { step: 'claims', when: `Text:\n${HIGH}`, reply: { claims: ['Einstein was born in Germany.', 'Einstein was born on 14th March 1879.'] } },
    { step: 'claims', when: `Text:\n${LOW_PLUS}`, reply: { claims: ['Einstein was born in Germany.', 'Einstein was born on 20th March 1879.', 'Einstein won the Nobel Prize in 1921.'] } },
    { step: 'claims', when: `Text:\n${LOW}`, reply: 'Sure! Here are the claims:\n```json\n{"claims": ["Einstein was born in Germany.", "Einstein was born on 20th March 1879."]}\n```' },
    { step: 'claims', when: `Text:\n${REFUND_ANSWER}`, reply: { claims: ['The shop offers a 30-day full refund at no extra cost.'] } },
    { step: 'claims', when: `Text:\n${SPAIN}`, reply: { claims: ['Einstein was born in Spain.', 'Einstein was born in 1879.'] } },
    { step: 'claims', when: `Text:\n${GROUND_TRUTH}`, reply: { claims: ['Einstein was born in 1879.', 'Einstein was born in Germany.'] } },
    { step: 'claims', when: 'Text:\nI cannot help with that.', reply: { claims: [], refusal: true } },
    { step: 'claims', when: 'Text:\nHello there!', reply: { claims: [] } },
    { step: 'claims', when: 'Text:\nJUDGE DOWN', status: 500 },
    { step: 'claims', when: 'Text:\nPROSE JUDGE', reply: 'The answer looks fine to me.' },
    { step: 'claims', when: 'Text:\nNO CITATION', reply: { claims: ['The moon is made of cheese.'] } },
    { step: 'verdicts', when: '1. The moon is made of cheese.', reply: { verdicts: [{ claim: 1, verdict: 'contradicted', reason: 'no passage given' }] } },
    { step: 'verdicts', when: '1. Einstein was born in Germany.\n2. Einstein was born on 14th March 1879.\n3.', reply: { verdicts: [verdict(1, 'supported', 1), verdict(2, 'supported', 1), verdict(3, 'not mentioned', null, 'the passage says nothing of prizes')] } },
    { step: 'verdicts', when: '1. Einstein was born in Germany.\n2. Einstein was born on 14th March 1879.', reply: { verdicts: [verdict(1, 'supported', 1, 'German-born'), verdict(2, 'supported', 1, 'born 14 March 1879')] } },
    { step: 'verdicts', when: '1. Einstein was born in Germany.\n2. Einstein was born on 20th March 1879.\n3.', reply: { verdicts: [verdict(1, 'supported', 1), verdict(2, 'contradicted', 1, 'the context says 14 March 1879'), verdict(3, 'not mentioned', null)] } },
    { step: 'verdicts', when: '1. Einstein was born in Germany.\n2. Einstein was born on 20th March 1879.', reply: { verdicts: [verdict(1, 'supported', 1, 'German-born'), verdict(2, 'contradicted', 1, 'the context says 14 March 1879')] } },
    { step: 'verdicts', when: '1. The shop offers a 30-day full refund', reply: { verdicts: [verdict(1, 'supported', 1)] } },
    // answer-correctness: answer claims against the ground truth, then ground-truth claims against the answer.
    { step: 'verdicts', when: `[1] ${GROUND_TRUTH}\n\nClaims:\n1. Einstein was born in Spain.`, reply: { verdicts: [verdict(1, 'contradicted', 1), verdict(2, 'supported', 1)] } },
    { step: 'verdicts', when: `[1] ${SPAIN}\n\nClaims:\n1. Einstein was born in 1879.`, reply: { verdicts: [verdict(1, 'supported', 1), verdict(2, 'contradicted', 1)] } },
  ]);
});
afterAll(() => judge.close());

const einstein = (answer: string, ...assertions: (Partial<Assertion> & { type: Assertion['type'] })[]) =>
  scoreRun(caseOf({ vars: { query: EINSTEIN_QUESTION }, context: [EINSTEIN_CONTEXT] }, ...assertions), run(answer), judge.judge);

describe('faithfulness against the worked examples', () => {
  it("Ragas's Einstein example: the high answer 1.0, the low answer 0.5 (1 of 2 claims supported), every verdict citing claim and passage", async () => {
    const high = await einstein(HIGH, { type: 'faithfulness' });
    expect(high.results[0]).toMatchObject({ outcome: 'pass', score: 1, grounded: { claims: { supported: 2, contradicted: 0, notMentioned: 0, total: 2 } } });
    const low = await einstein(LOW, { type: 'faithfulness', threshold: 0.9 });
    expect(low.results[0]).toMatchObject({ outcome: 'fail', score: 0.5, grounded: { claims: { supported: 1, contradicted: 1, notMentioned: 0, total: 2 }, hallucinated: true } });
    expect(low.results[0]!.grounded!.citations[1]).toBe(`claim 2 "Einstein was born on 20th March 1879." contradicted by passage 1 "${EINSTEIN_CONTEXT.slice(0, 99)}…": the context says 14 March 1879`);
    expect(low.results[0]!.reason).toMatch(/^faithfulness 0\.50: 1 supported, 1 contradicted, 0 not mentioned of 2 claims, pass at 0\.9; claim 2 "Einstein was born on 20th March 1879\." contradicted by passage 1/);
  });

  it('where the definitions part — a claim the context does not mention: ours and Ragas 1/3 (supported ÷ all), DeepEval 2/3 (not contradicted ÷ all, "idk" faithful)', async () => {
    const scored = await einstein(LOW_PLUS, { type: 'faithfulness' });
    const c = scored.results[0]!.grounded!.claims!;
    expect(c).toEqual({ supported: 1, contradicted: 1, notMentioned: 1, total: 3 });
    expect(scored.results[0]!.score).toBeCloseTo(1 / 3, 12);
    const deepEval = (c.supported + c.notMentioned) / c.total;
    expect(deepEval).toBeCloseTo(2 / 3, 12);
    // Without the contradiction: ours 2/3, DeepEval 3/3 = 1.0 — an unsupported claim is not "faithful" here.
    const plus = (await einstein(HIGH_PLUS, { type: 'faithfulness' })).results[0]!;
    expect(plus.score).toBeCloseTo(2 / 3, 12);
    expect((plus.grounded!.claims!.supported + plus.grounded!.claims!.notMentioned) / plus.grounded!.claims!.total).toBe(1);
  });

  it("DeepEval's refund example: one claim, supported: 1.0 under both definitions", async () => {
    const scored = await scoreRun(caseOf({ vars: { query: "What if these shoes don't fit?" }, context: [REFUND_CONTEXT] }, { type: 'context-faithfulness' }), run(REFUND_ANSWER), judge.judge);
    expect(scored).toMatchObject({ status: 'pass', results: [{ outcome: 'pass', score: 1, grounded: { claims: { supported: 1, contradicted: 0, notMentioned: 0, total: 1 } } }] });
  });

  it('the judge is asked at temperature 0 and a claims question shared by two evaluators is asked once per run', async () => {
    const before = judge.requests.length;
    await einstein(HIGH, { type: 'faithfulness' }, { type: 'hallucination' });
    const asked = judge.requests.slice(before);
    expect(asked).toHaveLength(2);
    expect(asked.every((r) => r.temperature === 0)).toBe(true);
  });
});

describe('hallucination', () => {
  it('a contradicted claim hallucinates; a claim not mentioned does only in strict mode', async () => {
    const low = await einstein(LOW, { type: 'hallucination' });
    expect(low).toMatchObject({ status: 'fail', results: [{ outcome: 'fail', grounded: { hallucinated: true } }] });
    expect(low.results[0]!.reason).toMatch(/^hallucinates: claim 2 "Einstein was born on 20th March 1879\." contradicted by passage 1/);
    const high = await einstein(HIGH, { type: 'hallucination' }, { type: 'hallucination', strict: true, label: 'strict' });
    expect(high.status).toBe('pass');
    const plus = await einstein(HIGH_PLUS, { type: 'hallucination' }, { type: 'hallucination', strict: true, label: 'strict' });
    expect(plus.results[0]).toMatchObject({ outcome: 'pass', grounded: { hallucinated: false } });
    expect(plus.results[1]).toMatchObject({ outcome: 'fail', grounded: { hallucinated: true, strict: true } });
    expect(plus.results[1]!.reason).toMatch(/^hallucinates \(strict\): claim 3 "Einstein won the Nobel Prize in 1921\." not mentioned: the passage says nothing of prizes/);
  });
});

describe('answer-correctness and factuality against a reference', () => {
  it("Ragas's answer-correctness example: precision 1/2, recall 1/2, F1 0.5 — Ragas's factual F1 TP/(TP+½(FP+FN)) = 1/(1+½·2) = 0.5", async () => {
    const scored = await scoreRun(caseOf({ vars: { query: EINSTEIN_QUESTION }, reference: GROUND_TRUTH }, { type: 'answer-correctness', threshold: 0.5 }, { type: 'factuality' }), run(SPAIN), judge.judge);
    expect(scored.results[0]).toMatchObject({ outcome: 'pass', score: 0.5, grounded: { precision: 0.5, recall: 0.5, f1: 0.5 } });
    expect(scored.results[1]).toMatchObject({ outcome: 'fail', reason: expect.stringMatching(/^1 of 2 claims contradict the reference: claim 1 "Einstein was born in Spain\." contradicted by reference 1/) });
  });
});

describe('undetermined: never a 0, never NaN, counted with its reason', () => {
  const cases: [string, string, RegExp][] = [
    ['the judge fails (HTTP 500)', 'JUDGE DOWN', /^faithfulness: undetermined: the judge failed: /],
    ['the judge answers prose', 'PROSE JUDGE', /^faithfulness: undetermined: the judge answered off-format \(expected \{"claims": \[\.\.\.\]\}\): "The answer looks fine to me\."/],
    ['a contradicted verdict that cites no passage', 'NO CITATION', /^faithfulness: undetermined: the judge answered off-format \(claim 1 is contradicted but cites no passage between 1 and 1\)/],
    ['the answer refuses', 'I cannot help with that.', /^faithfulness: undetermined: the answer declines to answer/],
    ['no claim in the answer', 'Hello there!', /^faithfulness: undetermined: no claim could be extracted from the answer/],
  ];
  it.each(cases)('%s', async (_, answer, reason) => {
    const scored = await einstein(answer, { type: 'faithfulness' });
    expect(scored).toMatchObject({ status: 'unscored', score: null, pass: false, results: [{ outcome: 'undecided', score: 0 }] });
    expect(scored.unscoredReason).toMatch(reason);
  });

  it('the rate rests on the judged runs only: 1 pass, 1 fail, 2 undetermined → 1/2, the 2 counted apart', async () => {
    const scores = [await einstein(HIGH, { type: 'faithfulness' }), await einstein(LOW, { type: 'faithfulness', threshold: 0.9 }), await einstein('JUDGE DOWN', { type: 'faithfulness' }), await einstein('PROSE JUDGE', { type: 'faithfulness' })];
    const counts = adherenceOf(scores);
    expect(counts).toMatchObject({ passed: 1, scored: 2, unscored: 2, rate: 0.5 });
    expect(Number.isNaN(counts.rate)).toBe(false);
  });

  it('no judge, or no context: undetermined with what to do', async () => {
    const noJudge = await scoreRun(caseOf({ context: [EINSTEIN_CONTEXT] }, { type: 'hallucination' }), run(HIGH));
    expect(noJudge.unscoredReason).toMatch(/^hallucination: no judge configured/);
    const noContext = await scoreRun(caseOf({}, { type: 'faithfulness' }), run(HIGH), judge.judge);
    expect(noContext.unscoredReason).toMatch(/the test case has no context/);
  });
});

describe('context and reference in a tests file', () => {
  let dir: string;
  beforeAll(() => {
    const top = realpathSync(mkdtempSync(join(tmpdir(), 'pi-grounded-')));
    dir = join(top, 'ws');
    mkdirSync(dir);
    writeFileSync(join(top, 'secret.txt'), 'password=hunter2');
    writeFileSync(join(dir, 'listings.json'), JSON.stringify({ passages: [{ text: '12 Elm St: 3 bedrooms, $850,000', id: 'a' }, { text: '4 Oak Ave: 2 bedrooms, $620,000', id: 'b' }] }));
    writeFileSync(join(dir, 'huge.txt'), 'x'.repeat(MAX_CONTEXT_CHARS + 1));
    writeFileSync(join(dir, 'homes.prompty'), '---\nname: homes\n---\nuser:\n{{query}}\n');
    writeFileSync(join(dir, 'homes.tests.yaml'), [
      'tests:',
      '  - vars: { query: "Elm St price?", context: "${file:listings.json}" }',
      '    reference: "12 Elm St costs $850,000."',
      '    assert: [{ type: hallucination, strict: true }, { type: answer-correctness, threshold: 0.8 }]',
      '  - vars: { query: "q" }',
      '    context: ["passage one", { text: "passage two" }]',
      '    assert: [{ type: context-faithfulness }]',
      '  - vars: { query: "q" }',
      '    context: "${file:../secret.txt}"',
      '    assert: [{ type: faithfulness }]',
      '  - vars: { query: "q" }',
      '    context: "${file:huge.txt}"',
      '    assert: [{ type: faithfulness }]',
    ].join('\n'));
  });

  it('reads passages inline and from files inside the workspace; refuses a file outside it and a context above the cap, and says so', async () => {
    const file = join(dir, 'homes.prompty');
    const suite = loadTestSuite(file, '---\nname: homes\n---\nuser:\n{{query}}\n', 'prompty', {} as Prompt);
    expect(suite.cases).toHaveLength(4);
    expect(suite.cases[0]).toMatchObject({ context: ['12 Elm St: 3 bedrooms, $850,000', '4 Oak Ave: 2 bedrooms, $620,000'], reference: '12 Elm St costs $850,000.', assertions: [{ type: 'hallucination', strict: true }, { type: 'answer-correctness', threshold: 0.8 }] });
    expect(suite.cases[1]!.context).toEqual(['passage one', 'passage two']);
    expect(suite.cases[2]!.context).toBeUndefined();
    expect(suite.cases[2]!.contextProblem).toMatch(/^context not used: .*outside/);
    expect(suite.cases[3]!.contextProblem).toBe(`context not used: the context is ${(MAX_CONTEXT_CHARS + 1).toLocaleString('en-US')} characters; above ${MAX_CONTEXT_CHARS.toLocaleString('en-US')} it is not judged`);
    expect(suite.problems).toHaveLength(2);
    // The refused context leaves its evaluator undetermined with that reason — the judge is never asked.
    const before = judge.requests.length;
    const scored = await scoreRun(suite.cases[2]!, run('anything'), judge.judge);
    expect(scored.unscoredReason).toMatch(/^faithfulness: undetermined: context not used: .*outside/);
    expect(judge.requests.length).toBe(before);
    expect(JSON.stringify(scored)).not.toContain('hunter2');
  });
});

describe('a GitHub .prompt.yml row', () => {
  it("carries its vars.context as the context and its expected answer as the reference", () => {
    const text = [
      'name: listings', 'model: openai/gpt-4o-mini',
      'messages:', '  - role: user', '    content: "{{query}}"',
      'testData:', '  - query: "What does 12 Elm St cost?"', '    context: "12 Elm St: $850,000"', '    expected: "12 Elm St costs $850,000."',
      'evaluators:', '  - name: mentions the price', '    string: { contains: "850,000" }',
    ].join('\n');
    const doc = parsePromptFile('listings.prompt.yml', text);
    const suite = loadTestSuite('listings.prompt.yml', text, doc.format, doc.prompts[0]!);
    expect(suite.cases[0]).toMatchObject({ context: ['12 Elm St: $850,000'], reference: '12 Elm St costs $850,000.' });
  });
});
