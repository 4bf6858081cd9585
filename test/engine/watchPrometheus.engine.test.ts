/**
 * `prompt-insight watch FILE --prometheus URL` against a real Prometheus (Debian's) whose three weeks of
 * GenAI client histograms are backfilled with `promtool tsdb create-blocks-from openmetrics`: a daily
 * rhythm (a 14:00 peak, weekends 20% lower), a sample every 30 min.
 *
 * Independent of the hour and the day the test runs at: every history is anchored to a fixed point of
 * the week (the last Saturday 00:00 UTC at least three days ago) and watch is asked as of a simulated
 * moment (`--now`). The regression scenario runs at several hours of the day, on a weekday and on the
 * weekend: a new version goes live, from the next hour TTFT and decoding are 50% slower; the history
 * runs until that moment. watch must report the ongoing anomaly from its first hour, the version that
 * went live and the likely cause, exit 1. `homes-normal` changes version and its client restarts
 * mid-week (counters reset to 0) with no regression: quiet, exit 0.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { histogramLines, startRunningPrometheus, type RunningPrometheus } from './prometheusServer';

const run = promisify(execFile);
const HOUR_S = 3600;
const DAY_S = 24 * HOUR_S;
const STEP_S = 1800;
const DAYS = 21;
/** The last Saturday 00:00 UTC at least three days before the real clock (1970-01-03 was a Saturday). */
const SATURDAY_S = (() => {
  const latest = Math.floor(Date.now() / 1000) - 3 * DAY_S;
  const saturdays = Math.floor((latest - 2 * DAY_S) / (7 * DAY_S));
  return saturdays * 7 * DAY_S + 2 * DAY_S;
})();

/** One regression scenario: "now" (the simulated clock), the deploy an hour before the regression's first hour. */
interface Scenario {
  prompt: string;
  nowS: number;
  /** The first slow hour: the third whole hour before now, so three whole hours have departed. */
  regressionS: number;
  deployS: number;
}

function scenario(prompt: string, nowS: number): Scenario {
  const regressionS = Math.floor(nowS / HOUR_S) * HOUR_S - 3 * HOUR_S;
  return { prompt, nowS, regressionS, deployS: regressionS - HOUR_S };
}

/** Simulated moments spread over the day, on a weekday (Friday) and on the weekend. */
const SCENARIOS: Scenario[] = [
  scenario('fri-0855', SATURDAY_S - 15 * HOUR_S - 5 * 60), // Friday 08:55
  scenario('sat-0310', SATURDAY_S + 3 * HOUR_S + 10 * 60), // Saturday 03:10 (a weekend night)
  scenario('sat-0855', SATURDAY_S + 8 * HOUR_S + 55 * 60), // Saturday 08:55
  scenario('sat-1420', SATURDAY_S + 14 * HOUR_S + 20 * 60), // Saturday 14:20 (the daily peak)
  scenario('sat-2140', SATURDAY_S + 21 * HOUR_S + 40 * 60), // Saturday 21:40
];
const NORMAL_NOW_S = SATURDAY_S + 11 * HOUR_S + 30 * 60;

/** TTFT and E2E in seconds of the half hour ending at `t`; slow (×1.5, decoding too) after `slowFromS`. */
function latencyS(t: number, slowFromS: number | null): { ttft: number; e2e: number } {
  const covered = new Date((t - 1) * 1000);
  const hour = covered.getUTCHours();
  const weekend = [0, 6].includes(covered.getUTCDay());
  const daytime = hour >= 8 && hour <= 20 ? 600 * Math.sin((Math.PI * (hour - 8)) / 12) : 0;
  const slow = slowFromS !== null && t > slowFromS ? 1.5 : 1;
  const ttftMs = (800 + daytime) * (weekend ? 0.8 : 1) * slow;
  return { ttft: ttftMs / 1000, e2e: (ttftMs + 600 * slow) / 1000 };
}

/** Three weeks of a prompt's histograms ending at `endS`, version `b7e1c2d` from `deployS`. */
function promptSeries(prompt: string, endS: number, deployS: number, slowFromS: number | null, resetAt?: number) {
  const startS = Math.floor(endS / STEP_S) * STEP_S - DAYS * DAY_S;
  const steps = (Math.floor(endS / STEP_S) * STEP_S - startS) / STEP_S + 1;
  const labels = (version: string) => `gen_ai_prompt_name="${prompt}",gen_ai_prompt_version="${version}",gen_ai_operation_name="chat"`;
  const at = (k: number) => startS + k * STEP_S;
  const options = resetAt !== undefined ? { resetAt: (resetAt - startS) / STEP_S } : {};
  const of = (version: 'a1b2c3d' | 'b7e1c2d', value: (t: number) => number) => (k: number) => ((version === 'b7e1c2d') === at(k) > deployS ? value(at(k)) : null);
  const lines: { ttft: string[]; e2e: string[] } = { ttft: [], e2e: [] };
  for (const v of ['a1b2c3d', 'b7e1c2d'] as const) {
    lines.ttft.push(...histogramLines('gen_ai_client_operation_time_to_first_chunk_seconds', labels(v), startS, STEP_S, steps, () => 20, of(v, (t) => latencyS(t, slowFromS).ttft), options));
    lines.e2e.push(...histogramLines('gen_ai_client_operation_duration_seconds', labels(v), startS, STEP_S, steps, () => 20, of(v, (t) => latencyS(t, slowFromS).e2e), options));
    // one failed call an hour: 2.5%, the usual
    lines.e2e.push(...histogramLines('gen_ai_client_operation_duration_seconds', `${labels(v)},error_type="timeout"`, startS, STEP_S, steps, (k) => k % 2, of(v, () => 30), options));
  }
  return lines;
}

const iso = (s: number) => new Date(s * 1000).toISOString();
let prometheus: RunningPrometheus;
let dir: string;

beforeAll(async () => {
  const all = [
    ...SCENARIOS.map((s) => promptSeries(s.prompt, s.nowS, s.deployS, s.regressionS)),
    promptSeries('homes-normal', NORMAL_NOW_S, NORMAL_NOW_S - 7 * HOUR_S, null, NORMAL_NOW_S - 3 * DAY_S - 12 * HOUR_S),
  ];
  prometheus = await startRunningPrometheus(
    [
      '# TYPE gen_ai_client_operation_time_to_first_chunk_seconds histogram',
      '# UNIT gen_ai_client_operation_time_to_first_chunk_seconds seconds',
      ...all.flatMap((s) => s.ttft),
      '# TYPE gen_ai_client_operation_duration_seconds histogram',
      '# UNIT gen_ai_client_operation_duration_seconds seconds',
      ...all.flatMap((s) => s.e2e),
    ],
    'count(count_over_time(gen_ai_client_operation_duration_seconds_count[30d]))',
  );
  dir = mkdtempSync(join(tmpdir(), 'pi-watch-prom-'));
  for (const name of [...SCENARIOS.map((s) => s.prompt), 'homes-normal']) writeFileSync(join(dir, `${name}.prompty`), `---\nname: ${name}\nmodel:\n  api: chat\n  configuration: { type: openai, name: gpt-4o-mini }\n---\nuser:\nFind homes.\n`);
}, 600_000);

afterAll(() => prometheus?.stop());

async function watch(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await run(process.execPath, [resolve('dist/cli.js'), 'watch', ...args], { cwd: dir, timeout: 120_000 });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const e = error as { code: number; stdout: string; stderr: string };
    return { code: e.code, stdout: e.stdout, stderr: e.stderr };
  }
}

describe('watch --prometheus on three weeks of backfilled history, as of simulated moments', () => {
  it.each(SCENARIOS)('a regression after a version change, now $prompt: the ongoing anomaly from its first hour, its version and likely cause; exit 1', async (s) => {
    const { code, stdout, stderr } = await watch([`${s.prompt}.prompty`, '--prometheus', prometheus.url, '--now', iso(s.nowS), '--json']);
    expect(stderr).toBe('');
    expect(code).toBe(1);
    const json = JSON.parse(stdout);
    expect(json.source).toMatchObject({ kind: 'prometheus', since: '35d' });
    expect(json.hours).toBeGreaterThanOrEqual(DAYS * 24 - 2);
    expect(json.versions.map((v: { version: string }) => v.version)).toEqual(['a1b2c3d', 'b7e1c2d']);
    expect(json.versions[1].firstSeen).toBe(iso(s.deployS));
    for (const metric of ['ttft.p99', 'e2e.p99']) {
      const found = json.anomalies.filter((a: { metric: string }) => a.metric === metric);
      expect(found, metric).toHaveLength(1);
      expect(found[0]).toMatchObject({ start: iso(s.regressionS), end: null, version: 'b7e1c2d', likelyCause: { version: 'b7e1c2d' }, band: { method: 'same-hour-of-week' } });
      // 50% slower, read through buckets 15% apart: above the band and the 20% margin. `observed` is the median of
      // all departing hours (at 21:40 the evening's, usually lower than the first hour's), the band the first hour's.
      expect(found[0].observed).toBeGreaterThan(found[0].band.upper);
      expect(found[0].observed).toBeGreaterThan(found[0].band.median * 1.2);
    }
    expect(json.anomalies.filter((a: { metric: string }) => a.metric === 'error-rate')).toEqual([]);
  });

  it('the Production page reads the same anomalies from a Prometheus source as watch does', async () => {
    const s = SCENARIOS[0]!;
    const cli = JSON.parse((await watch([`${s.prompt}.prompty`, '--prometheus', prometheus.url, '--now', iso(s.nowS), '--json'])).stdout) as { anomalies: { metric: string; start: string; end: string | null; version: string }[] };
    const { readFileProductionWatched } = await import('../../src/core/baseline/productionAnomalies');
    // The editor's read (the language server's worker runs the same function), with the source as the settings give it.
    const production = await readFileProductionWatched(join(dir, `${s.prompt}.prompty`), [{ kind: 'prometheus', prometheus: prometheus.url, since: '24h' }], { root: dir, nowMs: s.nowS * 1000 });
    const reading = production.readings[0]!;
    expect(reading.error).toBeUndefined();
    const anomalies = reading.watch?.[s.prompt]?.anomalies ?? [];
    expect(anomalies.length).toBeGreaterThanOrEqual(2);
    expect(anomalies.map((a) => ({ metric: a.metric, start: iso(a.startMs / 1000), end: a.endMs === null ? null : iso(a.endMs / 1000), version: a.version }))).toEqual(cli.anomalies.map((a) => ({ metric: a.metric, start: a.start, end: a.end, version: a.version })));
    expect(anomalies.find((a) => a.metric === 'ttft.p99')?.likelyCause).toMatchObject({ version: 'b7e1c2d' });
  });

  it('the text answer names the ongoing anomaly, its version and the likely cause', async () => {
    const s = SCENARIOS[0]!;
    const text = await watch([`${s.prompt}.prompty`, '--prometheus', prometheus.url, '--now', iso(s.nowS)]);
    expect(text.code).toBe(1);
    expect(text.stdout).toMatch(/from Prometheus http:\/\/127\.0\.0\.1:\d+\/ since 35d/);
    expect(text.stdout).toMatch(/ONGOING ttft\.p99: [\d.]+ s against usual [\d.]+ ms .* · version b7e1c2d — likely cause: version b7e1c2d/);
  });

  it('the same rhythm with a version change and a counter reset, no regression: daily peaks and weekends are the usual; exit 0', async () => {
    const { code, stdout } = await watch(['homes-normal.prompty', '--prometheus', prometheus.url, '--now', iso(NORMAL_NOW_S), '--json']);
    const json = JSON.parse(stdout);
    expect(json.anomalies).toEqual([]);
    expect(code).toBe(0);
    // increase() counts across the reset: 40 requests an hour throughout (extrapolated at the version switch's edges).
    expect(json.requests).toBeGreaterThan(DAYS * 24 * 40 * 0.97);
    expect(json.requests).toBeLessThan(DAYS * 24 * 40 * 1.03);
    expect(json.metrics.find((m: { metric: string }) => m.metric === 'ttft.p99').current.band.method).toBe('same-hour-of-week');
  });

  it('too little history is said: over the last 2 days, no weekly rhythm yet', async () => {
    const { stdout } = await watch(['homes-normal.prompty', '--prometheus', prometheus.url, '--now', iso(NORMAL_NOW_S), '--since', '48h']);
    expect(stdout).toMatch(/baseline needs \d+ more days?/);
  });

  it('one source only; an unreachable server and a malformed --now are clear errors', async () => {
    expect(await watch(['homes-normal.prompty', '--prometheus', prometheus.url, '--traces', 'x.jsonl'])).toMatchObject({ code: 2, stderr: expect.stringContaining('give one source') });
    expect(await watch(['homes-normal.prompty', '--prometheus', 'http://127.0.0.1:9', '--timeout-ms', '500'])).toMatchObject({ code: 1, stderr: expect.stringContaining('Prometheus range query failed') });
    expect(await watch(['homes-normal.prompty', '--prometheus', prometheus.url, '--since', '500d'])).toMatchObject({ code: 2, stderr: expect.stringContaining('more hourly steps than Prometheus answers') });
    expect(await watch(['homes-normal.prompty', '--prometheus', prometheus.url, '--now', 'yesterday'])).toMatchObject({ code: 2, stderr: expect.stringContaining('--now takes an ISO date') });
  });
});
