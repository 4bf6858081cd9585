/**
 * Issue 38.6: an open-loop rate stays bounded. `load --rate 50000 --duration 1` against an endpoint
 * that accepts and never answers held every arrival open at once (700 MB, then killed); now at most
 * 256 requests are in flight (--max-concurrency sets another cap), as many again wait for a place,
 * the rest are dropped — and the output says so. A real loopback server that never answers, the
 * built CLI as a child process; the request timeout is short so the point ends. Peak memory is
 * bench/loadMemory.ts's (a bench, not a test).
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../fixtures/cli';

let silent: http.Server;
let url: string;
let dir: string;
beforeAll(async () => {
  // Takes every request and never answers.
  silent = http.createServer(() => undefined);
  await new Promise<void>((r) => silent.listen(0, '127.0.0.1', r));
  url = `http://127.0.0.1:${(silent.address() as AddressInfo).port}/v1`;
  dir = mkdtempSync(join(tmpdir(), 'pi-load-cap-'));
  writeFileSync(join(dir, 'ask.prompty'), '---\nname: ask\nmodel:\n  api: chat\n  configuration: { type: openai, name: gpt-4o-mini }\n---\nuser:\nSay something short.\n');
});
afterAll(async () => {
  silent.closeAllConnections();
  await new Promise((r) => silent.close(r));
});

// The old code never ended here: a safety stop, no assertion on time.
const load = (extra: string[]) => runCli(['load', 'ask.prompty', '--endpoint', url, '--rate', '50000', '--duration', '1', '--timeout-ms', '300', '--seed', '7', '--slo', 'ttftMs.p90<=1000', '--no-store', ...extra], dir, { killAfterMs: 50_000 });

describe('load at an open-loop rate the endpoint never answers', () => {
  it('finishes with at most 256 in flight by default, and counts the arrivals that waited and were dropped', async () => {
    const { code, stdout, stderr } = await load(['--json']);
    expect(stderr).toBe('');
    expect(code).toBe(1); // every request failed (timeouts)
    const [point] = JSON.parse(stdout).points;
    const cap = point.inFlightCap;
    expect(cap).toMatchObject({ cap: 256, source: 'default', reached: true, maxWaiting: 256, unsent: 0 });
    // Every arrival of the seeded schedule is accounted for: sent (at once or after waiting) or dropped.
    expect(cap.arrived).toBeGreaterThan(40_000);
    expect(cap.arrived).toBe(point.sent + cap.dropped);
    expect(cap.waited).toBeGreaterThan(0);
    expect(cap.dropped).toBeGreaterThan(0);
    expect(point.errors).toEqual({ timeout: point.sent });
    // Each request sent is kept with when it was due and when it went out. The first to wait was due
    // ~5 ms in (arrival 257 of the seeded schedule) and got the place of one that timed out 300 ms after
    // it went out: its wait, counted from its scheduled time, is over 250 ms.
    const requests: { startedAtMs: number; scheduledAtMs: number }[] = point.requests;
    expect(requests).toHaveLength(point.sent);
    expect(requests.every((r) => r.startedAtMs >= r.scheduledAtMs)).toBe(true);
    const firstWaiter = [...requests].sort((a, b) => a.scheduledAtMs - b.scheduledAtMs)[256]!;
    expect(firstWaiter.scheduledAtMs).toBeLessThan(20);
    expect(firstWaiter.startedAtMs - firstWaiter.scheduledAtMs).toBeGreaterThan(250);
    expect(point.bound.endedBy).toBe('duration');
    expect(point.notes).toContain(`${cap.dropped.toLocaleString('en-US')} of ${cap.arrived.toLocaleString('en-US')} arrivals were dropped, never sent (256 in flight and 256 waiting already): the endpoint did not keep up with this rate; the latency figures are of the requests sent, and SLO attainment counts the dropped arrivals as misses`);
    // A rate the client could not even send is never met: the dropped arrivals are misses.
    expect(point.attainment).toMatchObject({ met: 0, total: point.counted + cap.dropped });
  });

  it('--max-concurrency sets the cap, and the text output states it with the counts', async () => {
    const { code, stdout } = await load(['--max-concurrency', '8']);
    expect(code).toBe(1);
    const line = stdout.split('\n').find((l) => l.startsWith('In flight at '));
    expect(line).toMatch(/^In flight at 50000\/s \(≤ 8 in flight\): at most 8 \(--max-concurrency\) — reached: of [\d,]+ arrivals, [\d,]+ waited for a place \(dispatch delay from the scheduled time p50 .+ \/ p90 .+\), [\d,]+ dropped, never sent \(at most 8 wait\)\.$/);
    expect(stdout).toMatch(/^Note — 50000\/s \(≤ 8 in flight\): [\d,]+ of [\d,]+ arrivals were dropped, never sent/m);
  });
});
