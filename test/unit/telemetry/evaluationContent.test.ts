/**
 * `run --otlp-endpoint` with content capture off: the answer's text never leaves in an evaluation event
 * (`gen_ai.evaluation.explanation` once carried "the answer is '…', not '…'"); with
 * OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT=true it does. A loopback model whose answer is a
 * canary, a loopback OTLP/HTTP receiver, the built CLI.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../../fixtures/cli';

const CANARY = 'ANSWER-CANARY-5c81 the customer lives at 12 Elm St';
let model: Server;
let receiver: Server;
let modelUrl: string;
let receiverUrl: string;
let received: string[] = [];

const listen = async (server: Server) => {
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
};

beforeAll(async () => {
  model = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      if (req.method !== 'POST' || !req.url!.endsWith('/chat/completions')) return void res.writeHead(404).end();
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write(`data: ${JSON.stringify({ choices: [{ index: 0, delta: { content: CANARY }, finish_reason: null }] })}\n\n`);
      res.write(`data: ${JSON.stringify({ choices: [{ index: 0, delta: {}, finish_reason: 'stop' }], usage: { prompt_tokens: 10, completion_tokens: 9 } })}\n\n`);
      res.end('data: [DONE]\n\n');
    });
  });
  receiver = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      received.push(Buffer.concat(chunks).toString('utf8'));
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  modelUrl = `${await listen(model)}/v1`;
  receiverUrl = await listen(receiver);
});
afterAll(() => {
  model.close();
  receiver.close();
});

async function runWith(env: NodeJS.ProcessEnv): Promise<{ events: Record<string, unknown>[]; stderr: string }> {
  received = [];
  const dir = mkdtempSync(join(tmpdir(), 'pi-evalcontent-'));
  writeFileSync(join(dir, 'answer.prompty'), '---\nname: answer\nmodel:\n  api: chat\n  configuration: { type: openai, name: m }\n---\nuser:\nWhere does the customer live?\n');
  writeFileSync(join(dir, 'answer.tests.yaml'), 'tests:\n  - description: exact\n    assert:\n      - { type: equals, value: "Somewhere else" }\n');
  const { stderr } = await runCli(['run', 'answer.prompty', '--endpoint', modelUrl, '--runs', '1', '--no-store', '--otlp-endpoint', receiverUrl], dir, { env: { ...process.env, ...env } });
  const events: Record<string, unknown>[] = [];
  for (const body of received) {
    for (const rs of JSON.parse(body).resourceSpans ?? []) for (const ss of rs.scopeSpans ?? []) for (const span of ss.spans) for (const e of span.events ?? []) events.push(Object.fromEntries(e.attributes.map((a: { key: string; value: Record<string, unknown> }) => [a.key, Object.values(a.value)[0]])));
  }
  return { events, stderr };
}

describe('evaluation events and content capture', () => {
  it('content capture off: the failed check is sent by its labels, the answer text nowhere', async () => {
    const { events, stderr } = await runWith({ OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT: '' });
    expect(stderr).toMatch(/Sent 1 span/);
    expect(events[0]).toMatchObject({ 'gen_ai.evaluation.name': 'test case: exact', 'gen_ai.evaluation.score.label': 'fail', 'gen_ai.evaluation.explanation': 'did not pass: equals "Somewhere else" (fail)' });
    for (const body of received) expect(body).not.toContain('ANSWER-CANARY-5c81');
  });

  it('content capture on: the reason, quoting the answer, is sent', async () => {
    const { events } = await runWith({ OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT: 'true' });
    expect(String(events[0]!['gen_ai.evaluation.explanation'])).toContain('ANSWER-CANARY-5c81');
  });
});
