/**
 * A run that could not be scored is UNSCORED with its reason, never a failed 0 (issue 21): failed
 * requests (against real sockets on 127.0.0.1), a judge that is missing, fails or answers off-format.
 * Every assertion says pass, fail or undecided, and why, in plain words.
 */
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runOnce } from '../../../src/core/run/runOnce';
import { httpTransport } from '../../../src/core/endpoint/transport';
import { parsePromptFile } from '../../../src/core/formats/detect';
import { adherenceOf, scoreRun, type CaseScore, type ScoredRun } from '../../../src/core/adherence/score';
import { loadTestSuite, type Assertion, type TestCase } from '../../../src/core/adherence/testCases';
import { startSim, type RunningSim } from '../../../src/core/sim/simServer';
import { freePort } from '../../fixtures/localServers';

const answer = (text: string): ScoredRun => ({ answer: text, ok: true, ttftMs: 200, e2eMs: 900 });
const caseOf = (threshold: number, ...assertions: (Partial<Assertion> & { type: Assertion['type'] })[]): TestCase => ({
  description: 'c',
  vars: { expected: 'single-family' },
  threshold,
  assertions: assertions.map((a) => ({ negate: false, weight: 1, label: a.label ?? a.type, ...a })),
});

/** The bundled homes.prompt.yml: testData × a string evaluator and an llm evaluator. */
function homesYmlCases(): TestCase[] {
  const text = readFileSync('examples/homes/homes.prompt.yml', 'utf8');
  const doc = parsePromptFile('homes.prompt.yml', text);
  return loadTestSuite('examples/homes/homes.prompt.yml', text, doc.format, doc.prompts[0]!).cases;
}

describe('a run that failed is unscored with the failure as its reason', () => {
  let sim500: RunningSim;
  let stall: RunningSim;
  let closedPort: number;
  beforeAll(async () => {
    sim500 = await startSim({ fault: '500', ttftBaseMs: 5 });
    stall = await startSim({ fault: 'stall', ttftBaseMs: 5, decodeMsPerToken: 1 });
    // A port that was just free: nothing listens there, so the connection is refused.
    closedPort = await freePort();
  });
  afterAll(async () => {
    await sim500.close();
    await stall.close();
  });

  it.each([
    ['connection refused', () => `http://127.0.0.1:${closedPort}/v1`, /connection_refused|refused/i],
    ['HTTP 500', () => sim500.url, /500|server error/i],
    ['timeout', () => stall.url, /timeout|did not finish|timed out/i],
  ])('%s', async (_, url, pattern) => {
    const { record, text } = await runOnce(httpTransport({ name: 'e', provider: 'openai', baseUrl: url() }, undefined), { model: 'm', messages: [{ role: 'user', content: 'Find homes' }], params: {} }, { timeoutMs: 600, countTokens: () => 1, inputTokensEstimate: null, maxRetries: 0 });
    expect(record.ok).toBe(false);
    const scored = await scoreRun(homesYmlCases()[0]!, { answer: text.answer, ok: record.ok, ttftMs: record.ttftMs, e2eMs: record.e2eMs, errorMessage: `${record.error!.kind}: ${record.error!.message}` });
    expect(scored).toMatchObject({ status: 'unscored', score: null, pass: false });
    expect(scored.unscoredReason).toMatch(pattern);
    expect(scored.results.every((r) => r.outcome === 'undecided')).toBe(true);
    expect(adherenceOf([scored])).toMatchObject({ passed: 0, scored: 0, unscored: 1, rate: null });
  });
});

describe('LLM judges: missing, failing or off-format leave the assertion undecided', () => {
  it('homes.prompt.yml without a judge: the string evaluator decides, the llm evaluator is undecided, the run is unscored', async () => {
    const [first] = homesYmlCases();
    expect(first!.description).toBe('#1 city=Bellevue, WA · request=Find homes nearby with at least…');
    const scored = await scoreRun(first!, answer('1. Single-family house · $1,150,000 · 14820 NE 8th St, Bellevue'));
    // gh-models compares string evaluators lowercased: "Single-family" satisfies `contains: single-family`.
    expect(scored.results).toEqual([
      expect.objectContaining({ label: 'Mentions single-family houses', outcome: 'pass', pass: true, reason: 'the answer has "Single-family" (any case: "single-family")' }),
      expect.objectContaining({ label: 'Lists only single-family houses', outcome: 'undecided', pass: false, reason: expect.stringMatching(/^no judge configured/) }),
    ]);
    expect(scored).toMatchObject({ status: 'unscored', score: null, unscoredReason: expect.stringMatching(/^Lists only single-family houses: no judge configured/) });
  });

  it('a run that already fails a decided assertion fails, judge or not', async () => {
    const scored = await scoreRun(homesYmlCases()[0]!, answer('1. Condo · $575,000'));
    expect(scored).toMatchObject({ status: 'fail', pass: false, score: 0 });
    expect(scored.results[0]).toMatchObject({ outcome: 'fail', reason: 'the answer does not have "single-family" in any case' });
  });

  it('a judge that fails or answers off-format: undecided with what happened', async () => {
    const [first] = homesYmlCases();
    const failing = await scoreRun(first!, answer('Single-family house'), async () => {
      throw new Error('HTTP 503 from the judge endpoint');
    });
    expect(failing.results[1]).toMatchObject({ outcome: 'undecided', reason: 'the judge failed: HTTP 503 from the judge endpoint' });
    expect(failing.status).toBe('unscored');
    const offFormat = await scoreRun(first!, answer('Single-family house'), async () => 'I would rather not say.');
    expect(offFormat.results[1]).toMatchObject({ outcome: 'undecided', reason: 'the judge answered none of the choices (yes, no): "I would rather not say."' });
    const rubric = await scoreRun(caseOf(1, { type: 'llm-rubric', value: 'Only houses' }), answer('x'), async () => 'Hmm, hard to tell.');
    expect(rubric.results[0]).toMatchObject({ outcome: 'undecided', reason: `the judge's reply is not a verdict: "Hmm, hard to tell."` });
    const yes = await scoreRun(first!, answer('Single-family house'), async () => 'Yes.');
    expect(yes).toMatchObject({ status: 'pass', score: 1, results: [{ outcome: 'pass' }, { outcome: 'pass', reason: "the judge chose 'yes' (score 1, pass at 0.5)" }] });
  });

  it('with a threshold below 1, a run is decided when the undecided weight cannot change it', async () => {
    const judged = { type: 'llm-rubric' as const, value: 'Only houses' };
    // 1 of 2 passed, 1 undecided: at least 0.5 → passes a 0.5 threshold, unscored at 0.75.
    expect((await scoreRun(caseOf(0.5, { type: 'icontains', value: 'house' }, judged), answer('a house'))).status).toBe('pass');
    expect((await scoreRun(caseOf(0.75, { type: 'icontains', value: 'house' }, judged), answer('a house'))).status).toBe('unscored');
    // 0 of 2 passed, 1 undecided: at most 0.5 → fails a 0.75 threshold.
    expect((await scoreRun(caseOf(0.75, { type: 'icontains', value: 'condo' }, judged), answer('a house'))).status).toBe('fail');
  });
});

describe('reasons say what the answer had', () => {
  it.each([
    [{ type: 'contains', value: 'single-family' }, 'A Single-family house', 'fail', 'expected "single-family" (case-sensitive); the answer has "Single-family"'],
    [{ type: 'contains', value: 'condo' }, 'A house', 'fail', 'the answer does not have "condo"'],
    [{ type: 'icontains-any', value: ['apartment', 'condo', 'townhouse'], negate: true }, '2. Townhouse · $845,000', 'fail', 'the answer has "Townhouse"'],
    [{ type: 'icontains-any', value: ['apartment', 'condo'], negate: true }, 'a house', 'pass', 'the answer has none of ["apartment","condo"] in any case'],
    [{ type: 'contains-all', value: ['house', 'price', 'address'] }, 'a house', 'fail', 'the answer lacks "price", "address" (case-sensitive)'],
    [{ type: 'starts-with', value: '1.' }, 'Here are homes', 'fail', 'the answer starts with "He", not "1."'],
    [{ type: 'equals', value: 'yes' }, 'Yes, it does', 'fail', 'the answer is "Yes, it does", not "yes"'],
    [{ type: 'is-json' }, 'no json', 'fail', 'the answer is not valid JSON'],
    [{ type: 'ttft', threshold: 100 }, 'x', 'fail', 'TTFT 200 ms > 100 ms'],
    [{ type: 'word-count', value: { max: 2 } }, 'one two three', 'fail', '3 words (wanted 0–2)'],
  ] as [Partial<Assertion> & { type: Assertion['type'] }, string, string, string][])('%j on %j', async (assertion, text, outcome, reason) => {
    const scored = await scoreRun(caseOf(1, assertion), answer(text));
    expect(scored.results[0]).toMatchObject({ outcome, reason });
  });
});

describe('adherence counts scored runs only', () => {
  it('passed / scored, with the unscored counted apart by reason', () => {
    const runs: Pick<CaseScore, 'status' | 'unscoredReason'>[] = [
      { status: 'pass' },
      { status: 'pass' },
      { status: 'pass' },
      { status: 'fail' },
      { status: 'unscored', unscoredReason: 'judge: no judge configured' },
      { status: 'unscored', unscoredReason: 'the run failed: connection_refused' },
      { status: 'unscored', unscoredReason: 'judge: no judge configured' },
    ];
    expect(adherenceOf(runs)).toEqual({
      passed: 3,
      scored: 4,
      unscored: 3,
      rate: 0.75,
      unscoredReasons: [
        { reason: 'judge: no judge configured', runs: 2 },
        { reason: 'the run failed: connection_refused', runs: 1 },
      ],
    });
    expect(adherenceOf([{ status: 'unscored' }])).toMatchObject({ rate: null, scored: 0, unscored: 1 });
  });
});
