/**
 * `prompt-insight run` against a real inference engine: llama.cpp's llama-server with a generated
 * model (test/engine/install-llama.sh). What the simulator cannot prove: the server's prefix cache,
 * its own prefill/decode timings, queueing on its one slot.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startLlamaServer, type LlamaServer } from './llamaServer';

const run = promisify(execFile);
const CLI = resolve('dist/cli.js');
let server: LlamaServer;
let prompt: string;
let dir: string;

/** A prompt of its own per test: the server's one slot keeps the last prompt's cache even for cold requests. */
function promptFile(name: string): string {
  const rules = Array.from({ length: 20 }, (_, i) => `- Rule ${i + 1}: a home is a single-family house with its own land, never an apartment or a condo.`).join('\n');
  const file = join(dir, `${name}.prompty`);
  // A long system message: prefill is measurable (~0.5 s on one thread) and the cache has much to keep.
  writeFileSync(file, `---\nname: ${name}\nmodel:\n  api: chat\n  parameters:\n    max_tokens: 24\n---\nsystem:\n[${name}] You list homes for sale.\n${rules}\n\nuser:\nFind homes nearby.\n`);
  return file;
}

interface RunJson {
  hints: string[];
  server: { kind: string; metricsUrl?: string; metrics?: { t: number; requestsRunning?: number; requestsWaiting?: number; raw: Record<string, number> }[]; metricsGaps?: unknown[] };
  runs: { ok: boolean; ttftMs: number; e2eMs: number; tpotMs: number; outputTokens: number; cache: string; cachedInputTokens: number | null; phases: { queueMs: number; prefillMs: number; decodeMs: number; source: string } | null }[];
  summary: { cache: { cold: number; warm: number; unknown: number }; ttftMs: { n: number; p50: number }; decodeTokensPerSec: { p50: number } };
  summaryWarm: { ttftMs: { n: number; p50: number } } | null;
}

async function cli(...args: string[]): Promise<RunJson> {
  const { stdout } = await run(process.execPath, [CLI, 'run', prompt, '--endpoint', `${server.url}/v1`, '--model', 'model.gguf', '--json', '--no-store', ...args], { timeout: 120_000 });
  return JSON.parse(stdout) as RunJson;
}

beforeAll(async () => {
  server = await startLlamaServer();
  dir = mkdtempSync(join(tmpdir(), 'pi-llama-'));
}, 120_000);
afterAll(async () => server?.stop());

describe(`llama-server (${process.env.PROMPT_INSIGHT_TOOLS ?? '.e2e-tools'}/llama)`, () => {
  it('cold by default: repeats are not served from the prefix cache, and the server says so', async () => {
    prompt = promptFile('cold');
    const result = await cli('--runs', '3');
    expect(result.server.kind).toBe('llama.cpp');
    expect(result.runs.map((r) => [r.ok, r.cache, r.cachedInputTokens])).toEqual([[true, 'cold', 0], [true, 'cold', 0], [true, 'cold', 0]]);
    expect(result.summary.cache).toEqual({ cold: 3, warm: 0, unknown: 0 });
    // Every repeat paid a full prefill: the third is as slow as the first (a cached one is ~10× faster).
    const [first, , third] = result.runs;
    expect(third!.ttftMs).toBeGreaterThan(first!.ttftMs * 0.5);
  });

  it('as-is: repeats hit the cache, are labelled warm and summarised apart, never mixed with cold', async () => {
    prompt = promptFile('asis');
    const result = await cli('--runs', '3', '--cache', 'as-is');
    const [first, ...repeats] = result.runs;
    expect(first!.cache).toBe('cold');
    for (const r of repeats) {
      expect(r.cache).toBe('warm');
      expect(r.cachedInputTokens).toBeGreaterThan(100);
      expect(r.ttftMs).toBeLessThan(first!.ttftMs / 2);
    }
    expect(result.summary.ttftMs.n).toBe(1);
    expect(result.summary.ttftMs.p50).toBe(first!.ttftMs);
    expect(result.summaryWarm!.ttftMs.n).toBe(2);
  });

  it("phases from the server's timings: prefill inside TTFT, queueing on the one slot shows as queue, not prefill", async () => {
    prompt = promptFile('phases');
    const alone = await cli('--runs', '2');
    for (const r of alone.runs) {
      expect(r.phases!.source).toBe('llama.cpp timings');
      expect(r.phases!.prefillMs).toBeLessThanOrEqual(r.ttftMs);
      expect(r.phases!.queueMs).toBeLessThan(r.phases!.prefillMs); // alone on the server: little beyond prefill
    }
    const together = await cli('--runs', '2', '--concurrency', '2');
    const waited = [...together.runs].sort((a, b) => b.ttftMs - a.ttftMs)[0]!;
    // One slot: the second request waits for the first one's prefill and answer; that wait is queue, its own prefill is as alone.
    const alonePrefill = Math.min(...alone.runs.map((r) => r.phases!.prefillMs));
    expect(waited.phases!.queueMs).toBeGreaterThan(alonePrefill * 0.5);
    expect(waited.phases!.prefillMs).toBeLessThan(Math.max(...alone.runs.map((r) => r.phases!.prefillMs)) * 1.5);
    expect(waited.ttftMs).toBeGreaterThan(waited.phases!.prefillMs + alonePrefill * 0.5);
  });

  it("samples the server's own /metrics during the runs: requests running and waiting on the runs' clock", async () => {
    prompt = promptFile('metrics');
    const result = await cli('--runs', '4', '--concurrency', '4');
    expect(result.server.metricsUrl).toBe(`${server.url}/metrics`);
    // Four at once on one slot: most of TTFT is waiting, and the hint says so from the server's numbers.
    expect(result.hints.join('\n')).toMatch(/Queue-bound: of TTFT p50 .* was waiting .* the server reported up to \d+ requests? waiting/);
    const samples = result.server.metrics!;
    expect(samples.length).toBeGreaterThanOrEqual(3);
    expect(Math.max(...samples.map((s) => s.requestsRunning ?? 0))).toBe(1); // one slot
    expect(Math.max(...samples.map((s) => s.requestsWaiting ?? 0))).toBeGreaterThanOrEqual(1); // the second run queued
    expect(samples.at(-1)!.raw['llamacpp:tokens_predicted_total']).toBeGreaterThan(0);
    expect(samples.map((s) => s.t)).toEqual([...samples.map((s) => s.t)].sort((a, b) => a - b));
  });

  it("decode rate is 1000 / TPOT and agrees with the server's own decode rate", async () => {
    prompt = promptFile('rates');
    const result = await cli('--runs', '3');
    for (const r of result.runs) {
      expect(r.tpotMs).toBeCloseTo((r.e2eMs - r.ttftMs) / (r.outputTokens - 1), 6);
      const serverRate = (r.outputTokens - 1) / (r.phases!.decodeMs / 1000);
      expect(Math.abs(1000 / r.tpotMs - serverRate) / serverRate).toBeLessThan(0.25);
    }
    expect(result.summary.decodeTokensPerSec.p50).toBeGreaterThan(0);
  });
});
