/**
 * Real-time bounds that a unit test cannot state without a wall clock: the run's timeout also bounds
 * the count of a large answer that came without usage (6 MB of one repeated letter, one piece to
 * count). Here, with the engine tests, not among the unit tests that CI runs again on busy cores; the
 * tolerance (process start and JSON print on top of the limit) holds with two busy cores.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { floodServer } from '../fixtures/floodServer';

const CLI = resolve('dist/cli.js');

describe('the run timeout bounds counting a large answer', () => {
  it('the count honours the timeout: the run returns on time, the estimate left out when there was no time for it', async () => {
    const prompt = join(mkdtempSync(join(tmpdir(), 'pi-flood-')), 'p.prompt.txt');
    writeFileSync(prompt, 'Say hi.\n');
    const delta = `data: ${JSON.stringify({ choices: [{ index: 0, delta: { content: 'A'.repeat(64 * 1024) } }] })}\n\n`;
    const flood = await floodServer('text/event-stream', '', Buffer.from(delta), { totalBytes: 6 * 1024 * 1024, tail: `data: ${JSON.stringify({ choices: [{ index: 0, delta: {}, finish_reason: 'length' }] })}\n\ndata: [DONE]\n\n` });
    const started = Date.now();
    const out = await new Promise<{ stdout: string }>((done) => execFile(process.execPath, [CLI, 'run', prompt, '--endpoint', flood.url, '--model', 'm', '--no-store', '--json', '--timeout-ms', '1500'], { timeout: 60_000, maxBuffer: 64 << 20 }, (_, stdout) => done({ stdout })));
    const ms = Date.now() - started;
    await flood.close();
    const record = JSON.parse(out.stdout).runs[0];
    expect(record.finishReason).toBe('length');
    expect(ms).toBeLessThan(1500 + 5000);
    if (record.outputTokens !== null) expect(record.outputTokensSource).toBe('estimate');
  });
});
