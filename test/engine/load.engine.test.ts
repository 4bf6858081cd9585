/**
 * `prompt-insight load` against llama-server with 2 parallel slots: above 2 requests in flight the
 * queue appears in the server's own deferred-requests gauge and in TTFT, throughput stops growing,
 * and the reported attainment recomputes from the requests kept in the JSON.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startLlamaServer, type LlamaServer } from './llamaServer';

const run = promisify(execFile);
let llama: LlamaServer;
let dir: string;

beforeAll(async () => {
  llama = await startLlamaServer(['-np', '2']);
  dir = mkdtempSync(join(tmpdir(), 'pi-load-engine-'));
  writeFileSync(join(dir, 'ask.prompty'), '---\nname: ask\nmodel:\n  id: model.gguf\n  options:\n    max_tokens: 48\n---\nsystem:\nYou answer in one short sentence.\n\nuser:\nName a colour.\n');
}, 120_000);
afterAll(async () => llama?.stop());

describe('load against llama-server with 2 slots', () => {
  // 24 requests of up to 48 tokens: the steady window (ramp and drain left out) spans several of the sampler's 500 ms reads.
  it('the queue shows above 2 in flight — in the server’s deferred requests and in TTFT — and the figures recompute from requests[]', async () => {
    const { stdout } = await run(process.execPath, [resolve('dist/cli.js'), 'load', 'ask.prompty', '--endpoint', `${llama.url}/v1`, '--concurrency', '1,2,4', '--requests', '24', '--slo', 'ttftMs.p90<=60000', '--json'], { cwd: dir, timeout: 300_000 });
    const json = JSON.parse(stdout);
    const [one, two, four] = json.points;
    for (const point of json.points) {
      expect(point.failed).toBe(0);
      const counted = point.requests.filter((r: { counted: boolean }) => r.counted);
      expect(counted.filter((r: { meetsSlo: boolean }) => r.meetsSlo).length).toBe(point.attainment.met);
      expect(point.inputTokens).toBeGreaterThan(10);
    }
    // Goodput recomputes from requests[]: those meeting every SLO that completed inside the steady window, per second.
    for (const point of json.points) {
      const { startMs, endMs } = point.window;
      const good = point.requests.filter((r: { ok: boolean; meetsSlo: boolean; startedAtMs: number; e2eMs: number }) => r.ok && r.meetsSlo && r.startedAtMs + r.e2eMs > startMs && r.startedAtMs + r.e2eMs <= endMs);
      // The window opens with the completion that ends the ramp (that request is not counted) and closes at the
      // last send; requests[] holds times rounded to 0.1 ms, so a request on an end may fall either side: within one.
      expect(Math.abs(good.length - point.goodput.requestsPerSec * ((endMs - startMs) / 1000))).toBeLessThanOrEqual(1 + 1e-9);
    }
    // The queue phase (llama-server's own timings: TTFT less its prompt processing) appears only above the slots.
    expect(four.phases.queueMs).toBeGreaterThan(5 * Math.max(one.phases.queueMs ?? 0, 20));
    // The server's own view on the same clock: requests wait only when more are in flight than slots.
    expect(four.server?.requestsWaiting?.max ?? 0).toBeGreaterThanOrEqual(1);
    expect(one.server?.requestsWaiting?.max ?? 0).toBe(0);
    // Waiting shows in TTFT; and throughput stops growing at the slots because the server runs no more than two at
    // once however many are in flight (its own gauge; a ratio of requests per second between levels measured a
    // minute apart would depend on what else the machine was doing then).
    expect(four.ttftMs.p50).toBeGreaterThan(two.ttftMs.p50);
    expect(four.server?.requestsRunning?.max).toBe(2);
    expect(two.server?.requestsRunning?.max).toBeLessThanOrEqual(2);
  }, 320_000);

  // Two slots and one thread: a third request in flight waits for a whole answer (~0.7 s of decoding),
  // so its TTFT jumps past the SLO while two in flight stay near the unloaded TTFT (~0.1 s).
  it('the capacity search stops at the 2 slots the server has', async () => {
    const { stdout } = await run(process.execPath, [resolve('dist/cli.js'), 'load', 'ask.prompty', '--endpoint', `${llama.url}/v1`, '--search', 'max-concurrency', '--limit', '4', '--requests', '12', '--timeout-ms', '20000', '--slo', 'ttftMs.p90<=600', '--no-store', '--json'], { cwd: dir, timeout: 300_000 });
    const json = JSON.parse(stdout);
    expect(json.capacity.maxConcurrencyMeetingSlo).toBe(2);
    const levels = json.points.map((p: { level: { concurrency: number } }) => p.level.concurrency);
    expect(levels).toEqual(expect.arrayContaining([1, 2, 3]));
    const three = json.points.find((p: { level: { concurrency: number } }) => p.level.concurrency === 3);
    // The misses at 3 are requests that queued, and the server's own waiting gauge saw them queue.
    expect(three.attainment.share).toBeLessThan(0.95);
    expect(three.server?.requestsWaiting?.max ?? 0).toBeGreaterThanOrEqual(1);
  }, 320_000);
});
