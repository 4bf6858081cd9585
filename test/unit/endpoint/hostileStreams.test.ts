/**
 * Servers that never stop talking: one endless SSE line, a 40 MB line, a huge JSON body. The run
 * ends on time with a clear error, whatever the server sends. Every server here stops by itself.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runOnce } from '../../../src/core/run/runOnce';
import { httpTransport } from '../../../src/core/endpoint/transport';
import { floodServer, type Flood } from '../../fixtures/floodServer';

const CLI = resolve('dist/cli.js');
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
    // Refused by the limit, not ended by the 15 s timeout.
    expect(record.error).toMatchObject({ kind: 'malformed_stream', message: expect.stringContaining('longer than 8 MiB') });
  });

  it('an endless line under a raised limit: the timeout ends the run on time', async () => {
    flood = await floodServer('text/event-stream', 'data: ', Buffer.alloc(256 * 1024, 0x62), { everyMs: 5 });
    const out = await run(flood.url, 2000, { PROMPT_INSIGHT_MAX_EVENT_MB: '4096' });
    await flood.close();
    const record = JSON.parse(out.stdout).runs[0];
    // The line never ends (the server stops after 20 s at the earliest): only the 2 s timeout ended this run.
    expect(record.error.kind).toBe('timeout');
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
    // Finished, not ended by its 30 s timeout (a quadratic scan of the line would be).
    expect(record.error).toBeNull();
    expect(record.finishReason).toBe('stop');
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
    const child = execFile(process.execPath, [CLI, 'run', prompt, '--endpoint', flood.url, '--model', 'm', '--no-store', '--timeout-ms', '60000']);
    const exited = new Promise<number | null>((r) => child.once('exit', (code) => r(code)));
    // Ready: the CLI has said it is running (its Ctrl-C handling is in place), and the whole answer
    // has been written — the count of the 6 MB piece starts as it arrives. A count that ignored the
    // signal would finish and exit 0 with the run's figures.
    await new Promise<void>((r) => child.stderr!.on('data', (d: Buffer) => d.toString().includes('Running ') && r()));
    await flood.ended;
    child.kill('SIGTERM');
    const code = await exited;
    await flood.close();
    expect(code).toBe(130);
  });;
});
