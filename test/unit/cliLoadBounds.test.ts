/**
 * `prompt-insight load` point bounds and arrivals against the simulator (known service time), the
 * real CLI as a child process: --duration bounds a point by time (alone or with --requests, whichever
 * first), --arrival constant|poisson|gamma --burstiness B spaces open-loop requests, absurd
 * combinations are usage errors, and Ctrl-C keeps the point measured so far (exit 130).
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSim, type RunningSim } from '../../src/core/sim/simServer';
import { CLI, runCli, type CliResult } from '../fixtures/cli';

/** The CLI's result and how long the whole process took. */
async function cli(args: string[], cwd: string): Promise<CliResult & { ms: number }> {
  const t0 = Date.now();
  const result = await runCli(args, cwd);
  return { ...result, ms: Date.now() - t0 };
}

let slow: RunningSim;
let fast: RunningSim;
let dir: string;
beforeAll(async () => {
  // 2 slots, a request holds one ~190 ms (40 ms to the first token, 50 tokens at 3 ms).
  slow = await startSim({ slots: 2, ttftBaseMs: 40, prefillMsPerInputToken: 0, decodeMsPerToken: 3, outputTokens: 50, jitterMs: 0 });
  // Plenty of slots and ~10 ms a request: arrivals are never held back by the server.
  fast = await startSim({ slots: 64, ttftBaseMs: 5, prefillMsPerInputToken: 0, decodeMsPerToken: 1, outputTokens: 5, jitterMs: 0 });
  dir = mkdtempSync(join(tmpdir(), 'pi-load-bounds-'));
  writeFileSync(join(dir, 'ask.prompty'), '---\nname: ask\nmodel:\n  api: chat\n  configuration: { type: openai, name: gpt-4o-mini }\n---\nuser:\nSay something short.\n');
});
afterAll(async () => {
  await slow.close();
  await fast.close();
});

const slo = ['--slo', 'ttftMs.p90<=150', '--attainment', '0.8'];
type Req = { startedAtMs: number };
function gapStats(requests: Req[]): { mean: number; cv: number } {
  const starts = requests.map((r) => r.startedAtMs).sort((a, b) => a - b);
  const gaps = starts.slice(1).map((s, i) => s - starts[i]!);
  const mean = gaps.reduce((a, b) => a + b, 0) / gaps.length;
  const sd = Math.sqrt(gaps.reduce((a, b) => a + (b - mean) ** 2, 0) / (gaps.length - 1));
  return { mean, cv: sd / mean };
}

describe('load --duration', () => {
  it('alone: a closed-loop point sends for S seconds — two slots at ~190 ms each complete about 2·S/0.19 requests', async () => {
    const { code, stdout, ms } = await cli(['load', 'ask.prompty', '--endpoint', slow.url, '--concurrency', '2', '--duration', '1.5', ...slo, '--json'], dir);
    expect(code).toBe(0);
    const [point] = JSON.parse(stdout).points;
    expect(point.bound).toEqual({ requests: 100000, durationS: 1.5, endedBy: 'duration' });
    // 1.5 s / ~0.19 s per request × 2 slots ≈ 16 (the last starts before 1.5 s and finishes after).
    expect(point.sent).toBeGreaterThanOrEqual(13);
    expect(point.sent).toBeLessThanOrEqual(18);
    expect(Math.max(...point.requests.map((r: Req) => r.startedAtMs))).toBeLessThan(1500);
    expect(ms).toBeLessThan(5000);
  });

  it('with --requests: whichever comes first ends the point', async () => {
    const few = await cli(['load', 'ask.prompty', '--endpoint', slow.url, '--concurrency', '2', '--duration', '5', '--requests', '4', ...slo, '--json'], dir);
    expect(JSON.parse(few.stdout).points[0]).toMatchObject({ sent: 4, bound: { requests: 4, durationS: 5, endedBy: 'requests' } });
    const short = await cli(['load', 'ask.prompty', '--endpoint', slow.url, '--concurrency', '2', '--duration', '0.5', '--requests', '500', ...slo, '--json'], dir);
    const point = JSON.parse(short.stdout).points[0];
    expect(point.bound.endedBy).toBe('duration');
    expect(point.sent).toBeLessThan(10);
  });

  it('open loop: no request is scheduled past the duration', async () => {
    const { stdout } = await cli(['load', 'ask.prompty', '--endpoint', fast.url, '--rate', '20', '--arrival', 'constant', '--duration', '1', ...slo, '--json'], dir);
    const point = JSON.parse(stdout).points[0];
    // Constant gaps of 50 ms from the first at ~50 ms: 19 or 20 before 1 s.
    expect(point.sent).toBeGreaterThanOrEqual(18);
    expect(point.sent).toBeLessThanOrEqual(20);
    expect(point.bound.endedBy).toBe('duration');
  });
});

describe('load --arrival', () => {
  it('constant: requests go out every 1/rate; gamma with burstiness 0.2 is far burstier; poisson is the default', async () => {
    const constant = JSON.parse((await cli(['load', 'ask.prompty', '--endpoint', fast.url, '--rate', '40', '--arrival', 'constant', '--requests', '40', ...slo, '--json'], dir)).stdout).points[0];
    const c = gapStats(constant.requests);
    expect(constant.arrival).toBe('constant arrivals');
    expect(c.mean).toBeGreaterThan(23);
    expect(c.mean).toBeLessThan(27);
    expect(c.cv).toBeLessThan(0.2);
    const gamma = JSON.parse((await cli(['load', 'ask.prompty', '--endpoint', fast.url, '--rate', '40', '--arrival', 'gamma', '--burstiness', '0.2', '--seed', '3', '--requests', '40', ...slo, '--json'], dir)).stdout).points[0];
    expect(gamma.arrival).toBe('gamma arrivals (burstiness 0.2)');
    // Gamma gaps with shape 0.2 have a coefficient of variation of 1/√0.2 ≈ 2.2 (seeded).
    expect(gapStats(gamma.requests).cv).toBeGreaterThan(1.3);
    const poisson = JSON.parse((await cli(['load', 'ask.prompty', '--endpoint', fast.url, '--rate', '40', '--requests', '6', ...slo, '--json'], dir)).stdout).points[0];
    expect(poisson.arrival).toBe('poisson arrivals');
  });

  it('absurd combinations are usage errors (exit 2), said plainly', async () => {
    const cases: [string[], RegExp][] = [
      [['--concurrency', '2', '--arrival', 'constant'], /open-loop arrivals: give them with --rate/],
      [['--rate', '2', '--burstiness', '0.5'], /give it with --arrival gamma/],
      [['--rate', '2', '--arrival', 'gamma'], /--arrival gamma needs --burstiness/],
      [['--rate', '2', '--arrival', 'bursty'], /--arrival must be one of constant, poisson, gamma/],
      [['--rate', '2', '--duration', '0'], /--duration must be a number ≥ 0.1/],
      [['--rate', '2', '--arrival', 'gamma', '--burstiness', '-1'], /--burstiness must be a number ≥ 0.01/],
    ];
    for (const [flags, message] of cases) {
      const { code, stderr } = await cli(['load', 'ask.prompty', '--endpoint', fast.url, ...flags, ...slo], dir);
      expect(code, flags.join(' ')).toBe(2);
      expect(stderr).toMatch(message);
    }
  });
});

describe('load and Ctrl-C', () => {
  it('SIGINT mid-point: the requests measured so far are printed as a cancelled point, exit 130', async () => {
    const child = spawn(process.execPath, [CLI, 'load', 'ask.prompty', '--endpoint', slow.url, '--concurrency', '2', '--requests', '1000', ...slo, '--json'], { cwd: dir });
    let stdout = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    setTimeout(() => child.kill('SIGINT'), 1200);
    const code = await new Promise<number | null>((done) => child.on('close', (c) => done(c)));
    expect(code).toBe(130);
    const json = JSON.parse(stdout);
    expect(json.cancelled).toBe(true);
    const [point] = json.points;
    expect(point).toMatchObject({ cancelled: true, bound: { endedBy: 'cancelled' } });
    // ~1.2 s at two slots of ~190 ms: about a dozen finished requests, each kept.
    expect(point.sent).toBeGreaterThanOrEqual(6);
    expect(point.sent).toBeLessThan(30);
    expect(point.requests).toHaveLength(point.sent);
    expect(point.requests.every((r: { ok: boolean }) => r.ok)).toBe(true);
  });
});
