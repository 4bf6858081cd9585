/**
 * Per load point: queue/prefill/decode medians where the server tells, and the attribution hints of
 * `run`'s rules. The simulator with 2 slots reports llama-server's `timings` from the moment a slot
 * takes a request (prompt_ms = its scripted prefill), so the truth is known: at concurrency 1 no queue,
 * at 6 on 2 slots most requests wait whole service times — queue-bound. The real CLI as a child process.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSim, type RunningSim } from '../../src/core/sim/simServer';
import { runCli } from '../fixtures/cli';

const cli = (args: string[], cwd: string) => runCli(args, cwd);

let sim: RunningSim;
let plain: RunningSim;
let dir: string;
beforeAll(async () => {
  // Prefill 60 ms, then 50 tokens at 3 ms: a request holds a slot ~210 ms.
  sim = await startSim({ slots: 2, ttftBaseMs: 60, prefillMsPerInputToken: 0, decodeMsPerToken: 3, outputTokens: 50, jitterMs: 0 });
  plain = await startSim({ slots: 0, ttftBaseMs: 20, prefillMsPerInputToken: 0, decodeMsPerToken: 1, outputTokens: 10, jitterMs: 0 });
  dir = mkdtempSync(join(tmpdir(), 'pi-load-phases-'));
  writeFileSync(join(dir, 'ask.prompty'), '---\nname: ask\nmodel:\n  api: chat\n  configuration: { type: openai, name: gpt-4o-mini }\n---\nuser:\nSay something short.\n');
});
afterAll(async () => {
  await sim.close();
  await plain.close();
});

describe('load: phases and attribution per point', () => {
  it('prefill from the server, the queue grows beyond the slots, and the point at 6 is said queue-bound', async () => {
    const { code, stdout } = await cli(['load', 'ask.prompty', '--endpoint', sim.url, '--concurrency', '1,6', '--requests', '24', '--slo', 'ttftMs.p90<=150', '--json'], dir);
    expect(code).toBe(0);
    const [one, six] = JSON.parse(stdout).points;
    expect(one.phases).toMatchObject({ source: 'llama.cpp timings', runs: 22 });
    expect(one.phases.prefillMs).toBeCloseTo(60, -1);
    // No queue at concurrency 1: what TTFT holds beyond the prefill is well under the prefill itself.
    expect(one.phases.queueMs).toBeLessThan(40);
    // The tokens after the first (the simulated answer is ~50 tokens) at 3 ms each, as the server reports them.
    expect(one.phases.decodeMs).toBeGreaterThanOrEqual(138);
    expect(one.phases.decodeMs).toBeLessThanOrEqual(150);
    expect(one.hints.map((h: { kind: string }) => h.kind)).toEqual(['prefill-bound']);
    // Six in flight on two slots: a request waits ~2 service times (~420 ms) for a slot.
    expect(six.phases.prefillMs).toBeCloseTo(60, -1);
    expect(six.phases.queueMs).toBeGreaterThan(300);
    expect(six.hints.map((h: { kind: string }) => h.kind)).toEqual(['queue-bound']);
    expect(six.hints[0].message).toMatch(/^Queue-bound: of TTFT p50 /);
    // The text output says them too.
    const text = await cli(['load', 'ask.prompty', '--endpoint', sim.url, '--concurrency', '6', '--requests', '18', '--slo', 'ttftMs.p90<=150'], dir);
    expect(text.stdout).toMatch(/concurrency 6: median queue \d+ ms · prefill \d+ ms · decode \d+ ms \(llama\.cpp timings\)/);
    expect(text.stdout).toMatch(/concurrency 6: Queue-bound: of TTFT p50/);
  });

  it('a server that tells no phases: null with the reason, no guessed hint', async () => {
    const { stdout } = await cli(['load', 'ask.prompty', '--endpoint', plain.url, '--concurrency', '2', '--requests', '8', '--slo', 'ttftMs.p90<=150', '--json'], dir);
    const [point] = JSON.parse(stdout).points;
    expect(point.phases).toEqual({ queueMs: null, prefillMs: null, decodeMs: null, runs: 0, reason: 'the server reports no per-request phases (no llama-server timings, Ollama durations or request histograms)' });
    expect(point.hints).toEqual([]);
  });
});
