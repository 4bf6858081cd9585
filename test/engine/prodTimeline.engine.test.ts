/**
 * Production per version over time from a real Prometheus (Debian's), its history backfilled with
 * `promtool tsdb create-blocks-from openmetrics`: version A for six hours, then version B — the hourly
 * range queries give each version's requests and TTFT per hour and the change from A to B; and the real
 * language server, configured with that Prometheus, shows B's line in its lens.
 */
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { histogramLines, startRunningPrometheus, type RunningPrometheus } from './prometheusServer';
import { CodeLensRequest, DidOpenTextDocumentNotification, type CodeLens } from 'vscode-languageserver-protocol/node';
import { readFileProduction } from '../../src/core/telemetry/prodForEditor';
import { TestRepo } from '../fixtures/gitRepo';
import { LspHarness } from '../server/lspHarness';

const run = promisify(execFile);
const HOUR_S = 3600;
const WEEK_S = 7 * 24 * HOUR_S;
const STEP_S = 60;
const BOUNDS = [0.01, 0.02, 0.04, 0.08, 0.16, 0.32, 0.64, 1.28, 2.56, 5.12, 10.24];
let prometheus: RunningPrometheus | undefined;
let prometheusUrl: string;
let repo: TestRepo;
let a: string;
let b: string;
let switchS: number;
const TEXT_B = '---\nmodel: gpt-test\n---\nSay hello, warmly.\n';

/** Cumulative histogram samples every minute after `fromS` for `steps` minutes: `perStep` observations of `valueS` each. */
const histogram = (name: string, labels: string, fromS: number, steps: number, perStep: number, valueS: number): string[] =>
  histogramLines(name, labels, fromS + STEP_S, STEP_S, steps, () => perStep, () => valueS, { bounds: BOUNDS });

beforeAll(async () => {
  repo = new TestRepo();
  a = repo.commit('First greeting', { 'greet.prompt': '---\nmodel: gpt-test\n---\nSay hello.\n' });
  b = repo.commit('Longer greeting', { 'greet.prompt': TEXT_B });
  const nowS = Math.floor(Date.now() / 1000);
  // A from 11 h ago for six hours; B from then until five minutes ago (on an hour boundary, so the change falls in a known hour).
  const startS = Math.floor((nowS - 11 * HOUR_S) / HOUR_S) * HOUR_S;
  switchS = startS + 6 * HOUR_S;
  const labels = (rev: string) => `gen_ai_prompt_name="greet",gen_ai_prompt_version="${rev.slice(0, 7)}",gen_ai_operation_name="chat"`;
  const om = [
    '# TYPE gen_ai_client_operation_duration_seconds histogram',
    ...histogram('gen_ai_client_operation_duration_seconds', labels(a), switchS - WEEK_S, 6 * 60, 10, 0.5),
    ...histogram('gen_ai_client_operation_duration_seconds', labels(a), startS, 6 * 60, 10, 0.5),
    ...histogram('gen_ai_client_operation_duration_seconds', labels(b), switchS, Math.floor((nowS - 300 - switchS) / STEP_S), 10, 1.0),
    '# TYPE gen_ai_client_operation_time_to_first_chunk_seconds histogram',
    // A week earlier A served the hours B serves now (its TTFT then 0.06 s, in (0.04, 0.08]): B's change is compared with those.
    ...histogram('gen_ai_client_operation_time_to_first_chunk_seconds', labels(a), switchS - WEEK_S, 6 * 60, 10, 0.06),
    ...histogram('gen_ai_client_operation_time_to_first_chunk_seconds', labels(a), startS, 6 * 60, 10, 0.1),
    ...histogram('gen_ai_client_operation_time_to_first_chunk_seconds', labels(b), switchS, Math.floor((nowS - 300 - switchS) / STEP_S), 10, 0.3),
  ];
  prometheus = await startRunningPrometheus(om, 'count(count_over_time(gen_ai_client_operation_duration_seconds_count[1h]))');
  prometheusUrl = prometheus.url;
}, 180_000);

afterAll(() => {
  prometheus?.stop();
});

describe('production over time from Prometheus', () => {
  it('hourly requests and TTFT per version (range queries), the change from A to B with the hours before and after', async () => {
    const production = await readFileProduction(`${repo.root}/greet.prompt`, [{ kind: 'prometheus', prometheus: prometheusUrl, since: '12h' }], { root: repo.root });
    const reading = production.readings[0]!;
    expect(reading.error).toBeUndefined();
    expect(reading.report!.versions.map((v) => v.revision)).toEqual([b, a]);
    const timeline = reading.timeline!;
    expect(timeline.source).toBe('prometheus');
    const points = Object.fromEntries(timeline.versions.map((v) => [v.version, v.points]));
    const pa = points[a.slice(0, 7)]!;
    const pb = points[b.slice(0, 7)]!;
    // A's whole hours: 600 requests each (10 a minute), TTFT all 0.1 s → p50 interpolated in (0.08, 0.16] = 120 ms.
    const wholeA = pa.filter((p) => p.t >= switchS * 1000 - 5 * HOUR_S * 1000 && p.t < switchS * 1000 - HOUR_S * 1000);
    expect(wholeA.length).toBe(4);
    for (const p of wholeA) {
      expect(p.requests).toBeGreaterThanOrEqual(590);
      expect(p.requests).toBeLessThanOrEqual(610);
      expect(p.ttftP50Ms).toBeCloseTo(120, 0);
    }
    // B's hours start at the switch; its TTFT (0.3 s) is in (0.16, 0.32].
    expect(Math.min(...pb.map((p) => p.t))).toBe(switchS * 1000);
    for (const p of pb.filter((p) => p.t < Date.now() - 2 * HOUR_S * 1000)) expect(p.ttftP50Ms).toBeCloseTo(240, 0);
    expect(pa.every((p) => p.t < switchS * 1000 + HOUR_S * 1000)).toBe(true);
    expect(timeline.changes).toHaveLength(1);
    const change = timeline.changes[0]!;
    expect(change).toMatchObject({ version: b.slice(0, 7), previous: a.slice(0, 7), t: switchS * 1000 });
    // Before: A in the same hours a week earlier (not the six hours before the switch, another time of day).
    expect(change.before).toMatchObject({ how: 'median-of-hours', matched: 'week-before', ttftP50Ms: expect.closeTo(60, 0) });
    expect(change.after).toMatchObject({ how: 'median-of-hours', ttftP50Ms: expect.closeTo(240, 0) });
    expect(change.before!.requests).toBeGreaterThan(2000);
    // Eleven hours and one earlier week at these hours: no band yet, and the view says what it needs.
    expect(timeline.band.method).toBe('none');
    expect(timeline.band.note).toMatch(/^no baseline yet: the weekly rhythm needs 1 more week /);
  });

  it('the CLI: prod --prometheus --window 1h gives per version and hour the requests and TTFT/E2E percentiles; --window 6h and --report read the same range', async () => {
    const cli = (args: string[]) => run(process.execPath, [join(process.cwd(), 'dist/cli.js'), 'prod', 'greet.prompt', '--prometheus', prometheusUrl, '--since', '12h', ...args], { cwd: repo.root, timeout: 60_000 });
    const hourly = JSON.parse((await cli(['--window', '1h', '--json'])).stdout);
    expect(hourly.window).toEqual({ since: '12h', size: '1h' });
    const windows = Object.fromEntries(hourly.versions.map((v: { version: string; windows: unknown[] }) => [v.version, v.windows])) as Record<string, { start: string; requests: number; errorRate: number; ttftMs: { p50: number }; e2eMs: { p50: number }; tpotMs: { p50: number | null } }[]>;
    const wholeA = windows[a.slice(0, 7)]!.filter((w) => Date.parse(w.start) >= switchS * 1000 - 5 * HOUR_S * 1000 && Date.parse(w.start) < switchS * 1000 - HOUR_S * 1000);
    expect(wholeA).toHaveLength(4);
    for (const w of wholeA) {
      expect(w.requests).toBeGreaterThanOrEqual(590);
      expect(w.requests).toBeLessThanOrEqual(610);
      expect(w.errorRate).toBe(0);
      // TTFT 0.1 s in (0.08, 0.16] → 120 ms; E2E 0.5 s in (0.32, 0.64] → 480 ms (interpolated); no TPOT histogram.
      expect(w.ttftMs.p50).toBeCloseTo(120, 0);
      expect(w.e2eMs.p50).toBeCloseTo(480, 0);
      expect(w.tpotMs.p50).toBeNull();
    }
    const firstB = windows[b.slice(0, 7)]!;
    expect(Date.parse(firstB[0]!.start)).toBe(switchS * 1000);
    expect(firstB[0]!.e2eMs.p50).toBeCloseTo(960, 0);
    const sixHourly = JSON.parse((await cli(['--window', '6h', '--json'])).stdout);
    type Window = { start: string; end: string; requests: number; partial?: boolean };
    const total = (ws: Window[]) => ws.reduce((n, w) => n + w.requests, 0);
    for (const v of sixHourly.versions as { version: string; windows: Window[] }[]) {
      // Every version has its windows — B, deployed inside the current six hours at some times of day,
      // too: the window still running is read up to now (an instant query over its elapsed part).
      expect(v.windows.length).toBeGreaterThan(0);
      for (const w of v.windows) {
        expect(Date.parse(w.start) % (6 * HOUR_S * 1000)).toBe(0);
        if (w.partial) expect(Date.parse(w.end) - Date.parse(w.start)).toBeLessThan(6 * HOUR_S * 1000);
        else expect(Date.parse(w.end) - Date.parse(w.start)).toBe(6 * HOUR_S * 1000);
      }
      expect(v.windows.filter((w) => w.partial).length).toBeLessThanOrEqual(1);
      // The same requests as the hourly windows (running hour included), within increase()'s extrapolation.
      const hourlyTotal = total(windows[v.version]! as unknown as Window[]);
      expect(Math.abs(total(v.windows) - hourlyTotal)).toBeLessThanOrEqual(0.03 * hourlyTotal);
    }
    // The same at six simulated moments, one in each hour of a six-hour window (`--now`): whatever
    // the hour, the 6 h windows hold the hourly windows' requests and at most one is still running.
    for (let k = 1; k <= 5; k++) {
      const nowMs = Date.now() - k * HOUR_S * 1000 - k * 7 * 60_000;
      const at = ['--now', new Date(nowMs).toISOString()];
      const perHour = JSON.parse((await cli(['--window', '1h', '--json', ...at])).stdout) as { versions: { version: string; windows: Window[] }[] };
      const perSix = JSON.parse((await cli(['--window', '6h', '--json', ...at])).stdout) as { versions: { version: string; windows: Window[] }[] };
      expect(perSix.versions.map((v) => v.version).sort(), `--now ${at[1]}`).toEqual(perHour.versions.map((v) => v.version).sort());
      for (const v of perSix.versions) {
        expect(v.windows.filter((w) => w.partial).length).toBeLessThanOrEqual(1);
        for (const w of v.windows) expect(Date.parse(w.end), `--now ${at[1]}`).toBeLessThanOrEqual(nowMs + 1000);
        const hourlyTotal = total(perHour.versions.find((h) => h.version === v.version)!.windows);
        expect(Math.abs(total(v.windows) - hourlyTotal), `--now ${at[1]} ${v.version}`).toBeLessThanOrEqual(0.03 * hourlyTotal + 10);
      }
    }
    await cli(['--report', 'prod.html']);
    const html = readFileSync(join(repo.root, 'prod.html'), 'utf8');
    const view = JSON.parse(/<script type="application\/json" id="report-data">(.*?)<\/script>/s.exec(html)![1]!.replace(/\\u003c/g, '<'));
    expect(view.sources[0].kind).toBe('prometheus');
    expect(view.sources[0].timeline.changes.map((c: { version: string }) => c.version)).toEqual([b.slice(0, 7)]);
  });

  it('the language server, configured with this Prometheus, shows B in its lens', async () => {
    const server = new LspHarness();
    try {
      await server.initialize({ settings: { production: { sources: [{ prometheus: prometheusUrl, since: '12h' }] } }, workspaceFolders: [repo.root] });
      const uri = pathToFileURL(join(repo.root, 'greet.prompt')).toString();
      await server.connection.sendNotification(DidOpenTextDocumentNotification.type, { textDocument: { uri, languageId: 'dotprompt', version: 1, text: TEXT_B } });
      let lens: string | undefined;
      for (const deadline = Date.now() + 60_000; Date.now() < deadline; await new Promise((r) => setTimeout(r, 100))) {
        lens = ((await server.connection.sendRequest(CodeLensRequest.type, { textDocument: { uri } })) as CodeLens[]).map((l) => l.command!.title).find((t) => t.startsWith('prod'));
        if (lens !== 'prod: reading…') break;
      }
      expect(lens).toMatch(new RegExp(`^prod TTFT p50 2\\d\\d ms · p99 3\\d\\d ms · \\d+(\\.\\d)?k req/12 h · v ${b.slice(0, 7)}$`));
    } finally {
      await server.dispose();
    }
  });
});
