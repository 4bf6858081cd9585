/**
 * Servers that never stop talking: one endless SSE line, a 40 MB line, a huge JSON body. The run
 * ends on time with a clear error, whatever the server sends. Every server here stops by itself.
 */
import { execFile } from 'node:child_process';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runOnce } from '../../../src/core/endpoint/runOnce';
import { httpTransport } from '../../../src/core/endpoint/transport';

const CLI = resolve('dist/cli.js');
const MAX_SERVE_MS = 20_000;

interface Flood {
  url: string;
  close(): Promise<void>;
}

/** Writes `head`, then `piece` as fast as the socket takes it (or every `everyMs`), until `totalBytes` or 20 s. */
async function floodServer(contentType: string, head: string, piece: Buffer, options: { totalBytes?: number; everyMs?: number; tail?: string } = {}): Promise<Flood> {
  const sockets = new Set<import('node:net').Socket>();
  const server = http.createServer((req, res) => {
    req.resume();
    res.writeHead(200, { 'content-type': contentType });
    res.write(head);
    const started = Date.now();
    let sent = 0;
    const pump = (): void => {
      while (!res.destroyed && Date.now() - started < MAX_SERVE_MS) {
        if (options.totalBytes !== undefined && sent >= options.totalBytes) {
          res.end(options.tail ?? '');
          return;
        }
        sent += piece.length;
        const more = res.write(piece);
        if (options.everyMs) return void setTimeout(pump, options.everyMs);
        if (!more) return void res.once('drain', pump);
      }
      res.destroy();
    };
    pump();
  });
  server.on('connection', (s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`,
    close: () => new Promise((r) => {
      for (const s of sockets) s.destroy();
      server.close(() => r());
    }),
  };
}

function cli(args: string[], env: Record<string, string> = {}): Promise<{ code: number; stdout: string; stderr: string; ms: number }> {
  const started = Date.now();
  return new Promise((done) =>
    execFile(process.execPath, [CLI, ...args], { env: { ...process.env, ...env }, timeout: 60_000, maxBuffer: 64 << 20 }, (error, stdout, stderr) => done({ code: error ? Number((error as { code: number }).code) : 0, stdout, stderr, ms: Date.now() - started })),
  );
}

let prompt: string;
beforeAll(() => {
  prompt = join(mkdtempSync(join(tmpdir(), 'pi-flood-')), 'p.prompt.txt');
  writeFileSync(prompt, 'Say hi.\n');
});

const run = (url: string, timeoutMs: number, env: Record<string, string> = {}) => cli(['run', prompt, '--endpoint', url, '--model', 'm', '--no-store', '--json', '--timeout-ms', String(timeoutMs)], env);

describe('hostile streams', () => {
  let flood: Flood | undefined;
  afterAll(async () => flood?.close());

  it('one endless SSE line: refused at the 8 MiB event limit, long before the timeout', async () => {
    flood = await floodServer('text/event-stream', 'data: {"choices":[{"delta":{"content":"', Buffer.alloc(64 * 1024, 0x61));
    const out = await run(flood.url, 15_000);
    await flood.close();
    const record = JSON.parse(out.stdout).runs[0];
    expect(record.error).toMatchObject({ kind: 'malformed_stream', message: expect.stringContaining('longer than 8 MiB') });
    expect(out.ms).toBeLessThan(10_000);
  });

  it('an endless line under a raised limit: the timeout ends the run on time', async () => {
    flood = await floodServer('text/event-stream', 'data: ', Buffer.alloc(256 * 1024, 0x62), { everyMs: 5 });
    const out = await run(flood.url, 2000, { PROMPT_INSIGHT_MAX_EVENT_MB: '4096' });
    await flood.close();
    const record = JSON.parse(out.stdout).runs[0];
    expect(record.error.kind).toBe('timeout');
    // The process start and the JSON print on top of the 2 s limit, with room for a busy CI machine.
    expect(out.ms).toBeLessThan(2000 + 3000);
  });

  it('a finite 40 MB line is scanned once: the run finishes long before its timeout', async () => {
    const chunk = (text: string) => `data: ${JSON.stringify({ choices: [{ index: 0, delta: { content: text } }] })}\n\n`;
    flood = await floodServer('text/event-stream', 'data: {"choices":[{"index":0,"delta":{"content":"', Buffer.alloc(64 * 1024, 0x63), {
      totalBytes: 40 * 1024 * 1024,
      // With usage, so no count of the 40 MB answer is needed (counting one 40 MB piece is issue 12's worst case).
      tail: `"}}]}\n\n${chunk('!')}data: ${JSON.stringify({ choices: [{ index: 0, delta: {}, finish_reason: 'stop' }] })}\n\ndata: ${JSON.stringify({ choices: [], usage: { prompt_tokens: 3, completion_tokens: 5000 } })}\n\ndata: [DONE]\n\n`,
    });
    const out = await run(flood.url, 30_000, { PROMPT_INSIGHT_MAX_EVENT_MB: '64' });
    await flood.close();
    const record = JSON.parse(out.stdout).runs[0];
    expect(record.error).toBeNull();
    expect(record.finishReason).toBe('stop');
    expect(out.ms).toBeLessThan(15_000);
  });

  it('a non-streamed JSON body past 64 MiB is refused, not held in memory', async () => {
    flood = await floodServer('application/json', '{"choices":[{"message":{"content":"', Buffer.alloc(1024 * 1024, 0x64), { totalBytes: 300 * 1024 * 1024, tail: '"}}]}' });
    const transport = httpTransport({ name: 'flood', provider: 'openai', baseUrl: flood.url }, undefined);
    const { record } = await runOnce(transport, { model: 'm', messages: [{ role: 'user', content: 'hi' }], params: {} }, { timeoutMs: 30_000, countTokens: (t) => t.length, inputTokensEstimate: 1 });
    await flood.close();
    expect(record.error).toMatchObject({ kind: 'malformed_stream', message: expect.stringContaining('larger than 64 MiB') });
  });
});

describe('counting a large answer without usage is part of the run', () => {
  let flood: Flood | undefined;
  afterAll(async () => flood?.close());

  // 6 MB of 'A' in 64 KB deltas, no usage: the estimate needs one count of a 6-million-character piece.
  const floodOfA = () => {
    const delta = `data: ${JSON.stringify({ choices: [{ index: 0, delta: { content: 'A'.repeat(64 * 1024) } }] })}\n\n`;
    return floodServer('text/event-stream', '', Buffer.from(delta), { totalBytes: 6 * 1024 * 1024, tail: `data: ${JSON.stringify({ choices: [{ index: 0, delta: {}, finish_reason: 'length' }] })}\n\ndata: [DONE]\n\n` });
  };

  it('the count honours the timeout: the run returns on time, the estimate left out when there was no time for it', async () => {
    flood = await floodOfA();
    const out = await run(flood.url, 1500);
    await flood.close();
    const record = JSON.parse(out.stdout).runs[0];
    expect(record.finishReason).toBe('length');
    expect(out.ms).toBeLessThan(1500 + 3000);
    if (record.outputTokens !== null) expect(record.outputTokensSource).toBe('estimate');
  });

  it('with time for it, the large answer is counted exactly', async () => {
    flood = await floodOfA();
    const out = await run(flood.url, 60_000);
    await flood.close();
    const record = JSON.parse(out.stdout).runs[0];
    // 'A' × 6,291,456 in o200k_base: 8 A's per token.
    expect(record).toMatchObject({ outputTokens: (6 * 1024 * 1024) / 8, outputTokensSource: 'estimate' });
  });

  it('SIGTERM while the answer is being counted ends the process at once', async () => {
    flood = await floodOfA();
    const started = Date.now();
    const child = execFile(process.execPath, [CLI, 'run', prompt, '--endpoint', flood.url, '--model', 'm', '--no-store', '--timeout-ms', '60000']);
    // Once the whole answer has arrived the count starts; stop the process soon after.
    await new Promise((r) => setTimeout(r, 1500));
    const exited = new Promise<number | null>((r) => child.once('exit', (code) => r(code)));
    child.kill('SIGTERM');
    const code = await exited;
    await flood.close();
    expect(code).toBe(130);
    expect(Date.now() - started).toBeLessThan(1500 + 3000);
  });
});
