/**
 * context-precision (issue 25) when a test case names its relevant passages: Ragas's context precision@K,
 * checked against the worked examples of its documentation (the France question: relevant passage first
 * → 1, second → 0.5) and the rank example 0,0,1,1,0 → (1/3 + 2/4) / 2; read from a tests file with
 * `{text, id}` passages and `relevant:`, scored without a judge; missing labels are undetermined, not 0.
 * And an unreadable llm-rubric verdict leaves the run unscored, never failed.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { contextPrecisionAtK } from '../../../src/core/adherence/contextPrecision';
import { scoreRun, type ScoredRun } from '../../../src/core/adherence/score';
import { loadTestSuite, type Assertion, type TestCase } from '../../../src/core/adherence/testCases';
import type { Prompt } from '../../../src/core/formats/model';

const run: ScoredRun = { answer: 'France is in Western Europe; its capital is Paris.', ok: true, ttftMs: 100, e2eMs: 400 };

describe('context precision@K (Ragas)', () => {
  it('gives the scores of Ragas\'s documented examples', () => {
    // docs.ragas.io, Context Precision: "high" puts the passage that answers first, "low" puts it second.
    expect(contextPrecisionAtK([true, false])).toBe(1);
    expect(contextPrecisionAtK([false, true])).toBe(0.5);
    // Relevant at ranks 3 and 4 of 5: (Precision@3 × 1 + Precision@4 × 1) / 2 = (1/3 + 2/4) / 2.
    expect(contextPrecisionAtK([false, false, true, true, false])).toBeCloseTo(0.41667, 5);
    // Average precision, not precision: two relevant at the top of ten = 1, whatever follows.
    expect(contextPrecisionAtK([true, true, ...Array(8).fill(false)])).toBe(1);
    expect(contextPrecisionAtK([false, false])).toBeNull();
  });

  it('reads {text, id} passages and relevant: from a tests file and scores without a judge', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'pi-cp-'));
    writeFileSync(join(dir, 'france.tests.yaml'), [
      'tests:',
      '  - description: high',
      '    vars: { query: "Where is France and what is its capital?" }',
      '    context: [{ text: "France, in Western Europe … Paris, its capital …", id: fr-1 }, { text: "The country is also renowned for its wines …", id: fr-2 }]',
      '    relevant: [fr-1]',
      '    assert: [{ type: context-precision, threshold: 0.8 }]',
      '  - description: low',
      '    vars: { query: "Where is France and what is its capital?" }',
      '    context: [{ text: "The country is also renowned for its wines …", id: fr-2 }, { text: "France, in Western Europe … Paris, its capital …", id: fr-1 }]',
      '    relevant: [fr-1]',
      '    assert: [{ type: context-precision, threshold: 0.8 }]',
      '  - description: none relevant retrieved',
      '    context: [{ text: "wines", id: fr-2 }]',
      '    relevant: [fr-1]',
      '    assert: [{ type: context-precision }]',
      '  - description: no labels',
      '    context: ["France … Paris", "wines"]',
      '    relevant: [fr-1]',
      '    assert: [{ type: context-precision }]',
      '  - description: no relevant list',
      '    context: [{ text: "wines", id: fr-2 }]',
      '    assert: [{ type: context-precision }]',
    ].join('\n'));
    const suite = loadTestSuite(join(dir, 'france.prompty'), '---\nname: france\n---\nuser:\n{{query}}\n', 'prompty', {} as Prompt);
    expect(suite.problems).toEqual([]);
    const [high, low, none, unlabelled, unnamed] = await Promise.all(suite.cases.map((c) => scoreRun(c, run)));
    expect(high).toMatchObject({ status: 'pass', score: 1, results: [{ outcome: 'pass', reason: 'relevant passages at rank 1 of 2: context precision@2 1.000 (pass at 0.8)' }] });
    expect(low).toMatchObject({ status: 'fail', results: [{ outcome: 'fail', score: 0.5, reason: 'relevant passages at rank 2 of 2: context precision@2 0.500 (pass at 0.8)' }] });
    expect(none).toMatchObject({ status: 'fail', results: [{ outcome: 'fail', score: 0, reason: 'no relevant passage among the 1 retrieved (relevant: fr-1): 0%, pass at 50%' }] });
    expect(unlabelled).toMatchObject({ status: 'unscored', results: [{ outcome: 'undecided', reason: 'undetermined: context-precision needs an id on every passage of the context ({text, id})' }] });
    expect(unnamed).toMatchObject({ status: 'unscored', results: [{ outcome: 'undecided', reason: 'undetermined: context-precision needs the relevant passages named on the test case: `relevant: [id, …]`' }] });
  });

  it('a malformed relevant: list is said and not used', () => {
    const dir = mkdtempSync(join(tmpdir(), 'pi-cp-'));
    writeFileSync(join(dir, 'x.tests.yaml'), 'tests:\n  - context: [{ text: a, id: 1 }]\n    relevant: [{ id: 1 }]\n    assert: [{ type: context-precision }]\n');
    const suite = loadTestSuite(join(dir, 'x.prompty'), '---\nname: x\n---\nuser:\nhi\n', 'prompty', {} as Prompt);
    expect(suite.problems).toEqual(['x.tests.yaml:3: tests[0]: `relevant` must list passage ids, e.g. relevant: [elm-12, oak-4]; not used.']);
    expect(suite.cases[0]!.relevant).toBeUndefined();
  });
});

describe('an unreadable llm-rubric verdict', () => {
  it('leaves the run unscored (undetermined), never a failed run', async () => {
    const rubric: TestCase = { description: 'c', vars: {}, threshold: 1, assertions: [{ type: 'llm-rubric', negate: false, weight: 1, label: 'llm-rubric', value: 'Only houses' } as Assertion] };
    // '{"pass": "maybe"}' was read as a PASS (the word search found the key "pass"): now no verdict.
    for (const reply of ['Hmm, hard to tell.', '{"pass": "maybe"}', '{"score": "high", "reason": "fails the rubric"}', '']) {
      const scored = await scoreRun(rubric, run, async () => reply);
      expect(scored.status, reply).toBe('unscored');
      expect(scored.results[0]!.outcome).toBe('undecided');
      expect(scored.score).toBeNull();
    }
  });
});
