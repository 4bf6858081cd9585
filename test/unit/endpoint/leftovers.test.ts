/**
 * No contamination: after a run times out, a server usually goes on working on it. The next run
 * waits (bounded) until the server's metrics say it is idle; one that still shares the server is
 * flagged and left out of the figures. A loopback server plays llama-server: /props, /metrics, and
 * a first request that it keeps working on after the client gave up.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { httpTransport } from '../../../src/core/endpoint/transport';
import { executePromptRuns, planPromptRun } from '../../../src/core/run/promptRun';

let server: Server | undefined;
afterEach(async () => {
  server?.closeAllConnections();
  await new Promise((r) => server?.close(r) ?? r(undefined));
});

/** busyMs: how long the server stays busy after the first (timed-out) request arrives. */
async function llamaLike(busyMs: number): Promise<{ url: string; chatArrivals: number[]; busyUntil: () => number }> {
  const chatArrivals: number[] = [];
  let busyUntil = 0;
  server = createServer((req, res) => {
    if (req.url === '/props') return void res.writeHead(200, { 'content-type': 'application/json' }).end('{"default_generation_settings":{}}');
    if (req.url === '/metrics') {
      const running = performance.now() < busyUntil ? 1 : 0;
      return void res.writeHead(200, { 'content-type': 'text/plain' }).end(`# TYPE llamacpp:requests_processing gauge\nllamacpp:requests_processing ${running}\n# TYPE llamacpp:requests_deferred gauge\nllamacpp:requests_deferred 0\n`);
    }
    if (req.url !== '/v1/chat/completions') return void res.writeHead(404).end(); // other servers' probe paths
    req.resume();
    req.on('end', () => {
      chatArrivals.push(performance.now());
      if (chatArrivals.length === 1) {
        busyUntil = performance.now() + busyMs; // keeps working after the client's timeout
        return; // never answers
      }
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.end('data: {"choices":[{"index":0,"delta":{"content":"ok"},"finish_reason":"stop"}]}\n\ndata: [DONE]\n\n');
    });
  });
  await new Promise<void>((r) => server!.listen(0, '127.0.0.1', r));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`, chatArrivals, busyUntil: () => busyUntil };
}

async function runTwice(url: string, leftoverWaitMs: number) {
  const plan = await planPromptRun('p.prompt.txt', 'Say ok.', { endpointModel: 'm' });
  return executePromptRuns(httpTransport({ name: 'llama-like', provider: 'openai', baseUrl: url }, undefined), plan, { runs: 2, concurrency: 1, warmup: 0, timeoutMs: 300, leftoverWaitMs });
}

describe('leftover work after a timeout', () => {
  it('the next run waits until the server reports it idle, and is measured clean', async () => {
    const fake = await llamaLike(1200);
    const result = await runTwice(fake.url, 10_000);
    expect(result.serverKind).toBe('llama.cpp');
    expect(result.outcomes.map((o) => o.record.error?.kind ?? 'ok')).toEqual(['timeout', 'ok']);
    expect(fake.chatArrivals[1]!).toBeGreaterThanOrEqual(fake.busyUntil());
    expect(result.outcomes[1]!.record.overlappedLeftover).toBeUndefined();
    expect(result.summary.ttftMs.n).toBe(1);
  });

  it('a server still busy after the bounded wait: the next run is flagged and left out of the figures', async () => {
    const fake = await llamaLike(60_000);
    const started = performance.now();
    const result = await runTwice(fake.url, 800);
    expect(performance.now() - started).toBeLessThan(5000);
    const second = result.outcomes[1]!.record;
    expect(second.ok).toBe(true);
    expect(second.overlappedLeftover).toMatch(/still had 1 request .* after \d+ ms/);
    expect(result.summary.ttftMs.n).toBe(0);
  });
});
