/**
 * `gen_ai.response.id`: the provider's id of each response, read from the stream (OpenAI-compatible
 * chunks' `id`, Anthropic's message_start `message.id`) or the JSON body, kept with the stored run and
 * exported on its span — never on metrics; an id that is not one (too long, control characters) is left out.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { anthropicDecoder } from '../../../src/core/endpoint/anthropicDecoder';
import { openAiDecoder } from '../../../src/core/endpoint/openaiDecoder';
import { httpTransport } from '../../../src/core/endpoint/transport';
import type { TimedEvent } from '../../../src/core/endpoint/types';
import { executePromptRuns, planPromptRun } from '../../../src/core/run/promptRun';
import { startSim, type RunningSim } from '../../../src/core/sim/simServer';
import { isValidStoredRun } from '../../../src/core/store/storedRunSchema';
import { ResultsStore } from '../../../src/core/store/resultsStore';
import { otlpJsonLines } from '../../../src/core/telemetry/otelExport';

const enc = new TextEncoder();
const done = (events: TimedEvent[]) => events.find((e) => e.kind === 'done') as Extract<TimedEvent, { kind: 'done' }> | undefined;

function openAiStream(id: unknown): TimedEvent[] {
  const decoder = openAiDecoder('text/event-stream');
  const chunk = (body: object) => enc.encode(`data: ${JSON.stringify({ id, object: 'chat.completion.chunk', ...body })}\n\n`);
  return [...decoder.feed(chunk({ choices: [{ index: 0, delta: { content: 'Hi' } }] }), 1), ...decoder.feed(chunk({ choices: [{ index: 0, delta: {}, finish_reason: 'stop' }] }), 2), ...decoder.feed(enc.encode('data: [DONE]\n\n'), 3), ...decoder.end(3)];
}

describe('response ids from the wire', () => {
  it('OpenAI-compatible streams and bodies, Anthropic streams and bodies', () => {
    expect(done(openAiStream('chatcmpl-9Xb2'))?.responseId).toBe('chatcmpl-9Xb2');
    const body = openAiDecoder('application/json');
    expect(done([...body.feed(enc.encode(JSON.stringify({ id: 'chatcmpl-json', choices: [{ index: 0, message: { content: 'Hi' }, finish_reason: 'stop' }] })), 1), ...body.end(2)])?.responseId).toBe('chatcmpl-json');
    const anthropic = anthropicDecoder('text/event-stream');
    const sse = (type: string, data: object) => enc.encode(`event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`);
    const events = [
      ...anthropic.feed(sse('message_start', { message: { id: 'msg_01AbC', usage: { input_tokens: 5 } } }), 1),
      ...anthropic.feed(sse('content_block_delta', { delta: { type: 'text_delta', text: 'Hi' } }), 2),
      ...anthropic.feed(sse('message_delta', { delta: { stop_reason: 'end_turn' }, usage: { output_tokens: 1 } }), 3),
      ...anthropic.feed(sse('message_stop', {}), 4),
      ...anthropic.end(4),
    ];
    expect(done(events)?.responseId).toBe('msg_01AbC');
  });

  it('leaves out what is not an id: too long, control characters, not a string', () => {
    expect(done(openAiStream('x'.repeat(257)))?.responseId).toBeUndefined();
    expect(done(openAiStream('chatcmpl-\u001b[2J'))?.responseId).toBeUndefined();
    expect(done(openAiStream(42))?.responseId).toBeUndefined();
    expect(done(openAiStream('x'.repeat(256)))?.responseId).toHaveLength(256);
  });
});

describe('runs record and export the response id', () => {
  let sim: RunningSim;
  beforeAll(async () => {
    sim = await startSim({ ttftBaseMs: 5, decodeMsPerToken: 1, outputTokens: 5 });
  });
  afterAll(async () => sim.close());

  it('each stored run has its own id from the simulator, valid in the store, on the span and not on the metrics', async () => {
    const store = new ResultsStore(join(mkdtempSync(join(tmpdir(), 'pi-rid-')), 'runs.jsonl'));
    const plan = await planPromptRun('greet.prompt', '---\nmodel: gpt-test\n---\nSay hello.\n', {});
    await executePromptRuns(httpTransport({ name: 'sim', provider: 'openai', baseUrl: sim.url, simulated: true }, undefined), plan, { runs: 3, concurrency: 1, warmup: 0, timeoutMs: 5000, store });
    const records = store.read().records;
    expect(records).toHaveLength(3);
    const ids = records.map((r) => r.run.responseId);
    for (const id of ids) expect(id).toMatch(/^chatcmpl-sim-\d+$/);
    expect(new Set(ids).size).toBe(3);
    for (const r of records) expect(isValidStoredRun(JSON.parse(JSON.stringify(r)))).toBe(true);
    const lines = [...otlpJsonLines(records.map((run) => ({ run })))];
    const exported = lines.flatMap((line) => {
      const data = JSON.parse(line) as { resourceSpans?: { scopeSpans: { spans: { attributes: { key: string; value: { stringValue?: string } }[] }[] }[] }[] };
      return (data.resourceSpans ?? []).flatMap((rs) => rs.scopeSpans.flatMap((ss) => ss.spans.map((s) => s.attributes.find((a) => a.key === 'gen_ai.response.id')?.value.stringValue)));
    });
    expect(exported.sort()).toEqual([...ids].sort());
    expect(lines.join('\n')).not.toMatch(/"dataPoints"[^\n]*gen_ai\.response\.id/);
  });
});
