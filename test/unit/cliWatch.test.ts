/**
 * `prompt-insight watch` on generated production traces (OTLP JSON Lines, gzip): five weeks of a
 * prompt's requests with a daily peak, a weekend dip and noise; a new version whose nights are 50%
 * slower. The anomaly is ongoing, names the version and its likely cause, and the exit code is 1;
 * the same traffic without the regression is quiet (exit 0). The CLI as a child process.
 */
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { beforeAll, describe, expect, it } from 'vitest';
import { seededRandom } from '../../src/core/stats/random';
import { otlpSpan, tracesLine } from '../fixtures/otlpTraces';
import { runCli } from '../fixtures/cli';

const cli = (args: string[], cwd: string) => runCli(args, cwd);

const HOUR = 3_600_000;
const T0 = Date.UTC(2026, 9, 5); // Monday
const STEP = 4 * 7 * 24 + 24 + 2; // week 5, Tuesday 02:00
const END = STEP + 4; // the data ends while the regression goes on

/** One line per hour: 20 requests around the hour's level (TTFT), a few of them failed. */
function traces(regression: boolean): string {
  const random = seededRandom(20261204);
  const lines: string[] = [];
  for (let h = 0; h <= END; h++) {
    const t = T0 + h * HOUR;
    const hour = new Date(t).getUTCHours();
    const weekday = (new Date(t).getUTCDay() + 6) % 7;
    const daytime = hour >= 8 && hour <= 20 ? 600 * Math.sin((Math.PI * (hour - 8)) / 12) : 0;
    let level = (800 + daytime) * (weekday >= 5 ? 0.8 : 1);
    const version = h >= STEP - 1 ? 'b7e1c2d' : 'a1b2c3d';
    if (regression && h >= STEP && hour < 7) level *= 1.5;
    const spans = Array.from({ length: 20 }, (_, i) => {
      const ttftMs = level * (0.9 + 0.1 * random());
      return otlpSpan({ promptName: 'homes-assistant', version, startMs: t + i * 150_000, ttftMs, e2eMs: ttftMs + 600, outputTokens: 60, ...(random() < 0.02 ? { errorType: 'timeout' } : {}) });
    });
    lines.push(tracesLine(spans));
  }
  return `${lines.join('\n')}\n`;
}

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'pi-watch-'));
  writeFileSync(join(dir, 'homes.prompty'), '---\nname: homes-assistant\nmodel:\n  api: chat\n  configuration: { type: openai, name: gpt-4o-mini }\n---\nuser:\nFind homes.\n');
  writeFileSync(join(dir, 'regressed.jsonl.gz'), gzipSync(traces(true)));
  writeFileSync(join(dir, 'normal.jsonl'), traces(false));
});

describe('prompt-insight watch', () => {
  it('an ongoing night-time regression after a version change: the anomaly, its version and likely cause; exit 1', async () => {
    const { code, stdout } = await cli(['watch', 'homes.prompty', '--traces', 'regressed.jsonl.gz', '--json'], dir);
    expect(code).toBe(1);
    const json = JSON.parse(stdout);
    expect(json.spans).toBe((END + 1) * 20);
    const ttft = json.anomalies.filter((a: { metric: string }) => a.metric === 'ttft.p99');
    expect(ttft).toHaveLength(1);
    expect(ttft[0]).toMatchObject({ start: new Date(T0 + STEP * HOUR).toISOString(), end: null, version: 'b7e1c2d', likelyCause: { version: 'b7e1c2d' }, band: { method: 'same-hour-of-week' } });
    expect(ttft[0].observed).toBeGreaterThan(ttft[0].band.upper);
    expect(json.ongoing).toBeGreaterThanOrEqual(1);
    expect(json.anomalies.filter((a: { metric: string }) => a.metric === 'error-rate')).toEqual([]); // 2% errors throughout: the usual
    const text = await cli(['watch', 'homes.prompty', '--traces', 'regressed.jsonl.gz'], dir);
    expect(text.stdout).toMatch(/ONGOING ttft\.p99: [\d.]+ s against usual [\d.]+ ms .* · version b7e1c2d — likely cause: version b7e1c2d/);
  });

  it('the same traffic without the regression: daily peaks and weekends are the usual; exit 0', async () => {
    const { code, stdout } = await cli(['watch', 'homes.prompty', '--traces', 'normal.jsonl', '--json'], dir);
    expect(JSON.parse(stdout).anomalies).toEqual([]);
    expect(code).toBe(0);
  });

  it('clock skew: the same spans from a second source 90 s off are counted once and said; spans ending in the future are not counted', async () => {
    const normal = readFileSync(join(dir, 'normal.jsonl'), 'utf8').trim().split('\n');
    const shift = (ns: string) => (BigInt(ns) + 90_000_000_000n).toString();
    const copy = JSON.parse(normal.at(-1)!);
    for (const span of copy.resourceSpans[0].scopeSpans[0].spans) Object.assign(span, { startTimeUnixNano: shift(span.startTimeUnixNano), endTimeUnixNano: shift(span.endTimeUnixNano) });
    const future = tracesLine(Array.from({ length: 15 }, (_, i) => otlpSpan({ promptName: 'homes-assistant', version: 'b7e1c2d', startMs: Date.now() + 2 * HOUR + i * 1000, ttftMs: 9000, e2eMs: 9600 })));
    writeFileSync(join(dir, 'gateway.jsonl'), `${JSON.stringify(copy)}\n${future}\n`);
    const { code, stdout } = await cli(['watch', 'homes.prompty', '--traces', 'normal.jsonl', 'gateway.jsonl', '--json'], dir);
    const json = JSON.parse(stdout);
    expect(json.spans).toBe((END + 1) * 20);
    expect(json.repeated).toEqual({ spans: 20, skewed: 20, maxSkewMs: 90_000 });
    expect(json.future.spans).toBe(15);
    expect(json.future.maxAheadMs).toBeGreaterThan(2 * HOUR - 60_000);
    expect(json.anomalies).toEqual([]);
    expect(code).toBe(0);
    const text = await cli(['watch', 'homes.prompty', '--traces', 'normal.jsonl', 'gateway.jsonl'], dir);
    expect(text.stdout).toMatch(/15 spans end in the future, up to [\d.]+ s ahead of this machine's clock \(clock skew\): not counted/);
    expect(text.stdout).toContain('20 spans appear in more than one file: counted once; 20 of them disagree on time by more than 1.00 s (up to 90.00 s)');
  });

  it('too little history is said: the baseline needs more days', async () => {
    writeFileSync(join(dir, 'short.jsonl'), `${traces(false).trim().split('\n').slice(0, 60).join('\n')}\n`);
    const { stdout } = await cli(['watch', 'homes.prompty', '--traces', 'short.jsonl'], dir);
    expect(stdout).toContain('The baseline needs 12 more days of history for the weekly rhythm');
  });

  it('clear errors: no traces, a missing file, a file with no such prompt', async () => {
    expect(await cli(['watch', 'homes.prompty'], dir)).toMatchObject({ code: 2, stderr: expect.stringContaining('give production traces') });
    expect(await cli(['watch', 'homes.prompty', '--traces', 'nope.jsonl'], dir)).toMatchObject({ code: 1, stderr: expect.stringContaining("'nope.jsonl' was not found") });
    expect(await cli(['watch', 'homes.prompty', '--traces', 'normal.jsonl', '--prompt', 'other'], dir)).toMatchObject({ code: 1, stderr: expect.stringContaining("has no prompt named 'other'") });
  });
});
