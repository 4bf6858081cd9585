/**
 * `prompt-insight load` point bounds and arrivals against the simulator (known service time), the
 * real CLI as a child process: --duration bounds a point by time (alone or with --requests, whichever
 * first), --arrival constant|poisson|gamma --burstiness B spaces open-loop requests, absurd
 * combinations are usage errors, and Ctrl-C keeps the point measured so far (exit 130).
 * Every check reads the schedule the point kept (when each request was sent or scheduled, how long it
 * took), never this machine's wall clock, so a busy machine changes the numbers, not the verdicts.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSim, type RunningSim } from '../../src/core/sim/simServer';
import { CLI, runCli, type CliResult } from '../fixtures/cli';

async function cli(args: string[], cwd: string): Promise<CliResult> {
  const result = await runCli(args, cwd);
  expect(result.stderr).not.toMatch(/Warning/); // no Node warnings (MaxListenersExceededWarning and the like)
  return result;
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
type Req = { startedAtMs: number; scheduledAtMs?: number; e2eMs: number };
/** Gaps of the arrival schedule (when each request was due, not when a busy client got it out). */
function gapStats(requests: Req[]): { mean: number; cv: number } {
  const starts = requests.map((r) => r.scheduledAtMs!).sort((a, b) => a - b);
  const gaps = starts.slice(1).map((s, i) => s - starts[i]!);
  const mean = gaps.reduce((a, b) => a + b, 0) / gaps.length;
  const sd = Math.sqrt(gaps.reduce((a, b) => a + (b - mean) ** 2, 0) / (gaps.length - 1));
  return { mean, cv: sd / mean };
}

describe('load --duration', () => {
  it('alone: a closed-loop point sends for S seconds — two requests in flight back to back until then, none started after', async () => {
    const { code, stdout } = await cli(['load', 'ask.prompty', '--endpoint', slow.url, '--concurrency', '2', '--duration', '1.5', ...slo, '--json'], dir);
    expect(code).toBe(0);
    const [point] = JSON.parse(stdout).points;
    expect(point.bound).toEqual({ requests: 100000, durationS: 1.5, endedBy: 'duration' });
    const requests: Req[] = point.requests;
    // None started after the deadline: the duration and the stamps count from the same moment, and each start is
    // stamped right after the check (half the shortest service time of slack for a busy machine's preemption).
    const shortest = Math.min(...requests.map((r) => r.e2eMs));
    expect(Math.max(...requests.map((r) => r.startedAtMs))).toBeLessThan(1500 + shortest / 2);
    // Closed loop, two chains, ended by the deadline (the 100,000-request bound never came near). How many
    // requests fit depends on the machine's speed (a busy one fits two): only that both chains ran.
    expect(point.sent).toBeGreaterThanOrEqual(2);
    const [first, second] = [...requests].sort((a, b) => a.startedAtMs - b.startedAtMs);
    expect(second!.startedAtMs).toBeLessThan(first!.startedAtMs + first!.e2eMs); // the two were in flight together
  });

  it('16 requests in flight: no Node warning (each listens for the cancel on one signal; 11 used to warn)', async () => {
    const { code, stderr } = await runCli(['load', 'ask.prompty', '--endpoint', fast.url, '--concurrency', '16', '--requests', '32', ...slo], dir);
    expect(code).toBe(0);
    expect(stderr).not.toMatch(/MaxListenersExceededWarning|Warning/);
  });

  it('with --requests: whichever comes first ends the point', async () => {
    const few = await cli(['load', 'ask.prompty', '--endpoint', slow.url, '--concurrency', '2', '--duration', '5', '--requests', '4', ...slo, '--json'], dir);
    expect(JSON.parse(few.stdout).points[0]).toMatchObject({ sent: 4, bound: { requests: 4, durationS: 5, endedBy: 'requests' } });
    const short = await cli(['load', 'ask.prompty', '--endpoint', slow.url, '--concurrency', '2', '--duration', '0.5', '--requests', '500', ...slo, '--json'], dir);
    const point = JSON.parse(short.stdout).points[0];
    expect(point.bound.endedBy).toBe('duration');
    expect(point.sent).toBeLessThan(10);
  });

  it('open loop: the schedule bounds it — every request due before the duration is sent (late if need be), none due after', async () => {
    const { stdout } = await cli(['load', 'ask.prompty', '--endpoint', fast.url, '--rate', '20', '--arrival', 'constant', '--duration', '1', ...slo, '--json'], dir);
    const point = JSON.parse(stdout).points[0];
    const scheduled = point.requests.map((r: Req) => r.scheduledAtMs!).sort((a: number, b: number) => a - b);
    // Constant gaps of 50 ms, the first one gap in: due at 50, 100, … 950 ms — 19 or 20 as the clocks line up.
    expect(Math.max(...scheduled)).toBeLessThan(1000);
    expect(scheduled.slice(1).every((t: number, i: number) => Math.abs(t - scheduled[i]! - 50) < 1)).toBe(true);
    expect(point.sent).toBeGreaterThanOrEqual(19);
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
    const servedBefore = slow.served();
    const child = spawn(process.execPath, [CLI, 'load', 'ask.prompty', '--endpoint', slow.url, '--concurrency', '2', '--requests', '1000', ...slo, '--json'], { cwd: dir });
    let stdout = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    // Ready when the simulator has received 8 requests: at 2 in flight, 6 of them have finished (a readiness signal, not a fixed sleep).
    await new Promise<void>((ready) => {
      const poll = setInterval(() => {
        if (slow.served() - servedBefore >= 8) {
          clearInterval(poll);
          ready();
        }
      }, 10);
    });
    child.kill('SIGINT');
    const code = await new Promise<number | null>((done) => child.on('close', (c) => done(c)));
    expect(code).toBe(130);
    const json = JSON.parse(stdout);
    expect(json.cancelled).toBe(true);
    const [point] = json.points;
    expect(point).toMatchObject({ cancelled: true, bound: { endedBy: 'cancelled' } });
    // At least the 6 that finished before the signal (2 were in flight), each kept; far from the 1000 asked.
    expect(point.sent).toBeGreaterThanOrEqual(6);
    expect(point.sent).toBeLessThan(1000);
    expect(point.requests).toHaveLength(point.sent);
    expect(point.requests.every((r: { ok: boolean }) => r.ok)).toBe(true);
  });
});
