/** Every streaming pitfall and fault from issue 3, reproduced by a real loopback server. */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { get_encoding } from 'tiktoken';
import { afterEach, describe, expect, it } from 'vitest';
import { runOnce } from '../../../src/core/run/runOnce';
import { httpTransport } from '../../../src/core/endpoint/transport';
import type { ChatRequest, EndpointConfig, ProviderKind } from '../../../src/core/endpoint/types';
import { delta, DONE, scriptedServer, sse, usage, type Script, type ScriptedServer } from '../../fixtures/scriptedServer';

const o200k = get_encoding('o200k_base');
const countTokens = (t: string) => o200k.encode_ordinary(t).length;
const request: ChatRequest = { model: 'm', messages: [{ role: 'user', content: 'find homes nearby' }], params: { temperature: 0 } };

let server: ScriptedServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

async function run(respond: (index: number) => Script, options: { provider?: ProviderKind; timeoutMs?: number; signal?: AbortSignal; endpoint?: Partial<EndpointConfig>; apiKey?: string } = {}) {
  server = await scriptedServer((_, i) => respond(i));
  const endpoint: EndpointConfig = { name: 't', provider: options.provider ?? 'openai', baseUrl: server.url, ...options.endpoint };
  return runOnce(httpTransport(endpoint, options.apiKey), request, {
    timeoutMs: options.timeoutMs ?? 5000,
    countTokens,
    inputTokensEstimate: 12,
    maxRetryWaitMs: 50,
    ...(options.signal ? { signal: options.signal } : {}),
  });
}

describe('a well-behaved stream', () => {
  it('measures TTFT at the first content token, not at the role-only chunk or keep-alive comments', async () => {
    const { record, text } = await run(() => ({
      steps: [{ write: delta({ role: 'assistant', content: '' }) }, { write: ': keep-alive\n\n' }, { wait: 150 }, { write: delta({ content: 'Detached' }) }, { wait: 40 }, { write: delta({ content: ' houses' }, 'stop') }, { write: usage(9, 2) }, { write: DONE }],
    }));
    expect(record.ok).toBe(true);
    expect(text.answer).toBe('Detached houses');
    expect(record.ttftMs!).toBeGreaterThanOrEqual(150);
    expect(record.ttftMs!).toBeLessThan(150 + 60);
    expect(record.e2eMs! - record.ttftMs!).toBeGreaterThanOrEqual(30); // the 40 ms pause, less a late first read on a loaded machine
    expect(record).toMatchObject({ outputTokens: 2, outputTokensSource: 'usage', inputTokens: 9, inputTokensSource: 'usage', finishReason: 'stop', status: 200, streamed: true, error: null });
    expect(record.tpotMs).toBeCloseTo(record.e2eMs! - record.ttftMs!, 6);
    expect(record.itlMs).toHaveLength(1);
  });

  it('reads an event split across reads at its completing read, and several events arriving in one read', async () => {
    const event = delta({ content: 'one' });
    const { record, text } = await run(() => ({
      steps: [{ write: event.slice(0, 10) }, { wait: 80 }, { write: event.slice(10) + delta({ content: ' two' }) + delta({ content: ' three' }, 'stop') }, { write: DONE }],
    }));
    expect(text.answer).toBe('one two three');
    expect(record.ttftMs!).toBeGreaterThanOrEqual(80);
    expect(record.e2eMs! - record.ttftMs!).toBeLessThan(5); // same read
    expect(record.itlMs).toEqual([]); // one arrival
  });

  it('counts output tokens with the tokenizer when the server reports no usage, and says so', async () => {
    const { record } = await run(() => ({ steps: [{ write: delta({ content: 'Single-family homes only' }) }, { write: delta({}, 'stop') }, { write: DONE }] }));
    expect(record).toMatchObject({ outputTokens: countTokens('Single-family homes only'), outputTokensSource: 'estimate', inputTokens: 12, inputTokensSource: 'estimate' });
  });

  it('uses usage for TPOT when chunks carry several tokens', async () => {
    const { record } = await run(() => ({
      steps: [{ write: delta({ content: 'a b c d' }) }, { wait: 200 }, { write: delta({ content: ' e f g h' }) }, { wait: 200 }, { write: delta({ content: ' i j' }, 'stop') }, { write: usage(5, 10) }, { write: DONE }],
    }));
    expect(record.outputTokens).toBe(10);
    expect(record.tpotMs).toBeCloseTo((record.e2eMs! - record.ttftMs!) / 9, 6);
    expect(record.itlMs).toHaveLength(2);
    // Two arrivals about 200 ms apart (the server's pauses: long enough that a busy machine's late read
    // neither merges two chunks into one arrival nor shortens a gap by more than a fraction).
    for (const gap of record.itlMs) expect(gap).toBeGreaterThanOrEqual(100);
  });

  it('takes TTFT at the first reasoning delta and reports the first answer token separately', async () => {
    const { record, text } = await run(() => ({
      steps: [{ wait: 50 }, { write: delta({ reasoning_content: 'The user says homes' }) }, { wait: 100 }, { write: delta({ content: 'Detached.' }, 'stop') }, { write: DONE }],
    }));
    expect(text.reasoning).toBe('The user says homes');
    // 100 ms apart on the server; a busy test machine may read the first delta late, so only "clearly later" is asserted.
    expect(record.firstAnswerMs! - record.ttftMs!).toBeGreaterThan(50);
  });

  it('handles a server that ignores stream:true and returns one JSON body', async () => {
    const body = JSON.stringify({ choices: [{ index: 0, message: { role: 'assistant', content: 'All detached.' }, finish_reason: 'stop' }], usage: { prompt_tokens: 7, completion_tokens: 3 } });
    const { record, text } = await run(() => ({ headers: { 'content-type': 'application/json' }, steps: [{ wait: 60 }, { write: body }] }));
    expect(text.answer).toBe('All detached.');
    expect(record).toMatchObject({ ok: true, streamed: false, outputTokens: 3, finishReason: 'stop' });
    expect(record.ttftMs).toBe(record.e2eMs);
    expect(record.ttftMs!).toBeGreaterThanOrEqual(60);
  });
});

describe('errors by kind', () => {
  it('http_4xx surfaces the server message and a hint', async () => {
    const { record } = await run(() => ({ status: 401, headers: { 'content-type': 'application/json' }, steps: [{ write: JSON.stringify({ error: { message: 'Incorrect API key provided' } }) }] }));
    expect(record.ok).toBe(false);
    expect(record.error!.kind).toBe('http_4xx');
    expect(record.error!.message).toContain('Incorrect API key provided');
    expect(record.error!.message).toContain('Set API Key');
    expect(record.status).toBe(401);
  });

  it('http_5xx surfaces the server message', async () => {
    const { record } = await run(() => ({ status: 503, steps: [{ write: JSON.stringify({ error: { message: 'model is loading' } }) }] }));
    expect(record.error).toMatchObject({ kind: 'http_5xx' });
    expect(record.error!.message).toContain('model is loading');
  });

  it('rate_limited honours Retry-After and retries a bounded number of times', async () => {
    const limited: Script = { status: 429, headers: { 'retry-after': '0' }, steps: [{ write: '{"error":{"message":"slow down"}}' }] };
    const { record } = await run((i) => (i < 2 ? limited : { steps: [{ write: delta({ content: 'ok' }, 'stop') }, { write: DONE }] }));
    expect(record).toMatchObject({ ok: true, retries: 2 });
    expect(server!.requests).toHaveLength(3);
    const always = await run(() => limited);
    expect(always.record).toMatchObject({ ok: false, retries: 3, error: { kind: 'rate_limited' } });
    expect(server!.requests).toHaveLength(4);
  });

  it('timeout ends a stalled stream and keeps nothing as a success', async () => {
    const { record, text } = await run(() => ({ steps: [{ write: delta({ content: 'partial' }) }, { wait: 10_000 }] }), { timeoutMs: 200 });
    expect(record.ok).toBe(false);
    expect(record.error!.kind).toBe('timeout');
    expect(text.answer).toBe('partial');
    // The limit counts from the run's start; the stream end is stamped from the request's start (after connecting).
    expect(record.streamEndMs).toBeGreaterThan(100);
    expect(record.streamEndMs).toBeLessThan(2000);
  });

  it('connection_reset mid-stream is an error, never a success', async () => {
    const { record } = await run(() => ({ steps: [{ write: delta({ content: 'Detached' }) }, { wait: 20 }, { destroy: true }] }));
    expect(record.ok).toBe(false);
    expect(record.error!.kind).toBe('connection_reset');
    expect(record.ttftMs).not.toBeNull();
  });

  it('a stream that ends cleanly without a finish reason or [DONE] is incomplete', async () => {
    const { record } = await run(() => ({ steps: [{ write: delta({ content: 'Detached' }) }] }));
    expect(record).toMatchObject({ ok: false, error: { kind: 'connection_reset' } });
  });

  it('malformed_stream for an event that is not JSON', async () => {
    const { record } = await run(() => ({ steps: [{ write: delta({ content: 'x' }) }, { write: 'data: {"choices": [\n\n' }, { write: DONE }] }));
    expect(record).toMatchObject({ ok: false, error: { kind: 'malformed_stream' } });
  });

  it('an error event inside the stream is an error', async () => {
    const { record } = await run(() => ({ steps: [{ write: delta({ content: 'x' }) }, { write: sse({ error: { message: 'backend crashed', type: 'server_error' } }) }] }));
    expect(record.error).toMatchObject({ kind: 'http_5xx' });
    expect(record.error!.message).toContain('backend crashed');
  });

  it('cancelled when the signal aborts mid-stream', async () => {
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 100);
    const { record } = await run(() => ({ steps: [{ write: delta({ content: 'x' }) }, { wait: 5000 }] }), { signal: controller.signal });
    expect(record).toMatchObject({ ok: false, error: { kind: 'cancelled' } });
    expect(record.streamEndMs).toBeLessThan(1000);
  });

  it('connection_failed when nothing listens', async () => {
    const closed = http.createServer();
    await new Promise<void>((r) => closed.listen(0, '127.0.0.1', r));
    const { port } = closed.address() as AddressInfo;
    await new Promise((r) => closed.close(r));
    const outcome = await runOnce(httpTransport({ name: 'x', provider: 'openai', baseUrl: `http://127.0.0.1:${port}/v1` }, undefined), request, { timeoutMs: 2000, countTokens, inputTokensEstimate: null });
    expect(outcome.record.error!.kind).toBe('connection_failed');
    expect(outcome.record.error!.message).toContain('ECONNREFUSED');
  });
});

describe('providers', () => {
  it('OpenAI-compatible: /chat/completions, bearer key, stream with usage, parameters from the file', async () => {
    await run(() => ({ steps: [{ write: delta({ content: 'x' }, 'stop') }, { write: DONE }] }), { apiKey: 'sk-test-123' });
    const [req] = server!.requests;
    expect(req!.url).toBe('/v1/chat/completions');
    expect(req!.headers.authorization).toBe('Bearer sk-test-123');
    expect(JSON.parse(req!.body)).toMatchObject({ model: 'm', stream: true, stream_options: { include_usage: true }, temperature: 0, messages: [{ role: 'user', content: 'find homes nearby' }] });
  });

  it('Azure OpenAI: deployment URL, api-key header, api-version', async () => {
    await run(() => ({ steps: [{ write: delta({ content: 'x' }, 'stop') }, { write: DONE }] }), { provider: 'azure', apiKey: 'az-key', endpoint: { model: 'gpt4o-deploy', apiVersion: '2024-06-01' } });
    const [req] = server!.requests;
    expect(req!.url).toBe('/v1/openai/deployments/gpt4o-deploy/chat/completions?api-version=2024-06-01');
    expect(req!.headers['api-key']).toBe('az-key');
    expect(req!.headers.authorization).toBeUndefined();
    expect(JSON.parse(req!.body).model).toBeUndefined();
  });

  it('Anthropic Messages: its SSE event types, thinking deltas, usage and stop reason', async () => {
    const ev = (event: string, data: unknown) => `event: ${event}\ndata: ${JSON.stringify(data)}\n\n`;
    const { record, text } = await run(
      () => ({
        steps: [
          { write: ev('message_start', { type: 'message_start', message: { usage: { input_tokens: 21, output_tokens: 1 } } }) },
          { write: ev('ping', { type: 'ping' }) },
          { wait: 60 },
          { write: ev('content_block_delta', { type: 'content_block_delta', index: 0, delta: { type: 'thinking_delta', thinking: 'homes means…' } }) },
          { wait: 40 },
          { write: ev('content_block_delta', { type: 'content_block_delta', index: 1, delta: { type: 'text_delta', text: 'Detached houses.' } }) },
          { write: ev('message_delta', { type: 'message_delta', delta: { stop_reason: 'end_turn' }, usage: { output_tokens: 8 } }) },
          { write: ev('message_stop', { type: 'message_stop' }) },
        ],
      }),
      { provider: 'anthropic', apiKey: 'ant-key' },
    );
    const [req] = server!.requests;
    expect(req!.url).toBe('/v1/messages');
    expect(req!.headers['x-api-key']).toBe('ant-key');
    expect(req!.headers['anthropic-version']).toBeDefined();
    expect(JSON.parse(req!.body)).toMatchObject({ model: 'm', stream: true, max_tokens: 1024, messages: [{ role: 'user', content: 'find homes nearby' }] });
    expect(text).toEqual({ reasoning: 'homes means…', answer: 'Detached houses.' });
    expect(record).toMatchObject({ ok: true, inputTokens: 21, outputTokens: 8, outputTokensSource: 'usage', finishReason: 'end_turn' });
    expect(record.ttftMs!).toBeGreaterThanOrEqual(60);
    expect(record.firstAnswerMs! - record.ttftMs!).toBeGreaterThanOrEqual(30); // the 40 ms pause, less a late first read
  });

  it('Anthropic: an overloaded error event mid-stream is an http_5xx error', async () => {
    const { record } = await run(
      () => ({ steps: [{ write: `event: error\ndata: ${JSON.stringify({ type: 'error', error: { type: 'overloaded_error', message: 'Overloaded' } })}\n\n` }] }),
      { provider: 'anthropic' },
    );
    expect(record.error).toMatchObject({ kind: 'http_5xx' });
    expect(record.error!.message).toContain('Overloaded');
  });
});

describe('judge endpoint', () => {
  it('asks at temperature 0 and returns the answer; a failing judge is an error', async () => {
    const { transportJudge } = await import('../../../src/core/run/transportJudge');
    server = await scriptedServer((_, i) => (i === 0 ? { steps: [{ write: delta({ content: '{"pass": true, "score": 1}' }, 'stop') }, { write: DONE }] } : { status: 500, steps: [{ write: '{"error":{"message":"judge down"}}' }] }));
    const judge = transportJudge(httpTransport({ name: 'judge', provider: 'openai', baseUrl: server.url }, undefined), 'judge-model', 5000);
    expect(await judge([{ role: 'user', content: 'grade this' }])).toBe('{"pass": true, "score": 1}');
    expect(JSON.parse(server.requests[0]!.body)).toMatchObject({ model: 'judge-model', temperature: 0 });
    await expect(judge([{ role: 'user', content: 'again' }])).rejects.toThrow('judge down');
  });
});

describe('odd answers say what arrived', () => {
  it('a redirect is not followed and says where it pointed', async () => {
    const { record } = await run(() => ({ status: 302, headers: { location: 'https://elsewhere.example/v1/chat/completions', 'content-type': 'text/html' }, steps: [{ write: '<a>moved</a>' }] }));
    expect(record.error).toMatchObject({ kind: 'http_redirect', message: expect.stringContaining('to https://elsewhere.example/v1/chat/completions') });
    expect(record.error!.message).toContain('not followed');
    expect(server!.requests).toHaveLength(1);
  });

  it('a 200 with an HTML page is an unexpected response naming its content type, not a reset', async () => {
    const { record } = await run(() => ({ headers: { 'content-type': 'text/html; charset=utf-8' }, steps: [{ write: '<html><title>Sign in</title></html>' }] }));
    expect(record.error).toMatchObject({ kind: 'unexpected_response', message: expect.stringMatching(/text\/html.*Sign in/) });
  });

  it('a gzip-encoded stream is named as such, and not decompressed', async () => {
    const { record } = await run(() => ({ headers: { 'content-encoding': 'gzip' }, steps: [{ write: Buffer.from([0x1f, 0x8b, 8, 0, 0, 0, 0, 0]) }] }));
    expect(record.error).toMatchObject({ kind: 'unexpected_response', message: expect.stringContaining('gzip-encoded') });
  });

  it('status 999 is not a server error but an undefined status', async () => {
    const { record } = await run(() => ({ status: 999, headers: { 'content-type': 'text/plain' }, steps: [{ write: 'odd' }] }));
    expect(record.error).toMatchObject({ kind: 'unexpected_response', message: expect.stringContaining('status 999') });
  });

  it('an endpoint URL with a query keeps the query after the path, for every provider', async () => {
    server = await scriptedServer(() => ({ steps: [{ write: delta({ content: 'ok' }, 'stop') }, { write: DONE }] }));
    const expected = { openai: '/v1/chat/completions?key=Q&tenant=t1', azure: '/v1/openai/deployments/m/chat/completions?key=Q&tenant=t1&api-version=2024-10-21', anthropic: '/v1/messages?key=Q&tenant=t1' };
    for (const [provider, path] of Object.entries(expected)) {
      await runOnce(httpTransport({ name: 't', provider: provider as ProviderKind, baseUrl: `${server.url}?key=Q&tenant=t1` }, undefined), request, { timeoutMs: 5000, countTokens, inputTokensEstimate: 1 });
      expect(server.requests.at(-1)!.url).toBe(path);
    }
  });
});
