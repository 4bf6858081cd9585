/**
 * The answer a model call received, read through each source's row of the conventions table (the field
 * production adherence scores): GenAI `gen_ai.output.messages` (the last assistant message), OpenLLMetry's
 * `gen_ai.completion.N.*`, OpenInference's `llm.output_messages.N.message.*`, the AI SDK's `ai.response.text`,
 * Langfuse's output as plain text or as a message, and a `gen_ai.choice` log record tied to the span. Answers are
 * handed on only when asked for; over the cap they are not read.
 */
import { describe, expect, it } from 'vitest';
import { OtlpReader, type ImportedSpan, type SpanSink } from '../../../src/core/telemetry/importOtlpSpans';
import { MAX_CAPTURED_CHARS } from '../../../src/core/telemetry/capturedContent';
import { attributeMap } from '../../../src/core/telemetry/otlpValues';
import { readModelCall, recogniseRow } from '../../../src/core/telemetry/spanFields';

const s = (key: string, v: string) => ({ key, value: { stringValue: v } });
const T0 = BigInt(1_790_000_000_000) * 1_000_000n;
let nextId = 1;
const hex = (n: number, bytes: number) => n.toString(16).padStart(bytes * 2, '0');

function span(attrs: { key: string; value: unknown }[], name = 'chat gpt') {
  const n = nextId++;
  return { traceId: hex(n, 16), spanId: hex(n, 8), name, kind: 3, startTimeUnixNano: String(T0), endTimeUnixNano: String(T0 + 900_000_000n), attributes: [s('gen_ai.prompt.name', 'homes'), s('gen_ai.prompt.version', 'v1'), ...attrs], status: {} };
}

function read(spans: unknown[], logs: unknown[] = [], keepAnswers = true): (string | undefined)[] {
  const out: ImportedSpan[] = [];
  const sink: SpanSink = { span: (x) => out.push(x), skip: () => {}, other: () => {} };
  const reader = new OtlpReader(sink, { keepAnswers });
  reader.data({ resourceSpans: [{ resource: { attributes: [] }, scopeSpans: [{ scope: { name: 'app' }, spans }] }] });
  if (logs.length) reader.data({ resourceLogs: [{ scopeLogs: [{ scope: { name: 'app' }, logRecords: logs }] }] });
  reader.end();
  return out.sort((a, b) => a.traceId!.localeCompare(b.traceId!)).map((x) => x.answer);
}

const genai = s('gen_ai.operation.name', 'chat');

describe('the answer received, per source', () => {
  it('reads each source\'s answer field', () => {
    nextId = 1;
    const answers = read([
      span([genai, s('gen_ai.output.messages', JSON.stringify([{ role: 'assistant', parts: [{ type: 'text', content: 'genai answer' }], finish_reason: 'stop' }]))]),
      span([s('llm.request.type', 'chat'), s('gen_ai.completion.0.role', 'assistant'), s('gen_ai.completion.0.content', 'openllmetry answer')]),
      span([s('openinference.span.kind', 'LLM'), s('llm.output_messages.0.message.role', 'assistant'), s('llm.output_messages.0.message.content', 'openinference answer')]),
      span([s('ai.operationId', 'ai.streamText.doStream'), s('ai.response.text', 'ai sdk answer')], 'ai.streamText.doStream'),
      span([s('langfuse.observation.type', 'generation'), s('langfuse.observation.output', 'langfuse streamed text')]),
      span([s('langfuse.observation.type', 'generation'), s('langfuse.observation.output', JSON.stringify({ role: 'assistant', content: 'langfuse message' }))]),
      span([genai]),
      span([genai]),
    ], [
      { traceId: hex(7, 16), spanId: hex(7, 8), attributes: [s('event.name', 'gen_ai.choice')], body: { kvlistValue: { values: [{ key: 'index', value: { intValue: '0' } }, { key: 'message', value: { kvlistValue: { values: [s('role', 'assistant'), s('content', 'official answer')] } } }] } } },
    ]);
    expect(answers).toEqual(['genai answer', 'openllmetry answer', 'openinference answer', 'ai sdk answer', 'langfuse streamed text', 'langfuse message', 'official answer', undefined]);
  });

  it('not handed on unless asked for; an answer over the cap is not read', () => {
    const big = 'x'.repeat(MAX_CAPTURED_CHARS + 1);
    expect(read([span([genai, s('gen_ai.output.messages', JSON.stringify([{ role: 'assistant', content: 'kept out' }]))])], [], false)).toEqual([undefined]);
    expect(read([span([s('ai.operationId', 'ai.streamText.doStream'), s('ai.response.text', big)], 'ai.streamText.doStream')])).toEqual([undefined]);
  });

  it('a reader that neither matches nor keeps content does not parse it: the figures are read, the messages and answer are not', () => {
    const raw = span([genai, s('gen_ai.input.messages', JSON.stringify([{ role: 'user', parts: [{ type: 'text', content: 'Homes?' }] }])), s('gen_ai.output.messages', JSON.stringify([{ role: 'assistant', parts: [{ type: 'text', content: 'A house.' }] }])), s('gen_ai.usage.input_tokens', '12')]);
    const attributes = attributeMap(raw.attributes);
    const row = recogniseRow(attributes, raw.name, 'app')!;
    const withContent = readModelCall(raw, row, attributes, true);
    const without = readModelCall(raw, row, attributes, false);
    expect(withContent).toMatchObject({ messages: [{ role: 'user', content: 'Homes?' }], answer: 'A house.', inputTokens: 12 });
    expect(without).toMatchObject({ messages: null, answer: null, contentTooLarge: false, inputTokens: 12, e2eMs: 900 });
  });

  it('message events are looked up by their own names: an event named `constructor` or `toString` is no message', () => {
    const event = (name: string, content: string) => ({ name, timeUnixNano: String(T0), attributes: [s('content', content)] });
    const raw = { ...span([genai]), events: [event('gen_ai.user.message', 'Homes?'), event('constructor', 'forged'), event('toString', 'forged')] };
    const attributes = attributeMap(raw.attributes);
    expect(readModelCall(raw, recogniseRow(attributes, raw.name, 'app')!, attributes, true)).toMatchObject({ messages: [{ role: 'user', content: 'Homes?' }] });
  });
});
