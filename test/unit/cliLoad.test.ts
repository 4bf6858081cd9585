/**
 * `prompt-insight load` against a simulated server with 2 slots (requests beyond them queue, and
 * their TTFT includes the wait): attainment falls when the load exceeds the slots, the search finds
 * the capacity, and the steady window leaves out ramp and drain. The CLI as a child process.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSim, type RunningSim } from '../../src/core/sim/simServer';
import { runCli } from '../fixtures/cli';
import { capacityConclusionLines } from '../../src/core/load/conclusions';

const cli = (args: string[], cwd: string) => runCli(args, cwd);

let sim: RunningSim;
let dir: string;
beforeAll(async () => {
  // ~40 ms to the first token, then 50 tokens at 3 ms: a request holds a slot ~190 ms.
  sim = await startSim({ slots: 2, ttftBaseMs: 40, prefillMsPerInputToken: 0, decodeMsPerToken: 3, outputTokens: 50, jitterMs: 1 });
  dir = mkdtempSync(join(tmpdir(), 'pi-load-'));
  writeFileSync(join(dir, 'ask.prompty'), '---\nname: ask\nmodel:\n  api: chat\n  configuration: { type: openai, name: gpt-4o-mini }\n---\nuser:\nSay something short.\n');
});
afterAll(async () => sim.close());

// 100 ms: a request that waits for a slot at all misses. (At 150 ms a third request in flight could
// meet it whenever the two slots drift half a service time apart, so the search could land on 3.)
const slo = ['--slo', 'ttftMs.p90<=100', '--attainment', '0.8'];

describe('prompt-insight load', () => {
  it('closed-loop levels: within the slots every request attains; at twice the slots the queue shows in TTFT and attainment', async () => {
    const { code, stdout } = await cli(['load', 'ask.prompty', '--endpoint', sim.url, '--concurrency', '1,4', '--requests', '24', ...slo, '--json'], dir);
    expect(code).toBe(0);
    const json = JSON.parse(stdout);
    const [one, four] = json.points;
    // One in flight never waits for a slot: TTFT ~40 ms against the 100 ms SLO. A stall of the machine
    // (a busy laptop) may push one or two past it, which leaves the level unresolved, never missing.
    expect(one).toMatchObject({ label: 'concurrency 1', sent: 24, failed: 0, counted: 22, attainment: { total: 22 } });
    expect(one.attainment.met).toBeGreaterThanOrEqual(20);
    expect(one.attainment.resolved).not.toBe('misses');
    expect(one.window).toMatchObject({ steady: true, how: 'the 22 requests that completed between the 1st completion (ramp over at 1 in flight) and the last send (drain begins)' });
    expect(one.ttftMs.p90).toBeLessThan(150);
    // Four in flight on two slots: about half the requests wait a whole service time (~190 ms) first.
    expect(four.counted).toBe(16);
    expect(four.ttftMs.p90).toBeGreaterThan(150);
    expect(four.attainment).toMatchObject({ resolved: 'misses' });
    // Throughput is bounded by the slots: two at a time of ~190 ms, not four.
    expect(four.requestsPerSec).toBeLessThan(2 * (1000 / 150));
    expect(four.requestsPerSec).toBeGreaterThan(one.requestsPerSec * 1.4);
    expect(one.outputTokens).toBeGreaterThanOrEqual(40);
    // Every request is kept: attainment and goodput recompute from requests[] to the reported figures.
    for (const point of [one, four]) {
      const counted = point.requests.filter((r: { counted: boolean }) => r.counted);
      expect(counted).toHaveLength(point.counted);
      expect(counted.filter((r: { meetsSlo: boolean }) => r.meetsSlo).length).toBe(point.attainment.met);
      expect(counted.every((r: { meetsSlo: boolean; ttftMs: number }) => r.meetsSlo === r.ttftMs <= 100)).toBe(true);
      const seconds = (point.window.endMs - point.window.startMs) / 1000;
      const goodInWindow = point.requests.filter((r: { ok: boolean; meetsSlo: boolean; startedAtMs: number; e2eMs: number }) => r.ok && r.meetsSlo && r.startedAtMs + r.e2eMs >= point.window.startMs - 0.1 && r.startedAtMs + r.e2eMs <= point.window.endMs + 0.1);
      expect(point.goodput.requestsPerSec).toBeCloseTo(goodInWindow.length / seconds, 0);
      expect(point.attainment.perSlo).toEqual([expect.objectContaining({ objective: 'TTFT ≤ 100 ms', met: point.attainment.met, total: point.counted, share: point.attainment.share, target: 0.8 })]);
    }
    expect(four.goodput.requestsPerSec).toBeLessThan(four.requestsPerSec);
    expect(json.capacity.knee).toEqual({ concurrency: null, reason: 'a knee needs at least 5 concurrency levels with a steady throughput (2 measured)' });
    expect(json.capacity.saturation.level).toBeNull(); // the simulator exports no /metrics: said, not guessed
  });

  it("throughput obeys Little's law (≤ in flight ÷ mean E2E) at 8 in flight on two slots, with few requests (the whole-run rate) and many (the steady window)", async () => {
    const { stdout } = await cli(['load', 'ask.prompty', '--endpoint', sim.url, '--concurrency', '8,8', '--requests', '12', ...slo, '--json'], dir);
    const few = JSON.parse(stdout).points[0];
    const { stdout: manyOut } = await cli(['load', 'ask.prompty', '--endpoint', sim.url, '--concurrency', '8', '--requests', '120', ...slo, '--json'], dir);
    const many = JSON.parse(manyOut).points[0];
    type Req = { ok: boolean; counted: boolean; e2eMs: number; startedAtMs: number };
    for (const point of [few, many]) {
      const counted = point.requests.filter((r: Req) => r.counted && r.ok);
      const meanE2eS = counted.reduce((s: number, r: Req) => s + r.e2eMs, 0) / counted.length / 1000;
      expect(point.requestsPerSec).toBeLessThanOrEqual((8 / meanE2eS) * 1.1);
    }
    // 12 requests at 8 in flight: too few for a steady rate; vLLM's whole-run rate (completed / first send to last completion), exactly within Little's bound.
    expect(few.window.steady).toBe(false);
    expect(few.window.how).toMatch(/^too few requests for a steady rate \(\d+ completed between the ramp and the drain; 10 needed, so give --requests 26 or more\)/);
    const ends = few.requests.map((r: Req) => r.startedAtMs + r.e2eMs);
    expect(few.requestsPerSec).toBeCloseTo(12 / ((Math.max(...ends) - Math.min(...few.requests.map((r: Req) => r.startedAtMs))) / 1000), 0);
    expect(many.window.steady).toBe(true);
    // About 2 × 8 left out for the ramp and the drain: which requests complete just inside their edges is
    // timing, so a busy machine may move one or two across.
    expect(Math.abs(many.counted - (120 - 2 * 8))).toBeLessThanOrEqual(2);
    // Two slots of ~190 ms: at most ~10.5 completions a second, whatever the window.
    expect(many.requestsPerSec).toBeLessThan(2 / 0.18);
    // A knee only from points with a steady rate: two unsteady levels give none, and say why.
    expect(JSON.parse(stdout).capacity.knee.reason).toMatch(/2 had too few requests for a steady rate/);
  });

  it("one policy per prompt: load holds it to its tests file's scenario and SLOs, as compare does; an SLO's percentile is its target", async () => {
    writeFileSync(join(dir, 'policy.prompty'), '---\nname: policy\nmodel:\n  api: chat\n  configuration: { type: openai, name: gpt-4o-mini }\n---\nuser:\nSay something short.\n');
    writeFileSync(join(dir, 'policy.tests.yaml'), 'scenario: decision\nslo:\n  ttftMs: { p50: 100 }\ntests:\n  - vars: {}\n    assert:\n      - type: icontains\n        value: simulated\n');
    const { code, stdout, stderr } = await cli(['load', 'policy.prompty', '--endpoint', sim.url, '--concurrency', '1', '--requests', '12'], dir);
    expect(code).toBe(0);
    expect(stderr).toMatch(/policy · decision \(policy\.tests\.yaml\) · SLOs: E2E latency p90 ≤ 30 s, adherence ≥ 80%, TTFT p50 ≤ 100 ms · attainment target each SLO at its percentile/);
    expect(stdout).toMatch(/target: each SLO at its percentile/);
  });

  it('--search max-rate: the highest Poisson arrival rate within the SLOs, beside max concurrency, with why they differ', async () => {
    // The two ~190 ms slots and the 100 ms TTFT limit of the other tests: 60 ms of margin for a request that
    // does not wait, so a busy machine does not decide the answer (a 20 ms limit over 8 ms slots did).
    {
      const { code, stdout } = await cli(['load', 'ask.prompty', '--endpoint', sim.url, '--search', 'max-rate', '--limit', '8', '--requests', '24', '--seed', '7', ...slo, '--json'], dir);
      expect(code).toBe(0);
      const json = JSON.parse(stdout);
      const { maxConcurrencyMeetingSlo, maxRate } = json.capacity;
      expect(maxConcurrencyMeetingSlo).toBeGreaterThanOrEqual(2);
      expect(maxRate).toMatchObject({ arrival: 'poisson arrivals' });
      const rates = json.points.filter((p: { level: { kind: string } }) => p.level.kind === 'rate');
      expect(rates.length).toBeGreaterThanOrEqual(2);
      // The answer is a rate that was measured and attained; the next rate tried above it did not.
      const at = rates.find((p: { level: { ratePerSec: number } }) => p.level.ratePerSec === maxRate.ratePerSec);
      expect(at.attainment.attains).toBe(true);
      expect(rates.some((p: { level: { ratePerSec: number }; attainment: { attains: boolean } }) => p.level.ratePerSec > maxRate.ratePerSec && !p.attainment.attains)).toBe(true);
      // The conclusions as the text output, the report and the editor word them (one function for all three).
      const lines = capacityConclusionLines(json.capacity).join('\n');
      expect(lines).toMatch(/Capacity, open loop: up to [\d.]+ requests\/s \(poisson arrivals\) within the SLOs/);
      expect(lines).toMatch(/Why the two differ: a closed loop sends the next request only when one returns/);
    }
  }, 120_000);

  it('the knee of throughput against concurrency sits at the slots', async () => {
    // 24 requests a level: at 6 in flight, 12 complete between the ramp and the drain (10 needed for a steady rate).
    const { stdout } = await cli(['load', 'ask.prompty', '--endpoint', sim.url, '--concurrency', '1,2,3,4,6', '--requests', '24', ...slo, '--json'], dir);
    const knee = JSON.parse(stdout).capacity.knee;
    expect(knee.concurrency).toBe(2);
    expect(knee.slopeAfter).toBeLessThan(knee.slopeBefore / 2);
  });

  it('--sweep: a synchronous point, a saturating point, then rates evenly between their throughputs', async () => {
    const { code, stdout } = await cli(['load', 'ask.prompty', '--endpoint', sim.url, '--sweep', '4', '--limit', '8', '--requests', '16', '--seed', '1', ...slo, '--json'], dir);
    expect(code).toBe(0);
    const points = JSON.parse(stdout).points;
    expect(points.map((p: { label: string }) => p.label.replace(/[\d.]+\/s.*/, 'R/s'))).toEqual(['concurrency 1', 'concurrency 8', 'R/s', 'R/s']);
    const [sync, saturating, r1, r2] = points;
    const step = (saturating.requestsPerSec - sync.requestsPerSec) / 3;
    expect(r1.level.ratePerSec).toBeCloseTo(sync.requestsPerSec + step, 2);
    expect(r2.level.ratePerSec).toBeCloseTo(sync.requestsPerSec + 2 * step, 2);
    expect(r1.dispatchDelayMs.n).toBe(16);
    expect(r1.dispatchDelayMs.p50).toBeLessThan(20); // the client keeps its schedule
  });

  it('--inputs: a JSON Lines file of variable values cycles through the requests; bad lines are clear errors', async () => {
    writeFileSync(join(dir, 'city.prompty'), '---\nname: city\nmodel:\n  api: chat\n  configuration: { type: openai, name: gpt-4o-mini }\nsample:\n  city: Lyon\n---\nuser:\nDescribe {{city}} in one line. {{city}} {{city}} {{city}}\n');
    writeFileSync(join(dir, 'cities.jsonl'), '{"city": "Paris"}\n{"city": "Kuala Lumpur, the capital city of Malaysia, a long name"}\n');
    const { code, stdout } = await cli(['load', 'city.prompty', '--endpoint', sim.url, '--concurrency', '1', '--requests', '6', '--inputs', 'cities.jsonl', ...slo, '--json'], dir);
    expect(code).toBe(0);
    const json = JSON.parse(stdout);
    expect(json.inputs).toBe('2 inputs from cities.jsonl, cycled');
    writeFileSync(join(dir, 'bad.jsonl'), '{"city": "Paris"}\n[1, 2]\n');
    expect(await cli(['load', 'city.prompty', '--endpoint', sim.url, '--concurrency', '1', '--inputs', 'bad.jsonl', ...slo], dir)).toMatchObject({ code: 1, stderr: expect.stringContaining('bad.jsonl:2: expected an object of variable values') });
  });

  it('a rate above capacity is flagged; an endpoint that stops answering stops the levels, the points before it kept', async () => {
    const above = JSON.parse((await cli(['load', 'ask.prompty', '--endpoint', sim.url, '--rate', '40', '--requests', '40', '--seed', '2', ...slo, '--json'], dir)).stdout).points[0];
    expect(above.requestsPerSec).toBeLessThan(15); // two slots of ~190 ms
    expect(above.notes.join('\n')).toMatch(/a rate above capacity: [\d.]+ req\/s completed of 40\/s sent, so latency here measures the backlog/);
    const dead = await startSim({ fault: 'reset', faultRate: 1, ttftBaseMs: 5, decodeMsPerToken: 1 });
    try {
      const { stdout } = await cli(['load', 'ask.prompty', '--endpoint', dead.url, '--concurrency', '1,2,4', '--requests', '4', ...slo], dir);
      expect(stdout).toMatch(/^concurrency 1 /m);
      expect(stdout).not.toMatch(/^concurrency 2 /m);
      expect(stdout).toMatch(/Stopped early: the endpoint stopped answering at concurrency 1 \(every request failed: 4 × \w+\); the points before it are kept/);
    } finally {
      await dead.close();
    }
  });

  it('failed requests are counted by kind and kept out of the latency figures', async () => {
    const faulty = await startSim({ fault: '500', faultRate: 0.3, seed: 5, ttftBaseMs: 20, decodeMsPerToken: 1, outputTokens: 20 });
    try {
      const { stdout } = await cli(['load', 'ask.prompty', '--endpoint', faulty.url, '--concurrency', '2', '--requests', '30', ...slo, '--json'], dir);
      const point = JSON.parse(stdout).points[0];
      expect(point.failed).toBeGreaterThan(0);
      expect(point.errors).toEqual({ http_5xx: point.failed });
      expect(point.ttftMs.n).toBe(point.requests.filter((r: { ok: boolean; counted: boolean }) => r.ok && r.counted).length);
      // A failed request does not attain.
      expect(point.attainment.met).toBeLessThanOrEqual(point.counted - point.requests.filter((r: { ok: boolean; counted: boolean }) => !r.ok && r.counted).length);
    } finally {
      await faulty.close();
    }
  });

  it('--search max-concurrency finds the slots: doubling, then bisecting; text output explains attainment', async () => {
    const { code, stdout } = await cli(['load', 'ask.prompty', '--endpoint', sim.url, '--search', 'max-concurrency', '--limit', '16', '--requests', '30', ...slo], dir);
    expect(code).toBe(0);
    expect(stdout).toMatch(/^concurrency 1 .*✓/m);
    expect(stdout).toMatch(/^concurrency 2 .*✓/m);
    expect(stdout).toMatch(/^concurrency 4 .*✗/m);
    expect(stdout).toMatch(/Capacity: up to 2 concurrent requests within the SLOs/);
    expect(stdout).toContain('Attainment: share of requests meeting TTFT ≤ 100 ms (failed requests count as missing)');
  });

  it('open-loop rates (seeded Poisson arrivals) and clear usage errors', async () => {
    const { code, stdout } = await cli(['load', 'ask.prompty', '--endpoint', sim.url, '--rate', '4', '--requests', '12', '--seed', '3', ...slo, '--json'], dir);
    expect(code).toBe(0);
    expect(JSON.parse(stdout).points[0]).toMatchObject({ label: '4/s', sent: 12 });
    expect(await cli(['load', 'ask.prompty', '--endpoint', sim.url], dir)).toMatchObject({ code: 2, stderr: expect.stringContaining('give load levels') });
    expect(await cli(['load', 'ask.prompty', '--endpoint', sim.url, '--concurrency', '0'], dir)).toMatchObject({ code: 2, stderr: expect.stringContaining("--concurrency: '0' is not a positive whole number") });
    expect(await cli(['load', 'ask.prompty', '--endpoint', sim.url, '--concurrency', '1', '--scenario', 'batch'], dir)).toMatchObject({ code: 2, stderr: expect.stringContaining('sets no latency SLO') });
  });
});
