/** The Prometheus source against misbehaving servers on 127.0.0.1: slow, huge, not JSON, refusing, too many series. */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { instantQuery, MAX_SERIES, prodFromPrometheus } from '../../src/core/telemetry/prodPrometheus';
import { TestRepo } from '../fixtures/gitRepo';

let server: Server | undefined;
const queries: string[] = [];
async function serve(handler: (req: IncomingMessage, res: ServerResponse) => void): Promise<string> {
  server = createServer((req, res) => {
    queries.push(new URL(req.url!, 'http://x').searchParams.get('query') ?? '');
    handler(req, res);
  });
  await new Promise<void>((done) => server!.listen(0, '127.0.0.1', done));
  return `http://127.0.0.1:${(server!.address() as AddressInfo).port}`;
}
afterEach(async () => {
  server?.closeAllConnections();
  await new Promise((done) => server?.close(done));
  server = undefined;
  queries.length = 0;
});

const call = { timeoutMs: 1000, maxBytes: 64 * 1024 };

describe('Prometheus source, bounded', () => {
  it('a server that never answers is stated after the timeout', async () => {
    const url = await serve(() => {});
    const started = Date.now();
    await expect(instantQuery(url, 'up', call)).rejects.toThrow('Prometheus query failed: no answer within 1000 ms');
    expect(Date.now() - started).toBeLessThan(5000);
  });

  it('an answer larger than the limit is refused, not read whole', async () => {
    const url = await serve((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(`{"status":"success","data":{"resultType":"vector","result":[${'{"metric":{},"value":[1,"1"]},'.repeat(10_000)}{}]}}`);
    });
    await expect(instantQuery(url, 'up', call)).rejects.toThrow(`more than ${64 * 1024} bytes`);
  });

  it('not JSON, a PromQL error and an HTTP error are each said', async () => {
    let mode = 'html';
    const url = await serve((_req, res) => {
      if (mode === 'html') res.end('<html>login</html>');
      else if (mode === 'error') res.end(JSON.stringify({ status: 'error', errorType: 'bad_data', error: 'parse error at char 3' }));
      else {
        res.writeHead(503);
        res.end();
      }
    });
    await expect(instantQuery(url, 'up', call)).rejects.toThrow(/not JSON/);
    mode = 'error';
    await expect(instantQuery(url, 'up', call)).rejects.toThrow('Prometheus refused the query: parse error at char 3');
    mode = '503';
    await expect(instantQuery(url, 'up', call)).rejects.toThrow('HTTP 503');
  });

  it('reads at most MAX_SERIES series and counts the rest', async () => {
    const result = Array.from({ length: MAX_SERIES + 7 }, (_, i) => ({ metric: { v: String(i) }, value: [1, '1'] }));
    const url = await serve((_req, res) => res.end(JSON.stringify({ status: 'success', data: { resultType: 'vector', result } })));
    const { samples, dropped } = await instantQuery(url, 'up', { ...call, maxBytes: 8 * 1024 * 1024 });
    expect(samples).toHaveLength(MAX_SERIES);
    expect(dropped).toBe(7);
  });

  it('asks PromQL per version over the window, and keeps only this file\'s prompts', async () => {
    const repo = new TestRepo();
    const rev = repo.commit('greet', { 'greet.prompt': '---\nmodel: m\n---\nHello.\n' });
    const url = await serve((_req, res) => {
      const q = queries.at(-1)!;
      const result = /^sum by \(gen_ai_prompt_name, gen_ai_prompt_version\) \(+increase\(/.test(q)
        ? [
            { metric: { gen_ai_prompt_name: 'greet', gen_ai_prompt_version: rev.slice(0, 8) }, value: [1, '120.4'] },
            { metric: { gen_ai_prompt_name: 'other', gen_ai_prompt_version: 'x' }, value: [1, '5'] },
          ]
        : q.includes('histogram_quantile(0.5,') && q.includes('time_to_first_chunk')
          ? [{ metric: { gen_ai_prompt_name: 'greet', gen_ai_prompt_version: rev.slice(0, 8) }, value: [1, '0.25'] }]
          : [];
      res.end(JSON.stringify({ status: 'success', data: { resultType: 'vector', result } }));
    });
    const report = await prodFromPrometheus(`${repo.root}/greet.prompt`, url, { window: '7d' });
    expect(report.versions).toHaveLength(1);
    expect(report.versions[0]).toMatchObject({ version: rev.slice(0, 8), revision: rev, requests: 120, errors: 0, ttftMs: { n: 120, p50: { value: 250, ci95: [null, null] }, p90: null } });
    expect(report.otherPrompts).toEqual({ other: 5 });
    expect(queries).toContain('histogram_quantile(0.9, sum by (le, gen_ai_prompt_name, gen_ai_prompt_version) (rate({__name__=~"gen_ai_client_(operation|inference)_time_to_first_chunk(_seconds)?_bucket", error_type=""}[7d])))');
    await expect(prodFromPrometheus(`${repo.root}/greet.prompt`, url, { window: '7 days' })).rejects.toThrow('takes a duration such as 24h');
  });
});
