/**
 * `prompt-insight sample` reads the messages sent wherever each instrumentation keeps them, through the
 * same conventions table `prod` uses: log records tied to the span (the official OpenAI instrumentation's
 * `gen_ai.system.message`/`gen_ai.user.message` events), `gen_ai.system_instructions` beside
 * `gen_ai.input.messages`, OpenInference's `llm.input_messages.N.message.*`, OpenLLMetry 0.x's
 * `gen_ai.prompt.N.*` and the AI SDK's `ai.prompt.messages`. Each becomes a case with the template's
 * variables recovered. The CLI as a child process on one trace file holding all of them.
 */
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { runCli } from '../fixtures/cli';
import { PROMPT } from '../fixtures/sampledPrompt';


const T = Date.UTC(2026, 10, 30, 12);
const system = (city: string) => `You are a real-estate assistant for ${city}. List single-family homes only.`;
const hex = (n: number, bytes: number) => n.toString(16).padStart(bytes * 2, '0');
const str = (key: string, value: string) => ({ key, value: { stringValue: value } });

function span(id: number, attributes: { key: string; value: unknown }[], name = 'chat gpt-4o-mini') {
  const start = BigInt(T + id * 60_000) * 1_000_000n;
  return { traceId: hex(id, 16), spanId: hex(id, 8), name, kind: 3, startTimeUnixNano: String(start), endTimeUnixNano: String(start + 900_000_000n), attributes: [str('gen_ai.prompt.name', 'homes-assistant'), str('gen_ai.prompt.version', 'a1b2c3d'), ...attributes], status: {} };
}

function traceFile(): string {
  const genai = [str('gen_ai.operation.name', 'chat'), str('gen_ai.request.model', 'gpt-4o-mini')];
  const spans = [
    // 1. The official instrumentation: no content on the span; the messages are log records (line 2).
    span(1, genai),
    // 2. GenAI now: the system message as gen_ai.system_instructions, the user's in gen_ai.input.messages.
    span(2, [...genai, str('gen_ai.system_instructions', JSON.stringify([{ type: 'text', content: system('Denver, CO') }])), str('gen_ai.input.messages', JSON.stringify([{ role: 'user', parts: [{ type: 'text', content: 'A yard for a dog.' }] }]))]),
    // 3. OpenInference: flattened llm.input_messages.N.message.role / .content.
    span(3, [str('openinference.span.kind', 'LLM'), str('llm.input_messages.0.message.role', 'system'), str('llm.input_messages.0.message.content', system('Boise, ID')), str('llm.input_messages.1.message.role', 'user'), str('llm.input_messages.1.message.content', 'Near a river.')]),
    // 4. OpenLLMetry 0.x: gen_ai.prompt.N.role / .content with llm.request.type.
    span(4, [str('llm.request.type', 'chat'), str('gen_ai.prompt.0.role', 'system'), str('gen_ai.prompt.0.content', system('Reno, NV')), str('gen_ai.prompt.1.role', 'user'), str('gen_ai.prompt.1.content', 'Three bedrooms near a school.')]),
    // 5. The AI SDK's ai.* telemetry: ai.prompt.messages on the provider call.
    span(5, [str('ai.operationId', 'ai.streamText.doStream'), str('ai.prompt.messages', JSON.stringify([{ role: 'system', content: system('Tulsa, OK') }, { role: 'user', content: [{ type: 'text', text: 'Homes with a pool.' }] }]))], 'ai.streamText.doStream'),
  ];
  const traces = { resourceSpans: [{ resource: { attributes: [] }, scopeSpans: [{ scope: { name: 'app' }, spans }] }] };
  const record = (event: string, content: string) => ({ timeUnixNano: String(BigInt(T + 60_000) * 1_000_000n), traceId: hex(1, 16), spanId: hex(1, 8), attributes: [str('event.name', event)], body: { kvlistValue: { values: [str('content', content)] } } });
  const logs = { resourceLogs: [{ resource: { attributes: [] }, scopeLogs: [{ scope: { name: '@opentelemetry/instrumentation-openai' }, logRecords: [record('gen_ai.system.message', system('Austin, TX')), record('gen_ai.user.message', 'Homes under $500k.')] }] }] };
  return `${JSON.stringify(traces)}\n${JSON.stringify(logs)}\n`;
}

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'pi-sample-sources-'));
  writeFileSync(join(dir, 'homes.prompty'), PROMPT);
  writeFileSync(join(dir, 'traces.jsonl'), traceFile());
});

describe('sample reads every source\'s messages', () => {
  it('log records, system instructions, OpenInference, OpenLLMetry 0.x and the AI SDK: each a case with its variables', async () => {
    const { code, stdout, stderr } = await runCli(['sample', 'homes.prompty', '--traces', 'traces.jsonl', '--n', '10', '--json'], dir);
    expect(stderr).toBe('Reading 1 trace file for homes-assistant…\n');
    expect(code).toBe(0);
    expect(JSON.parse(stdout).added.map((a: { inputs: string }) => a.inputs)).toEqual(Array(5).fill('template-variables'));
    const written = parse(readFileSync(join(dir, 'homes.tests.yaml'), 'utf8')) as { tests: { vars: Record<string, string>; metadata?: { traceId?: string } }[] };
    const cases = written.tests.map((t) => [Number.parseInt(JSON.stringify(t).match(/"([0-9a-f]{32})"/)![1]!, 16), t.vars]).sort((a, b) => (a[0] as number) - (b[0] as number));
    expect(cases).toEqual([
      [1, { city: 'Austin, TX', request: 'Homes under $500k.' }],
      [2, { city: 'Denver, CO', request: 'A yard for a dog.' }],
      [3, { city: 'Boise, ID', request: 'Near a river.' }],
      [4, { city: 'Reno, NV', request: 'Three bedrooms near a school.' }],
      [5, { city: 'Tulsa, OK', request: 'Homes with a pool.' }],
    ]);
  });
});
