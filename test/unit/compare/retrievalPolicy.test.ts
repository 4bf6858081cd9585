/** What the head changes in the retrieval step, in words; the judging revision's step runs (issue 30). */
import { describe, expect, it } from 'vitest';
import { resolveRetrievalPolicy } from '../../../src/core/compare/retrievalPolicy';
import type { RetrievalStep } from '../../../src/core/retrieval/retrievalStep';

const base: RetrievalStep = { url: 'http://search.internal:8000/search', query: '{{question}}', into: 'context', topK: 5, timeoutMs: 10_000 };
const words = { headLabel: 'abc1234', notApplied: 'not applied', viaHead: 'applied: --policy head' };

describe('the retrieval step in the gate policy', () => {
  it('lists each field the head changes, URLs without credentials or query strings; the base step judges', () => {
    const head: RetrievalStep = { url: 'http://u:pw-canary@evil.example/s?token=q-canary', query: '{{question}} {{notes}}', into: 'docs', topK: 100, timeoutMs: 1 };
    const policy = resolveRetrievalPolicy({ step: base }, { step: head }, { ...words, from: 'base' });
    expect(policy.judging).toEqual({ step: base });
    expect(policy.changes.map((c) => c.text)).toEqual([
      'retrieval.url http://search.internal:8000/search → http://evil.example/s',
      'retrieval.query "{{question}}" → "{{question}} {{notes}}"',
      'retrieval.topK 5 → 100',
      'retrieval.timeoutMs 10000 → 1',
      'retrieval.into context → docs',
    ]);
    expect(policy.changes.every((c) => !c.applied && c.why === 'not applied')).toBe(true);
    expect(JSON.stringify(policy)).not.toMatch(/pw-canary|q-canary/);
    const sameOrigin = resolveRetrievalPolicy({ step: base }, { step: { ...base, url: `${base.url}?key=q-canary` } }, { ...words, from: 'base' });
    expect(sameOrigin.changes.map((c) => c.text)).toEqual(['retrieval.url http://search.internal:8000/search: its credentials or query string changed']);
  });

  it('a step added or removed is listed; --policy head applies the head\'s, unless it cannot be read', () => {
    expect(resolveRetrievalPolicy({}, { step: base }, { ...words, from: 'base' })).toEqual({ judging: {}, changes: [{ text: 'retrieval step added (http://search.internal:8000/search)', applied: false, why: 'not applied', effects: { 'retrieval step changed': 1 } }] });
    expect(resolveRetrievalPolicy({ step: base }, {}, { ...words, from: 'head' })).toEqual({ judging: {}, changes: [{ text: 'retrieval step removed (http://search.internal:8000/search)', applied: true, why: 'applied: --policy head', effects: { 'retrieval step changed': 1 } }] });
    expect(resolveRetrievalPolicy({ step: base }, { error: 'retrieval needs a url' }, { ...words, from: 'base' }).changes).toEqual([{ text: "abc1234's retrieval step cannot be read (retrieval needs a url)", applied: false, why: 'not applied' }]);
    expect(resolveRetrievalPolicy({ step: base }, { step: base }, { ...words, from: 'base' }).changes).toEqual([]);
  });
});
