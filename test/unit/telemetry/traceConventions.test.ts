/**
 * The conventions table and the trace join, span by span: which spans are model calls of which source,
 * TTFT in each unit, errors from status / level / HTTP status, and where the version comes from when the
 * call's own span does not carry it — a parent several spans up (arriving before or after the call), the
 * root, the Resource; the messages from log records; all within bounded memory.
 */
import { describe, expect, it } from 'vitest';
import { collectSpans, OtlpReader, type ImportedSpan, type SkipReason, type SpanSink } from '../../../src/core/telemetry/importOtlpSpans';
import type { SourceId } from '../../../src/core/telemetry/conventions';

type Attr = { key: string; value: Record<string, unknown> };
const s = (key: string, v: string): Attr => ({ key, value: { stringValue: v } });
const n = (key: string, v: number): Attr => ({ key, value: { doubleValue: v } });
const i = (key: string, v: number): Attr => ({ key, value: { intValue: String(v) } });

const T0 = 1_790_000_000_000;
let nextId = 1;
const id = (bytes: number) => (nextId++).toString(16).padStart(bytes * 2, '0');

function span(attrs: Attr[], o: { trace?: string; spanId?: string; parent?: string; name?: string; startMs?: number; ms?: number; status?: number; events?: unknown[] } = {}) {
  const start = BigInt(o.startMs ?? T0) * 1_000_000n;
  return { traceId: o.trace ?? id(16), spanId: o.spanId ?? id(8), ...(o.parent ? { parentSpanId: o.parent } : {}), name: o.name ?? 'span', kind: 3, startTimeUnixNano: String(start), endTimeUnixNano: String(start + BigInt((o.ms ?? 1000) * 1e6)), attributes: attrs, status: o.status ? { code: o.status } : {}, ...(o.events ? { events: o.events } : {}) };
}
const line = (spans: unknown[], scope = 'app', resource: Attr[] = []) => ({ resourceSpans: [{ resource: { attributes: resource }, scopeSpans: [{ scope: { name: scope }, spans }] }] });

class Sink implements SpanSink {
  spans: ImportedSpan[] = [];
  skipped: [SkipReason, SourceId | undefined][] = [];
  others = 0;
  span(x: ImportedSpan) {
    this.spans.push(x);
  }
  skip(reason: SkipReason, source?: SourceId) {
    this.skipped.push([reason, source]);
  }
  other() {
    this.others++;
  }
}

const identity = [s('gen_ai.prompt.name', 'homes'), s('gen_ai.prompt.version', 'v1')];

describe('conventions: one row per source', () => {
  it('recognises each source by its marks and reads TTFT in its unit', () => {
    const sink = new Sink();
    collectSpans(
      line([
        span([s('ai.operationId', 'ai.streamText.doStream'), n('ai.response.msToFirstChunk', 250), i('ai.usage.inputTokens', 30), ...identity], { name: 'ai.streamText.doStream' }),
        span([s('ai.operationId', 'ai.streamText'), ...identity]), // the step loop around it: not a model call
        span([s('openinference.span.kind', 'LLM'), i('llm.token_count.prompt', 12), ...identity]),
        span([s('openinference.span.kind', 'CHAIN'), ...identity]),
        span([s('langfuse.observation.type', 'generation'), s('langfuse.observation.completion_start_time', `"${new Date(T0 + 321).toISOString()}"`), s('langfuse.observation.usage_details', '{"input":21,"output":65}'), ...identity]),
        span([s('llm.request.type', 'chat'), i('gen_ai.usage.prompt_tokens', 7), ...identity]),
        span([s('gen_ai.operation.name', 'chat'), n('gen_ai.client.operation.time_to_first_chunk', 0.4), ...identity]),
        span([s('gen_ai.operation.name', 'invoke_agent'), ...identity]),
        span([s('gen_ai.system', 'openai'), ...identity], { name: 'chat gpt-4o' }),
        span([s('gen_ai.system', 'openai'), ...identity], { name: 'embeddings text-embedding-3' }),
      ]),
      sink,
    );
    expect(sink.spans.map((x) => [x.source, x.ttftMs, x.inputTokens])).toEqual([
      ['ai-sdk-legacy', 250, 30],
      ['openinference', null, 12],
      ['langfuse', 321, 21],
      ['openllmetry-0.x', null, 7],
      ['otel-genai', 400, null],
      ['otel-genai-deprecated', null, null],
    ]);
    expect(sink.others).toBe(4);
  });

  it('tells sources sharing the GenAI names apart by their instrumentation scope', () => {
    const sink = new Sink();
    const attrs = [s('gen_ai.operation.name', 'chat'), ...identity];
    for (const scope of ['@traceloop/instrumentation-openai', 'gen_ai', '@opentelemetry/instrumentation-openai', 'my-app']) collectSpans(line([span(attrs)], scope), sink);
    expect(sink.spans.map((x) => x.source)).toEqual(['openllmetry', 'ai-sdk', 'otel-openai', 'otel-genai']);
  });

  it('a failed call: error.type, else the HTTP status, the exception type, Langfuse level=ERROR with status unset', () => {
    const sink = new Sink();
    const exception = { name: 'exception', timeUnixNano: String(BigInt(T0) * 1_000_000n), attributes: [s('exception.type', 'AI_APICallError')] };
    collectSpans(
      line([
        span([s('gen_ai.operation.name', 'chat'), s('error.type', 'rate_limit'), ...identity], { status: 2 }),
        span([s('gen_ai.operation.name', 'chat'), i('http.response.status_code', 503), ...identity], { status: 2 }),
        span([s('gen_ai.operation.name', 'chat'), ...identity], { status: 2, events: [exception] }),
        span([s('langfuse.observation.type', 'generation'), s('langfuse.observation.level', 'ERROR'), ...identity]),
        span([s('gen_ai.operation.name', 'chat'), i('http.response.status_code', 200), ...identity]),
      ]),
      sink,
    );
    expect(sink.spans.map((x) => x.errorType)).toEqual(['rate_limit', '503', 'AI_APICallError', '_OTHER', null]);
  });

  it('a TTFT after the end is skipped, counted under its source', () => {
    const sink = new Sink();
    collectSpans(line([span([s('ai.operationId', 'ai.generateText.doGenerate'), n('ai.response.msToFirstChunk', 5000), ...identity], { ms: 1000 })]), sink);
    expect(sink.skipped).toEqual([['absurd-ttft', 'ai-sdk-legacy']]);
  });
});

describe('the version from the rest of the trace', () => {
  it('from a parent several spans up, nearest first — whether the parents come before or after the call', () => {
    const sink = new Sink();
    const reader = new OtlpReader(sink);
    const [trace, root, step, agent] = [id(16), id(8), id(8), id(8)];
    const call = span([s('gen_ai.operation.name', 'chat')], { trace, parent: step });
    // Exporters send spans as they end: the call, then its step, agent and root.
    reader.data(line([call]));
    expect(sink.spans).toHaveLength(0);
    reader.data(line([span([s('gen_ai.operation.name', 'agent_step')], { trace, spanId: step, parent: agent })]));
    reader.data(line([span([s('gen_ai.prompt.version', 'v7')], { trace, spanId: agent, parent: root })]));
    reader.data(line([span([s('gen_ai.prompt.name', 'homes'), s('gen_ai.prompt.version', 'v1')], { trace, spanId: root })]));
    expect(sink.spans).toMatchObject([{ promptName: 'homes', promptVersion: 'v7', versionFrom: 'ancestor' }]);
    reader.end();
    expect(sink.spans).toHaveLength(1);

    // The other order: the root arrived first (another file, an async call that outlived its parent).
    const late = new Sink();
    const reader2 = new OtlpReader(late);
    const trace2 = id(16);
    const root2 = id(8);
    reader2.data(line([span(identity, { trace: trace2, spanId: root2 })]));
    reader2.data(line([span([s('gen_ai.operation.name', 'chat')], { trace: trace2, parent: id(8) })]));
    reader2.end();
    expect(late.spans).toMatchObject([{ promptName: 'homes', promptVersion: 'v1', versionFrom: 'ancestor' }]);
  });

  it('from the Resource when no span has it; copied Baggage and OpenLLMetry association properties count as the span', () => {
    const sink = new Sink();
    collectSpans(line([span([s('gen_ai.operation.name', 'chat'), s('gen_ai.prompt.name', 'homes')])], 'x', [s('gen_ai.prompt.version', 'deadbeef01')]), sink);
    collectSpans(line([span([s('gen_ai.operation.name', 'chat'), s('traceloop.association.properties.gen_ai.prompt.name', 'homes'), s('traceloop.association.properties.gen_ai.prompt.version', 'v3')])], '@traceloop/instrumentation-openai'), sink);
    expect(sink.spans.map((x) => [x.promptVersion, x.versionFrom])).toEqual([
      ['deadbeef01', 'resource'],
      ['v3', 'span'],
    ]);
  });

  it('no version anywhere: skipped as no-prompt-version under its source', () => {
    const sink = new Sink();
    collectSpans(line([span([s('openinference.span.kind', 'LLM')])]), sink);
    expect(sink.skipped).toEqual([['no-prompt-version', 'openinference']]);
  });

  it('messages from log records join their call (the official instrumentation), wherever they come in the input', () => {
    const sink = new Sink();
    const matched: string[] = [];
    const reader = new OtlpReader(sink, {
      keepContent: true,
      matchContent: (call) => {
        matched.push(JSON.stringify(call.messages));
        return call.messages?.[0]?.content === 'You list homes.' ? { name: 'homes', version: 'abc' } : null;
      },
    });
    const trace = id(16);
    const spanId = id(8);
    const record = (event: string, content: string) => ({ traceId: trace, spanId, attributes: [s('event.name', event)], body: { kvlistValue: { values: [s('content', content)] } } });
    reader.data(line([span([s('gen_ai.operation.name', 'chat')], { trace, spanId })], '@opentelemetry/instrumentation-openai'));
    reader.data({ resourceLogs: [{ scopeLogs: [{ logRecords: [record('gen_ai.system.message', 'You list homes.'), record('gen_ai.user.message', 'Homes in Lyon?')] }] }] });
    reader.end();
    expect(sink.spans).toMatchObject([{ promptVersion: 'abc', promptName: 'homes', versionFrom: 'content' }]);
    expect(JSON.parse(sink.spans[0]!.inputMessages!)).toEqual([
      { role: 'system', parts: [{ type: 'text', content: 'You list homes.' }] },
      { role: 'user', parts: [{ type: 'text', content: 'Homes in Lyon?' }] },
    ]);
    expect(matched).toHaveLength(1);
  });

  it('memory is bounded: beyond the held calls, the oldest is judged with what arrived; every call is emitted exactly once', () => {
    const sink = new Sink();
    const reader = new OtlpReader(sink, { maxHeld: 100 });
    const traces = Array.from({ length: 1000 }, () => ({ trace: id(16), root: id(8) }));
    for (const t of traces) reader.data(line([span([s('gen_ai.operation.name', 'chat')], { trace: t.trace, parent: t.root })]));
    // 900 were released early with no version; the last 100 get theirs from their roots.
    expect(sink.skipped).toHaveLength(900);
    for (const t of traces) reader.data(line([span(identity, { trace: t.trace, spanId: t.root })]));
    reader.end();
    expect(sink.spans).toHaveLength(100);
    expect(sink.skipped.length + sink.spans.length).toBe(1000);
  });
});
