/**
 * TTFT phases from servers that state them only in their Prometheus histograms (vLLM, SGLang, TGI)
 * and from Ollama's native durations, and which server is behind an endpoint. Each fake is a real
 * loopback HTTP server that answers as that server does (paths, metric names and label order as in
 * the servers' documentation) and records its own phase times, so the test knows the true split.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { histogramTotals } from '../../../src/core/metrics/histogramPhases';
import { probeServerKind } from '../../../src/core/endpoint/serverKind';
import { httpTransport } from '../../../src/core/endpoint/transport';
import type { ProviderKind } from '../../../src/core/endpoint/types';
import { executePromptRuns, planPromptRun } from '../../../src/core/run/promptRun';

const servers: Server[] = [];
afterEach(async () => {
  for (const server of servers.splice(0)) {
    server.closeAllConnections();
    await new Promise((r) => server.close(r));
  }
});

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function listen(handler: (req: IncomingMessage, res: ServerResponse, body: string) => void): Promise<string> {
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => handler(req, res, Buffer.concat(chunks).toString('utf8')));
  });
  servers.push(server);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

type Kind = 'vllm' | 'sglang' | 'tgi';

/** One histogram family in the exposition format, `le` first as vLLM and SGLang print it. */
function histogram(name: string, series: { labels: string; sum: number; count: number }[]): string {
  const lines = [`# HELP ${name} a histogram`, `# TYPE ${name} histogram`];
  for (const s of series) {
    for (const le of ['0.01', '0.1', '1.0', '+Inf']) lines.push(`${name}_bucket{le="${le}",${s.labels}} ${s.count}`);
    lines.push(`${name}_sum{${s.labels}} ${s.sum}`, `${name}_count{${s.labels}} ${s.count}`);
  }
  return lines.join('\n');
}

interface TruePhases {
  queueMs: number;
  prefillMs: number;
  decodeMs: number;
}

/**
 * A server of `kind`: /v1/chat/completions streams after a queue wait, a prefill and a decode it
 * times itself; its histograms are updated 40 ms after the answer ends (as real servers record a
 * finished request). `othersPerRun` more requests "finish" with each run (another client).
 */
async function fakeServer(kind: Kind, options: { othersPerRun?: (run: number) => number } = {}) {
  const truth: TruePhases[] = [];
  const totals = { queue: 0, prefill: 0, decode: 0, ttft: 0, e2e: 0, count: 0 };
  const model = kind === 'tgi' ? '' : 'model_name="m"';
  const metrics = (): string => {
    const s = (sum: number) => [{ labels: model || 'x="1"', sum, count: totals.count }];
    if (kind === 'vllm') {
      return [
        '# TYPE vllm:num_requests_running gauge', `vllm:num_requests_running{${model}} 0`,
        histogram('vllm:request_queue_time_seconds', s(totals.queue)),
        histogram('vllm:request_prefill_time_seconds', s(totals.prefill)),
        histogram('vllm:request_decode_time_seconds', s(totals.decode)),
      ].join('\n') + '\n';
    }
    if (kind === 'sglang') {
      return [
        histogram('sglang:queue_time_seconds', s(totals.queue)),
        histogram('sglang:time_to_first_token_seconds', s(totals.ttft)),
        histogram('sglang:e2e_request_latency_seconds', s(totals.e2e)),
      ].join('\n') + '\n';
    }
    return [
      histogram('tgi_request_queue_duration', [{ labels: 'x="1"', sum: totals.queue, count: totals.count }]),
      histogram('tgi_batch_inference_duration', [
        { labels: 'method="prefill"', sum: totals.prefill, count: totals.count },
        { labels: 'method="decode"', sum: totals.decode, count: totals.count * 5 },
      ]),
    ].join('\n') + '\n';
  };
  const url = await listen(async (req, res) => {
    const json = (body: unknown) => res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(body));
    if (req.url === '/version' && kind === 'vllm') return json({ version: '0.10.1' });
    if (req.url === '/get_model_info' && kind === 'sglang') return json({ model_path: 'm', is_generation: true });
    if (req.url === '/info' && kind === 'tgi') return json({ model_id: 'm', max_concurrent_requests: 128, version: '3.0.0' });
    if (req.url === '/metrics') return void res.writeHead(200, { 'content-type': 'text/plain; version=0.0.4' }).end(metrics());
    if (req.url !== '/v1/chat/completions') return void res.writeHead(404).end();
    const run = truth.length;
    const phases: TruePhases = { queueMs: 15 + run * 5, prefillMs: 60 + run * 20, decodeMs: 0 };
    truth.push(phases);
    const started = performance.now();
    await sleep(phases.queueMs + phases.prefillMs);
    const firstToken = performance.now();
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    for (let i = 0; i < 5; i++) {
      res.write(`data: {"choices":[{"index":0,"delta":{"content":"t${i} "}}]}\n\n`);
      await sleep(10);
    }
    res.end('data: {"choices":[{"index":0,"delta":{},"finish_reason":"stop"}],"usage":{"prompt_tokens":9,"completion_tokens":5}}\n\ndata: [DONE]\n\n');
    const ended = performance.now();
    phases.decodeMs = ended - firstToken;
    const queue = phases.queueMs;
    const prefill = firstToken - started - queue; // what the server measured itself
    phases.prefillMs = prefill;
    await sleep(40);
    const others = options.othersPerRun?.(run) ?? 0;
    totals.count += 1 + others;
    totals.queue += (queue + others * 7) / 1000;
    totals.prefill += (prefill + others * 11) / 1000;
    totals.decode += (phases.decodeMs + others * 13) / 1000;
    totals.ttft += (queue + prefill + others * 17) / 1000;
    totals.e2e += (ended - started + others * 19) / 1000;
  });
  return { url: `${url}/v1`, truth };
}

async function runAgainst(url: string, runs: number, concurrency: number, provider: ProviderKind = 'openai') {
  const plan = await planPromptRun('p.prompt.txt', 'Say five words.', { endpointModel: 'm' });
  return executePromptRuns(httpTransport({ name: 'fake', provider, baseUrl: url }, undefined), plan, { runs, concurrency, warmup: 0, timeoutMs: 5000 });
}

describe('phases from the server’s histograms, when a run is alone on it', () => {
  it.each<Kind>(['vllm', 'sglang', 'tgi'])('%s: each run’s prefill and decode are the growth of the histograms', async (kind) => {
    const fake = await fakeServer(kind);
    const result = await runAgainst(fake.url, 3, 1);
    expect(result.serverKind).toBe(kind);
    expect(result.outcomes.every((o) => o.record.ok)).toBe(true);
    result.outcomes.forEach((outcome, i) => {
      const phases = outcome.record.phases!;
      expect(phases.source).toBe(`${kind} /metrics`);
      const truth = fake.truth[i]!;
      // sglang has no prefill histogram: TTFT − queue is its prefill.
      expect(phases.prefillMs).toBeCloseTo(truth.prefillMs, 3);
      expect(phases.decodeMs!).toBeCloseTo(truth.decodeMs, 3);
      // queue + transfer is the rest of the client's TTFT.
      expect(phases.queueMs!).toBeCloseTo(outcome.record.ttftMs! - phases.prefillMs, 6);
      expect(phases.queueMs!).toBeGreaterThanOrEqual(truth.queueMs - 2);
    });
    expect(result.summary.phases?.n).toBe(3);
    expect(result.summary.phases?.sources).toEqual([`${kind} /metrics`]);
  });

  it('another request finishing during a run: that run has no phases (the histograms hold two requests)', async () => {
    const fake = await fakeServer('vllm', { othersPerRun: (run) => (run === 1 ? 1 : 0) });
    const result = await runAgainst(fake.url, 3, 1);
    expect(result.outcomes.map((o) => o.record.phases?.source ?? null)).toEqual(['vllm /metrics', null, 'vllm /metrics']);
  });

  it('runs in parallel: no phases are claimed from the histograms', async () => {
    const fake = await fakeServer('vllm');
    const result = await runAgainst(fake.url, 4, 2);
    expect(result.outcomes.every((o) => o.record.ok && o.record.phases === null)).toBe(true);
    expect(result.summary.phases).toBeNull();
  });

  it('a server without request histograms (older vLLM, metrics off) is not polled after every run', async () => {
    let scrapes = 0;
    const url = await listen((req, res) => {
      if (req.url === '/version') return void res.writeHead(200, { 'content-type': 'application/json' }).end('{"version":"0.5.0"}');
      if (req.url === '/metrics') {
        scrapes++;
        return void res.writeHead(200, { 'content-type': 'text/plain' }).end('# TYPE vllm:num_requests_running gauge\nvllm:num_requests_running 0\n');
      }
      if (req.url !== '/v1/chat/completions') return void res.writeHead(404).end();
      res.writeHead(200, { 'content-type': 'text/event-stream' }).end('data: {"choices":[{"index":0,"delta":{"content":"ok"},"finish_reason":"stop"}]}\n\ndata: [DONE]\n\n');
    });
    const started = performance.now();
    const result = await runAgainst(`${url}/v1`, 4, 1);
    expect(result.serverKind).toBe('vllm');
    expect(result.outcomes.every((o) => o.record.ok && o.record.phases === null)).toBe(true);
    // The sampler's first and last samples and one reading before the first run; not 4 × (1 + 5).
    expect(scrapes).toBeLessThanOrEqual(5);
    expect(performance.now() - started).toBeLessThan(1500);
  });

  it('labelled histograms are read whole (the text parser alone loses their _sum and _count)', () => {
    const text = histogram('vllm:request_prefill_time_seconds', [
      { labels: 'model_name="a"', sum: 1.5, count: 3 },
      { labels: 'model_name="b"', sum: 0.5, count: 1 },
    ]);
    expect(histogramTotals(text).get('vllm:request_prefill_time_seconds')).toEqual({ sum: 2, count: 4 });
    expect(histogramTotals('not prometheus {{{').size).toBe(0);
    // A last line without its newline is still read.
    expect(histogramTotals(text.trimEnd()).get('vllm:request_prefill_time_seconds')).toEqual({ sum: 2, count: 4 });
  });
});

describe('Ollama’s native API', () => {
  it('streams NDJSON; prefill and decode are the server’s own durations', async () => {
    const requests: { url: string; body: string; auth?: string }[] = [];
    const url = await listen(async (req, res, body) => {
      requests.push({ url: req.url ?? '', body, ...(req.headers.authorization ? { auth: req.headers.authorization } : {}) });
      if (req.url !== '/api/chat') return void res.writeHead(404).end();
      res.writeHead(200, { 'content-type': 'application/x-ndjson' });
      await sleep(50);
      for (const word of ['The', ' sky', ' is', ' blue', '.']) {
        // A line split across two writes, as TCP may deliver it.
        const line = JSON.stringify({ model: 'llama3.2', created_at: '2026-12-03T12:00:00Z', message: { role: 'assistant', content: word }, done: false }) + '\n';
        res.write(line.slice(0, 20));
        await sleep(5);
        res.write(line.slice(20));
      }
      res.end(JSON.stringify({ model: 'llama3.2', message: { role: 'assistant', content: '' }, done: true, done_reason: 'stop', total_duration: 95_000_000, load_duration: 2_000_000, prompt_eval_count: 26, prompt_eval_duration: 41_500_000, eval_count: 5, eval_duration: 29_250_000 }) + '\n');
    });
    const plan = await planPromptRun('p.prompty', '---\nname: p\nmodel:\n  id: llama3.2\n  parameters:\n    max_tokens: 50\n---\nuser:\nWhy is the sky blue?', {});
    const result = await executePromptRuns(httpTransport({ name: 'ollama', provider: 'ollama', baseUrl: url }, undefined), plan, { runs: 1, concurrency: 1, warmup: 0, timeoutMs: 5000 });
    const record = result.outcomes[0]!.record;
    expect(result.serverKind).toBe('ollama');
    expect(result.outcomes[0]!.text.answer).toBe('The sky is blue.');
    expect(record.ok).toBe(true);
    expect(record.inputTokens).toBe(26);
    expect(record.outputTokens).toBe(5);
    expect(record.finishReason).toBe('stop');
    expect(record.phases).toMatchObject({ prefillMs: 41.5, decodeMs: 29.25, source: 'ollama durations' });
    expect(record.phases!.queueMs!).toBeCloseTo(record.ttftMs! - 41.5, 6);
    // Only the chat request: Ollama has no /metrics, and nothing was probed.
    expect(requests.map((r) => r.url)).toEqual(['/api/chat']);
    const sent = JSON.parse(requests[0]!.body) as { model: string; stream: boolean; options: Record<string, unknown>; messages: unknown[] };
    expect(sent).toMatchObject({ model: 'llama3.2', stream: true, options: { num_predict: 50 } });
  });

  it('an error line, a stream without its final object, and a line that is not JSON are errors, not answers', async () => {
    const bodies = [
      '{"error":"model \\"nope\\" not found, try pulling it first"}\n',
      '{"message":{"role":"assistant","content":"half"},"done":false}\n',
      'not json\n',
    ];
    let i = 0;
    const url = await listen((_req, res) => res.writeHead(200, { 'content-type': 'application/x-ndjson' }).end(bodies[i++]));
    const plan = await planPromptRun('p.prompt.txt', 'Hi', { endpointModel: 'nope' });
    const result = await executePromptRuns(httpTransport({ name: 'ollama', provider: 'ollama', baseUrl: url }, undefined), plan, { runs: 3, concurrency: 1, warmup: 0, timeoutMs: 5000 });
    const errors = result.outcomes.map((o) => o.record.error);
    expect(errors[0]).toMatchObject({ kind: 'http_5xx' });
    expect(errors[0]!.message).toContain('not found, try pulling it first');
    expect(errors[1]).toMatchObject({ kind: 'connection_reset' });
    expect(errors[2]).toMatchObject({ kind: 'malformed_stream' });
  });
});

describe('which server is behind an endpoint', () => {
  const kinds: [string, (path: string) => unknown][] = [
    ['llama.cpp', (p) => (p === '/props' ? { default_generation_settings: {}, build_info: 'b1' } : undefined)],
    ['ollama', (p) => (p === '/api/version' ? { version: '0.12.3' } : undefined)],
    ['tgi', (p) => (p === '/info' ? { model_id: 'm', max_concurrent_requests: 128, version: '3.0.0' } : undefined)],
    ['sglang', (p) => (p === '/get_model_info' ? { model_path: 'Qwen/Qwen3-0.6B', is_generation: true } : undefined)],
    ['vllm', (p) => (p === '/version' ? { version: '0.10.1' } : undefined)],
    ['unknown', () => undefined],
  ];
  it.each(kinds)('%s answers only its own path, and no probe carries a key', async (expected, answer) => {
    const seen: { path: string; auth: string | undefined }[] = [];
    const url = await listen((req, res) => {
      seen.push({ path: req.url ?? '', auth: req.headers.authorization });
      const body = answer(req.url ?? '');
      if (body === undefined) return void res.writeHead(404, { 'content-type': 'application/json' }).end('{"detail":"Not Found"}');
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(body));
    });
    expect(await probeServerKind(`${url}/v1`)).toBe(expected);
    expect(seen.every((s) => s.auth === undefined)).toBe(true);
  });

  it('OpenAI’s own API is known by its host, without a request', async () => {
    expect(await probeServerKind('https://api.openai.com/v1')).toBe('openai');
  });
});

describe('an endpoint’s own metricsUrl', () => {
  it('is sampled during the runs even when the server itself is unknown (a sidecar exporter)', async () => {
    let scrapes = 0;
    const exporter = await listen((_req, res) => {
      scrapes++;
      res.writeHead(200, { 'content-type': 'text/plain' }).end('# TYPE DCGM_FI_DEV_GPU_UTIL gauge\nDCGM_FI_DEV_GPU_UTIL{gpu="0"} 87\n# TYPE DCGM_FI_DEV_FB_USED gauge\nDCGM_FI_DEV_FB_USED{gpu="0"} 20480');
    });
    const api = await listen(async (req, res) => {
      if (req.url !== '/v1/chat/completions') return void res.writeHead(404).end();
      await sleep(600);
      res.writeHead(200, { 'content-type': 'text/event-stream' }).end('data: {"choices":[{"index":0,"delta":{"content":"ok"},"finish_reason":"stop"}]}\n\ndata: [DONE]\n\n');
    });
    const plan = await planPromptRun('p.prompt.txt', 'Say ok.', { endpointModel: 'm' });
    const result = await executePromptRuns(httpTransport({ name: 'gpu box', provider: 'openai', baseUrl: `${api}/v1`, metricsUrl: `${exporter}/metrics` }, undefined), plan, { runs: 2, concurrency: 1, warmup: 0, timeoutMs: 5000 });
    expect(result.serverKind).toBe('unknown');
    expect(result.serverMetrics?.source).toEqual({ kind: 'text', url: `${exporter}/metrics` });
    expect(scrapes).toBeGreaterThanOrEqual(2);
    const sample = result.serverMetrics!.samples.at(-1)!;
    expect(sample.gpuUtil).toBeCloseTo(0.87, 6);
    expect(sample.gpuMemoryUsedBytes).toBe(20480 * 1024 * 1024);
  });
});

describe('the first run is never silent', () => {
  it('reports identifying the server, sending, waiting (the server answered) and streaming, in order and on time', async () => {
    const url = await listen(async (req, res) => {
      if (req.url !== '/v1/chat/completions') return void res.writeHead(404).end();
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.flushHeaders();
      await sleep(400); // a long prefill: the head is out, the first token is not
      res.end('data: {"choices":[{"index":0,"delta":{"content":"ok"},"finish_reason":"stop"}]}\n\ndata: [DONE]\n\n');
    });
    const plan = await planPromptRun('p.prompt.txt', 'Say ok.', { endpointModel: 'm' });
    const stages: { stage: string; t: number }[] = [];
    await executePromptRuns(httpTransport({ name: 'slow', provider: 'openai', baseUrl: `${url}/v1` }, undefined), plan, {
      runs: 2, concurrency: 1, warmup: 0, timeoutMs: 5000,
      onFirstRunStage: (stage) => stages.push({ stage, t: performance.now() }),
    });
    expect(stages.map((s) => s.stage)).toEqual(['identifying-server', 'sending', 'waiting', 'streaming']);
    expect(stages[3]!.t - stages[2]!.t).toBeGreaterThanOrEqual(350);
  });

  it('an endpoint that lets unknown paths hang costs one probe timeout, not one per server kind', async () => {
    // Never answers. Asked one after another, the second path would arrive only after the first gave up (its
    // connection closed); asked at once, all five arrive before any probe gives up.
    const events: string[] = [];
    const url = await listen((req) => {
      events.push(`asked ${req.url}`);
      req.socket.once('close', () => events.push('gave up'));
    });
    expect(await probeServerKind(`${url}/v1`)).toBe('unknown');
    await expect.poll(() => events.filter((e) => e === 'gave up').length).toBe(5);
    expect(events.slice(0, 5).every((e) => e.startsWith('asked '))).toBe(true);
    expect(new Set(events.slice(0, 5))).toEqual(new Set(['/props', '/api/version', '/info', '/get_model_info', '/version'].map((p) => `asked ${p}`)));
  });
});
