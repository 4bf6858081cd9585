/**
 * `prompt-insight prod FILE --traces … --window 1h|6h` and `--report out.html`: the real CLI (dist/cli.js) on
 * a real git repo and generated OTLP JSON Lines with a known hourly shape.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { TestRepo } from '../fixtures/gitRepo';
import { otlpSpan, tracesLine } from '../fixtures/otlpTraces';
import { runCli } from '../fixtures/cli';

const cli = (args: string[], cwd: string) => runCli(args, cwd, { maxBuffer: 64 * 1024 * 1024 });

const HOUR = 3_600_000;
const HOUR_NOW = Math.floor(Date.now() / HOUR) * HOUR;
let repo: TestRepo;
let a: string;
let b: string;

/** Hour h before this one: 20 successes with TTFT base + 3k ms (E2E = TTFT + 400, 21 output tokens → TPOT 20 ms) and `errors` failures. */
function hour(version: string, h: number, base: number, errors: number): string {
  const ok = Array.from({ length: 20 }, (_, k) => otlpSpan({ promptName: 'greet', version, startMs: HOUR_NOW - h * HOUR + k * 60_000, ttftMs: base + 3 * k, e2eMs: base + 3 * k + 400, outputTokens: 21 }));
  const failed = Array.from({ length: errors }, (_, k) => otlpSpan({ promptName: 'greet', version, startMs: HOUR_NOW - h * HOUR + 30 * 60_000 + k * 1000, e2eMs: 50, errorType: 'rate_limit' }));
  return tracesLine([...ok, ...failed]);
}

beforeAll(() => {
  repo = new TestRepo();
  a = repo.commit('First greeting', { 'greet.prompt': '---\nmodel: gpt-test\n---\nSay hello.\n' });
  b = repo.commit('Longer greeting', { 'greet.prompt': '---\nmodel: gpt-test\n---\nSay hello, briefly and warmly.\n' });
  const lines: string[] = [];
  // Version a: hours 10…5 ago, TTFT around 100 + 10·h ms, no errors. Version b: hours 4…1 ago, TTFT around 300 ms, 2 errors an hour.
  for (let h = 10; h >= 5; h--) lines.push(hour(a.slice(0, 7), h, 100 + 10 * h, 0));
  for (let h = 4; h >= 1; h--) lines.push(hour(b.slice(0, 7), h, 300, 2));
  writeFileSync(join(repo.root, 'app.jsonl'), `${lines.join('\n')}\n`);
});

describe('prod --window', () => {
  it('1h: each version per hour — requests, error rate, TTFT/E2E/TPOT percentiles of that hour alone', async () => {
    const { code, stdout, stderr } = await cli(['prod', 'greet.prompt', '--traces', 'app.jsonl', '--window', '1h', '--json'], repo.root);
    expect(stderr).toBe('');
    expect(code).toBe(0);
    const report = JSON.parse(stdout);
    expect(report.window.size).toBe('1h');
    const byVersion = Object.fromEntries(report.versions.map((v: { version: string; windows: unknown[] }) => [v.version, v.windows]));
    const wa = byVersion[a.slice(0, 7)] as { start: string; end: string; requests: number; errors: number; errorRate: number; ttftMs: Record<string, number | null>; e2eMs: Record<string, number | null>; tpotMs: Record<string, number | null> }[];
    const wb = byVersion[b.slice(0, 7)] as typeof wa;
    expect(wa.map((w) => (HOUR_NOW - Date.parse(w.start)) / HOUR)).toEqual([10, 9, 8, 7, 6, 5]);
    expect(wa.map((w) => (Date.parse(w.end) - Date.parse(w.start)) / HOUR)).toEqual([1, 1, 1, 1, 1, 1]);
    // Twenty TTFTs base, base+3 … base+57: the median (linear interpolation) is base + 28.5; p99 base + 56.43.
    expect(wa.map((w) => [w.requests, w.errors, w.ttftMs.p50, w.e2eMs.p50])).toEqual([10, 9, 8, 7, 6, 5].map((h) => [20, 0, 100 + 10 * h + 28.5, 100 + 10 * h + 428.5]));
    expect(wa[0]!.ttftMs.p99).toBeCloseTo(200 + 56.4, 0);
    expect(wa.every((w) => w.tpotMs.p50 === 20 && w.tpotMs.p99 === 20)).toBe(true);
    expect(wb.map((w) => [(HOUR_NOW - Date.parse(w.start)) / HOUR, w.requests, w.errors, w.errorRate, w.ttftMs.p50])).toEqual([4, 3, 2, 1].map((h) => [h, 22, 2, 0.0909, 328.5]));
    // The whole-range figures are unchanged beside the windows.
    expect(report.versions.find((v: { version: string }) => v.version === b.slice(0, 7)).requests).toBe(88);
  });

  it('6h: windows aligned to UTC multiples of six hours, every request in exactly one; the text output lists them', async () => {
    const { code, stdout } = await cli(['prod', 'greet.prompt', '--traces', 'app.jsonl', '--window', '6h', '--json'], repo.root);
    expect(code).toBe(0);
    const report = JSON.parse(stdout);
    for (const v of report.versions as { version: string; requests: number; windows: { start: string; end: string; requests: number; partial?: boolean }[] }[]) {
      // Whole windows are six hours; the one still running (this hour's six) ends now and says so.
      for (const w of v.windows) {
        expect(Date.parse(w.start) % (6 * HOUR)).toBe(0);
        if (w.partial) expect(Date.parse(w.end)).toBeLessThan(Date.parse(w.start) + 6 * HOUR);
        else expect(Date.parse(w.end) - Date.parse(w.start)).toBe(6 * HOUR);
      }
      expect(v.windows.reduce((n, w) => n + w.requests, 0)).toBe(v.requests);
    }
    const text = await cli(['prod', 'greet.prompt', '--traces', 'app.jsonl', '--window', '1h'], repo.root);
    expect(text.code).toBe(0);
    // A window that ends on the next day says that day (`12-04 23:00–12-05 00:00`).
    const windowLines = text.stdout.split('\n').filter((l) => /^ {4}\d\d-\d\d \d\d:00–(\d\d-\d\d )?\d\d:00 {2}/.test(l));
    expect(windowLines).toHaveLength(10);
    expect(windowLines.some((l) => / 22 req · 9\.1% err · TTFT p50 329 ms p90 \d+ ms p99 \d+ ms · E2E p50 729 ms/.test(l))).toBe(true);
  });

  it('the window still running ends now and is marked partial (JSON) and "–now" (text); whole windows are not', async () => {
    // Version b also served two requests in this very hour (ended by now: they last 50 ms).
    const running = [hour(b.slice(0, 7), 1, 300, 0), tracesLine([0, 1].map((k) => otlpSpan({ promptName: 'greet', version: b.slice(0, 7), startMs: HOUR_NOW + k, ttftMs: 20, e2eMs: 50 })))];
    writeFileSync(join(repo.root, 'running.jsonl'), `${running.join('\n')}\n`);
    const before = Date.now();
    const { code, stdout } = await cli(['prod', 'greet.prompt', '--traces', 'running.jsonl', '--window', '1h', '--json'], repo.root);
    expect(code).toBe(0);
    const windows = JSON.parse(stdout).versions[0].windows as { start: string; end: string; requests: number; partial?: boolean }[];
    expect(windows.map((w) => [(HOUR_NOW - Date.parse(w.start)) / HOUR, w.requests, w.partial ?? false])).toEqual([[1, 20, false], [0, 2, true]]);
    expect(Date.parse(windows[0]!.end)).toBe(HOUR_NOW);
    // The running window's end is the moment of the report, not the hour's end.
    expect(Date.parse(windows[1]!.end)).toBeGreaterThanOrEqual(before - 1000);
    expect(Date.parse(windows[1]!.end)).toBeLessThan(HOUR_NOW + HOUR);
    const text = await cli(['prod', 'greet.prompt', '--traces', 'running.jsonl', '--window', '1h'], repo.root);
    expect(text.stdout).toMatch(/^ {4}\d\d-\d\d \d\d:00–now \d\d:\d\d {2}2 req /m);
  });

  it('a window that is not a size is a usage error', async () => {
    const { code, stderr } = await cli(['prod', 'greet.prompt', '--traces', 'app.jsonl', '--window', 'hourly'], repo.root);
    expect(code).toBe(2);
    expect(stderr).toMatch(/--window takes a window size such as 30m, 1h, 6h or 1d/);
  });
});

describe('prod --report', () => {
  it('writes the Production page as one offline HTML file: CSP, inlined renderer, the view with versions and hourly timeline', async () => {
    const { code, stderr } = await cli(['prod', 'greet.prompt', '--traces', 'app.jsonl', '--report', 'prod.html'], repo.root);
    expect(code).toBe(0);
    expect(stderr).toContain('Report written to prod.html');
    const html = readFileSync(join(repo.root, 'prod.html'), 'utf8');
    expect(html).toMatch(/<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'nonce-[^']+'; script-src 'nonce-[^']+'; img-src data:">/);
    expect(html).not.toMatch(/<script[^>]+src=|<link /);
    const view = JSON.parse(/<script type="application\/json" id="report-data">(.*?)<\/script>/s.exec(html)![1]!.replace(/\\u003c/g, '<'));
    expect(view.kind).toBe('production');
    expect(view.prompt).toBe('greet');
    const [source] = view.sources;
    expect(source.versions.map((v: { version: string; requests: number; thisText: boolean }) => [v.version, v.requests, v.thisText])).toEqual([[b.slice(0, 7), 88, true], [a.slice(0, 7), 120, false]]);
    expect(source.timeline.hourMs).toBe(HOUR);
    expect(source.timeline.changes.map((c: { version: string; previous: string }) => [c.previous, c.version])).toEqual([[a.slice(0, 7), b.slice(0, 7)]]);
  });
});
