/**
 * The grounded evaluators' judge plumbing against a real judge endpoint: llama-server with its
 * random-weight model. Its answers are never the JSON asked for, so every run must come out
 * UNDETERMINED — counted, with the judge's off-format reply as the reason — never a 0 and never NaN.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adherenceOf, scoreRun } from '../../src/core/adherence/score';
import type { TestCase } from '../../src/core/adherence/testCases';
import { transportJudge } from '../../src/core/run/transportJudge';
import { httpTransport } from '../../src/core/endpoint/transport';
import { startLlamaServer, type LlamaServer } from './llamaServer';

let llama: LlamaServer;
beforeAll(async () => {
  llama = await startLlamaServer();
}, 120_000);
afterAll(async () => llama?.stop());

describe('grounded evaluators with llama-server as the judge', () => {
  it('a judge that answers off-format leaves faithfulness and hallucination undetermined, counted apart', async () => {
    const judge = transportJudge(httpTransport({ name: 'llama', provider: 'openai', baseUrl: `${llama.url}/v1` }, undefined), 'model.gguf', 60_000);
    const testCase: TestCase = {
      description: 'Elm St', vars: { query: 'What does 12 Elm St cost?' }, threshold: 1, context: ['12 Elm St: 3 bedrooms, listed at $850,000.'],
      assertions: [{ type: 'faithfulness', negate: false, weight: 1, label: 'faithfulness' }, { type: 'hallucination', negate: false, weight: 1, label: 'hallucination' }],
    };
    const scores = [];
    for (let i = 0; i < 3; i++) scores.push(await scoreRun(testCase, { answer: '12 Elm St is listed at $850,000.', ok: true, ttftMs: 100, e2eMs: 300 }, judge));
    for (const s of scores) {
      expect(s.status).toBe('unscored');
      expect(s.results.map((r) => r.outcome)).toEqual(['undecided', 'undecided']);
      expect(s.unscoredReason).toMatch(/^faithfulness: undetermined: the judge answered off-format \(expected \{"claims": \[\.\.\.\]\}\)/);
    }
    const counts = adherenceOf(scores);
    expect(counts).toMatchObject({ passed: 0, scored: 0, unscored: 3, rate: null });
    expect(counts.unscoredReasons.reduce((n, r) => n + r.runs, 0)).toBe(3);
  }, 180_000);
});
