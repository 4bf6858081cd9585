/**
 * A metrics server is not trusted to be small or honest (issue 20): 110,000 families per scrape keep
 * the mapped values and a bounded remainder; metric names from Object.prototype are plain numbers;
 * an endpoint that merely answers `/version` like vLLM is not sampled without being asked; a metrics
 * URL's password is neither sent nor printed; a "busy" server cannot add 30 s to a 300 ms run.
 * Every server here is a real HTTP server on 127.0.0.1.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { MAX_RAW_FAMILIES, MetricsSampler, rawFromPromql, sampleFromText } from '../../../src/core/endpoint/serverMetrics';
import { httpTransport } from '../../../src/core/endpoint/transport';
import { executePromptRuns, planPromptRun } from '../../../src/core/run/promptRun';

const servers: Server[] = [];
afterEach(async () => {
  for (const server of servers.splice(0)) {
    server.closeAllConnections();
    await new Promise((r) => server.close(r));
  }
});

async function serve(handler: (req: IncomingMessage, res: ServerResponse) => void): Promise<string> {
  const server = createServer(handler);
  servers.push(server);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

const LLAMA_MAPPED = '# TYPE llamacpp:requests_processing gauge\nllamacpp:requests_processing 1\n# TYPE llamacpp:requests_deferred gauge\nllamacpp:requests_deferred 3\n';
/** 110,000 families (1.4 MB), the mapped ones last. */
const HUGE = `${Array.from({ length: 110_000 }, (_, i) => `junk_${i} ${i}`).join('\n')}\n${LLAMA_MAPPED}`;

const CHAT_OK = 'data: {"choices":[{"index":0,"delta":{"content":"ok"},"finish_reason":"stop"}]}\n\ndata: [DONE]\n\n';

describe('server metrics under a hostile metrics server', () => {
  it('110,000 families per scrape: the mapped values are kept, the remainder is bounded and says what it dropped', async () => {
    const base = await serve((_, res) => void res.writeHead(200, { 'content-type': 'text/plain' }).end(HUGE));
    const start = performance.now();
    const sampler = new MetricsSampler(`${base}/metrics`, () => performance.now() - start, 100);
    sampler.start();
    await expect.poll(() => sampler.samples.length, { timeout: 60_000, interval: 50 }).toBeGreaterThanOrEqual(2);
    await sampler.stop();
    // A gap here can only be a scrape that missed its 250 ms on a busy machine, never a refused answer.
    expect(sampler.gaps.filter((g) => g.error !== 'no answer within 250 ms')).toEqual([]);
    expect(sampler.samples.length).toBeGreaterThanOrEqual(2);
    for (const sample of sampler.samples) {
      expect(sample).toMatchObject({ requestsRunning: 1, requestsWaiting: 3 });
      expect(Object.keys(sample.raw).length).toBeLessThanOrEqual(MAX_RAW_FAMILIES + 2);
      expect(sample.rawDropped).toBeGreaterThanOrEqual(110_000 - MAX_RAW_FAMILIES);
    }
    // What --json prints for all samples: kilobytes, not the 65–80 MB seen before.
    expect(JSON.stringify(sampler.samples).length).toBeLessThan(20_000 * sampler.samples.length);
    // Reading a sample costs bounded time: a slow read spaces the next ones out (never closer than the interval; the last is the one stop() takes at once).
    const times = sampler.samples.map((x) => x.t);
    for (let i = 1; i < times.length - 1; i++) expect(times[i]! - times[i - 1]!).toBeGreaterThanOrEqual(100 - 1);
  });

  it('metric names from Object.prototype are numbers like any other, in text and from a Prometheus server', () => {
    const text = '# TYPE constructor gauge\nconstructor 5\n# TYPE toString gauge\ntoString 7\n# TYPE __proto__ gauge\n__proto__ 9\nhasOwnProperty 2\n';
    const sample = sampleFromText(text, 0);
    expect(JSON.stringify(sample.raw)).toBe('{"constructor":5,"toString":7,"__proto__":9,"hasOwnProperty":2}');
    const promql = rawFromPromql({ status: 'success', data: { resultType: 'vector', result: ['constructor', 'toString', 'toString', '__proto__'].map((name) => ({ metric: { __name__: name }, value: [0, '3'] })) } });
    const raw = promql && 'raw' in promql ? promql.raw : (promql as unknown as Record<string, number>);
    expect(JSON.stringify(raw)).toBe('{"constructor":3,"toString":6,"__proto__":3}');
    expect(typeof raw.toString).toBe('number');
  });

  it("a metrics URL's password is neither sent nor printed in a gap", async () => {
    const headers: (string | undefined)[] = [];
    const base = await serve((req, res) => {
      headers.push(req.headers.authorization);
      res.writeHead(503).end();
    });
    const withPassword = base.replace('http://', 'http://scraper:Hunter2-metrics-pw@');
    const sampler = new MetricsSampler(`${withPassword}/metrics?token=Query-secret-77`, () => 0, 100);
    sampler.start();
    await new Promise((r) => setTimeout(r, 250));
    await sampler.stop();
    expect(sampler.gaps.length).toBeGreaterThanOrEqual(1);
    expect(sampler.gaps[0]!.error).toBe('HTTP 503');
    expect(headers.length).toBeGreaterThanOrEqual(1);
    expect(headers.every((h) => h === undefined)).toBe(true);
    // A metrics server that cannot be reached at all: the error names what failed, not the URL with its password.
    const refused = new MetricsSampler('http://scraper:Hunter2-metrics-pw@127.0.0.1:1/metrics', () => 0, 100);
    refused.start();
    await new Promise((r) => setTimeout(r, 150));
    await refused.stop();
    expect(refused.gaps.length).toBeGreaterThanOrEqual(1);
    for (const gap of [...sampler.gaps, ...refused.gaps]) expect(gap.error).not.toMatch(/Hunter2|Query-secret|scraper/);
  });
});

/** An OpenAI-compatible endpoint that answers `/version` like vLLM; `metrics` is what its /metrics says. */
async function versionOnlyEndpoint(metrics: string): Promise<{ url: string; metricsReads: () => number }> {
  let reads = 0;
  const base = await serve((req, res) => {
    if (req.url === '/version') return void res.writeHead(200, { 'content-type': 'application/json' }).end('{"version":"0.6.3"}');
    if (req.url === '/metrics') {
      reads++;
      return void res.writeHead(200, { 'content-type': 'text/plain' }).end(metrics);
    }
    if (req.url !== '/v1/chat/completions') return void res.writeHead(404).end();
    req.resume();
    req.on('end', () => setTimeout(() => res.writeHead(200, { 'content-type': 'text/event-stream' }).end(CHAT_OK), 300));
  });
  return { url: `${base}/v1`, metricsReads: () => reads };
}

async function runThree(url: string) {
  const plan = await planPromptRun('p.prompt.txt', 'Say ok.', { endpointModel: 'm' });
  return executePromptRuns(httpTransport({ name: 'version-only', provider: 'openai', baseUrl: url }, undefined), plan, { runs: 3, concurrency: 1, warmup: 0, timeoutMs: 5000 });
}

describe('which /metrics is sampled without being asked', () => {
  it('an endpoint that merely answers /version like vLLM: its /metrics is read once, not sampled, nothing of it kept', async () => {
    const fake = await versionOnlyEndpoint(HUGE);
    const result = await runThree(fake.url);
    expect(result.serverKind).toBe('vllm');
    expect(result.outcomes.every((o) => o.record.ok)).toBe(true);
    expect(result.serverMetrics?.samples).toEqual([]);
    // On a loaded machine a read of the 1.4 MB text may time out first (a gap); the first one answered ends the sampling.
    const gaps = result.serverMetrics!.gaps.map((g) => g.error);
    const timeouts = gaps.filter((g) => /^no answer within/.test(g)).length;
    expect(gaps.slice(timeouts)).toEqual([expect.stringMatching(/has no vllm: metrics; not sampled/)]);
    // One read to see whose metrics they are (and one by the per-run phase reader, which also gives up at once).
    expect(fake.metricsReads()).toBeLessThanOrEqual(2 + timeouts);
  });

  it('a server whose /metrics carries its own vllm: names is sampled, and only those names are kept', async () => {
    const real = await versionOnlyEndpoint(`# TYPE vllm:num_requests_running gauge\nvllm:num_requests_running{model_name="m"} 1\n# TYPE vllm:other gauge\nvllm:other 2\n${HUGE}`);
    const result = await runThree(real.url);
    expect(result.serverMetrics!.samples.length).toBeGreaterThanOrEqual(1);
    for (const sample of result.serverMetrics!.samples) expect(Object.keys(sample.raw).sort()).toEqual(['vllm:num_requests_running', 'vllm:other']);
  });
});

describe('waiting for a busy server after a timeout', () => {
  it('a metrics server that always says busy cannot add 30 s after a 300 ms run: the wait is bounded by the run timeout', async () => {
    let chats = 0;
    const base = await serve((req, res) => {
      if (req.url === '/props') return void res.writeHead(200, { 'content-type': 'application/json' }).end('{"default_generation_settings":{}}');
      if (req.url === '/metrics') return void res.writeHead(200, { 'content-type': 'text/plain' }).end('# TYPE llamacpp:requests_processing gauge\nllamacpp:requests_processing 1\n');
      if (req.url !== '/v1/chat/completions') return void res.writeHead(404).end();
      req.resume();
      req.on('end', () => {
        if (++chats === 1) return; // never answers: the run times out
        res.writeHead(200, { 'content-type': 'text/event-stream' }).end(CHAT_OK);
      });
    });
    const plan = await planPromptRun('p.prompt.txt', 'Say ok.', { endpointModel: 'm' });
    const started = performance.now();
    const result = await executePromptRuns(httpTransport({ name: 'busy', provider: 'openai', baseUrl: `${base}/v1` }, undefined), plan, { runs: 2, concurrency: 1, warmup: 0, timeoutMs: 300 });
    const elapsedMs = performance.now() - started;
    expect(result.outcomes.map((o) => o.record.error?.kind ?? 'ok')).toEqual(['timeout', 'ok']);
    expect(result.outcomes[1]!.record.overlappedLeftover).toMatch(/still had 1 request/);
    expect(elapsedMs).toBeLessThan(3000);
  }, 40_000);
});
