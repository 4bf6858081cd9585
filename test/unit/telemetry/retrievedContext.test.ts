/**
 * The retriever spans' passages (retrievedContext.ts) under the shapes each convention allows and under
 * hostile values: every row's documents read, structured OTLP values (arrays, maps) read within bounds,
 * the document cap and the context cap, and which retrievals count as a call's context. The libraries'
 * own spans are read in test/engine/instrumentations.engine.test.ts.
 */
import { describe, expect, it } from 'vitest';
import { attributeMap, structuredValue } from '../../../src/core/telemetry/otlpValues';
import { contextBefore, retrievedContextOf, type RetrievedContext } from '../../../src/core/telemetry/retrievedContext';
import type { ModelCall } from '../../../src/core/telemetry/spanFields';
import { TraceJoin, type JoinedCall } from '../../../src/core/telemetry/traceJoin';

const s = (v: string) => ({ stringValue: v });
const arr = (...values: unknown[]) => ({ arrayValue: { values } });
const kv = (entries: Record<string, unknown>) => ({ kvlistValue: { values: Object.entries(entries).map(([key, value]) => ({ key, value })) } });

function span(attributes: Record<string, unknown>, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return { endTimeUnixNano: '1700000000000000000', attributes: Object.entries(attributes).map(([key, value]) => ({ key, value })), ...extra };
}
const read = (raw: Record<string, unknown>) => retrievedContextOf(raw, attributeMap(raw.attributes));

describe('retriever spans', () => {
  it('OpenInference: the flattened documents in order, the query from input.value', () => {
    const got = read(span({ 'openinference.span.kind': s('RETRIEVER'), 'input.value': s('homes in Lyon'), 'retrieval.documents.0.document.content': s('A'), 'retrieval.documents.1.document.id': s('no-text'), 'retrieval.documents.2.document.content': s('C') }));
    expect(got).toMatchObject({ source: 'openinference', passages: ['A', 'C'], query: 'homes in Lyon', endMs: 1_700_000_000_000 });
  });

  it('Langfuse: documents as strings, LangChain Documents, or under `documents`; the query from the input object', () => {
    const of = (output: unknown, input?: unknown) => read(span({ 'langfuse.observation.type': s('retriever'), 'langfuse.observation.output': s(JSON.stringify(output)), ...(input ? { 'langfuse.observation.input': s(JSON.stringify(input)) } : {}) }));
    expect(of(['one', 'two'])?.passages).toEqual(['one', 'two']);
    expect(of([{ pageContent: 'lc', metadata: {} }])?.passages).toEqual(['lc']);
    expect(of({ documents: [{ id: 'x', content: 'inner' }] }, { query: 'q?' })).toMatchObject({ source: 'langfuse', passages: ['inner'], query: 'q?' });
    expect(of('plain text output')?.passages).toEqual(['plain text output']);
  });

  it('OpenLLMetry: every db.query.result event\'s documents (an OTLP array), on a span that is not a model call', () => {
    const event = (...docs: string[]) => ({ name: 'db.query.result', attributes: [{ key: 'db.query.result.document', value: arr(...docs.map(s)) }] });
    const got = read(span({ 'llm.request.type': s('query') }, { events: [event('a', 'b'), { name: 'other' }, event('c')] }));
    expect(got).toMatchObject({ source: 'openllmetry', passages: ['a', 'b', 'c'] });
  });

  it('GenAI retrieval: documents structured (array of maps) or as a JSON string; text under `content`', () => {
    const structured = read(span({ 'gen_ai.operation.name': s('retrieval'), 'gen_ai.retrieval.query.text': s('q'), 'gen_ai.retrieval.documents': arr(kv({ id: s('d1'), score: { doubleValue: 0.9 }, content: s('text 1') })) }));
    expect(structured).toMatchObject({ source: 'otel-genai', passages: ['text 1'], query: 'q' });
    const json = read(span({ 'gen_ai.operation.name': s('retrieval'), 'gen_ai.retrieval.documents': s(JSON.stringify([{ id: 'd', score: 1, content: 'text 2' }, { id: 'only-id', score: 0.5 }])) }));
    expect(json?.passages).toEqual(['text 2']);
  });

  it('not a retrieval, or no end time: null', () => {
    expect(read(span({ 'gen_ai.operation.name': s('chat') }))).toBeNull();
    expect(read({ attributes: [{ key: 'openinference.span.kind', value: s('RETRIEVER') }] })).toBeNull();
  });

  it('bounds: more than 100 documents a span, or passages over 100,000 characters together, are not used — never cut to a part', () => {
    const many = Object.fromEntries(Array.from({ length: 150 }, (_, i) => [`retrieval.documents.${i}.document.content`, s(`doc ${i}`)]));
    expect(read(span({ 'openinference.span.kind': s('RETRIEVER'), ...many }))).toMatchObject({ passages: [], unusable: 'over 100 documents' });
    const hundred = Object.fromEntries(Array.from({ length: 100 }, (_, i) => [`retrieval.documents.${i}.document.content`, s(`doc ${i}`)]));
    expect(read(span({ 'openinference.span.kind': s('RETRIEVER'), ...hundred }))?.passages).toHaveLength(100);
    const listed = read(span({ 'langfuse.observation.type': s('retriever'), 'langfuse.observation.output': s(JSON.stringify(Array.from({ length: 101 }, (_, i) => `doc ${i}`))) }));
    expect(listed).toMatchObject({ passages: [], unusable: 'over 100 documents' });
    const huge = read(span({ 'openinference.span.kind': s('RETRIEVER'), 'retrieval.documents.0.document.content': s('x'.repeat(60_000)), 'retrieval.documents.1.document.content': s('y'.repeat(60_000)) }));
    expect(huge).toMatchObject({ passages: [], unusable: 'over the context cap (100,000 characters)' });
    // JSON too long to parse at all: over the cap, said (it was read as no documents, leaving a partial context).
    const enormous = read(span({ 'langfuse.observation.type': s('retriever'), 'langfuse.observation.output': s(JSON.stringify(['z'.repeat(450_000)])) }));
    expect(enormous).toMatchObject({ passages: [], unusable: 'over the context cap (100,000 characters)' });
    expect(contextBefore([{ source: 'langfuse', endMs: 1, passages: ['The refund window is 30 days.'] }, { ...enormous!, endMs: 2 }], 100)).toMatchObject({ passages: [], unusable: 'over the context cap (100,000 characters)' });
  });

  it('hostile values: deep nesting is cut, `__proto__` is not a key, a JSON output cut short is unreadable, a plain one is text', () => {
    let deep: unknown = s('bottom');
    for (let i = 0; i < 10_000; i++) deep = arr(deep);
    expect(() => structuredValue(deep)).not.toThrow();
    const proto = structuredValue({ kvlistValue: { values: [{ key: '__proto__', value: kv({ polluted: s('yes') }) }, { key: 'content', value: s('ok') }] } }) as Record<string, unknown>;
    expect(proto.content).toBe('ok');
    expect(Object.getPrototypeOf(proto)).toBe(Object.prototype);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect(read(span({ 'langfuse.observation.type': s('retriever'), 'langfuse.observation.output': s('[{"content": "unterminated') }))).toMatchObject({ passages: [], unusable: 'not readable (JSON cut short or malformed)' });
    expect(read(span({ 'langfuse.observation.type': s('retriever'), 'langfuse.observation.output': s('"a quoted passage') }))?.passages).toEqual(['"a quoted passage']);
    expect(read(span({ 'langfuse.observation.type': s('retriever'), 'langfuse.observation.output': s('Plain text passage.') }))?.passages).toEqual(['Plain text passage.']);
    const wide = structuredValue(arr(...Array.from({ length: 5_000 }, () => s('v')))) as unknown[];
    expect(wide).toHaveLength(1_000);
  });
});

describe('a call\'s context', () => {
  const r = (endMs: number, passages: string[], query?: string): RetrievedContext => ({ source: 'openinference', endMs, passages, ...(query ? { query } : {}) });
  it('the retrievals that ended before the call started (a millisecond of rounding allowed), in order; the last query', () => {
    expect(contextBefore([r(30, ['third']), r(10, ['first'], 'q1'), r(20, ['second'], 'q2'), r(101, ['edge']), r(102, ['after'])], 100)).toMatchObject({ passages: ['first', 'second', 'third', 'edge'], query: 'q2' });
    expect(contextBefore([r(200, ['after'])], 100)).toBeUndefined();
  });
  it('together over the cap: too large, never cut', () => {
    expect(contextBefore([r(1, ['x'.repeat(60_000)]), r(2, ['y'.repeat(60_000)])], 100)).toMatchObject({ passages: [], unusable: 'over the context cap (100,000 characters)' });
  });
});

describe('the join keeps retrievals within its budget', () => {
  const call = (traceId: string, startMs: number): ModelCall => ({
    source: 'otel-genai', traceId, spanId: 'b'.repeat(16), parentSpanId: null, own: { name: 'p', version: 'v' },
    startMs, endMs: startMs + 10, e2eMs: 10, ttftMs: null, tpotMs: null, inputTokens: null, outputTokens: null, cacheReadTokens: null, errorType: null,
    messages: null, contentTooLarge: false, answer: 'a', systemSha256: null,
  });
  const context = (passages: string[]): RetrievedContext => ({ source: 'openinference', endMs: 5, passages });

  it('a call gets its own trace\'s passages; a million empty retrievals push the oldest out instead of growing', () => {
    const got = new Map<string, JoinedCall>();
    const join = new TraceJoin((c) => got.set(c.traceId, c), { retrievals: true, holdIdentified: true, maxRetrievedChars: 100_000 });
    join.retrieval('t-first', context(['first passage']));
    for (let i = 0; i < 1_000_000; i++) join.retrieval(`t-${i}`, context([]));
    join.retrieval('t-last', context(['last passage']));
    join.modelCall(call('t-first', 100), null);
    join.modelCall(call('t-last', 100), null);
    join.end();
    expect(got.get('t-last')!.retrieved?.passages).toEqual(['last passage']);
    expect(got.get('t-first')!.retrieved).toBeUndefined();
  });

  it('without `retrievals` nothing is kept', () => {
    const got: JoinedCall[] = [];
    const join = new TraceJoin((c) => got.push(c), { holdIdentified: true });
    join.retrieval('t', context(['p']));
    join.modelCall(call('t', 100), null);
    join.end();
    expect(got[0]!.retrieved).toBeUndefined();
  });
});
