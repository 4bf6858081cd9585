/**
 * `prompt-insight watch FILE --prometheus URL` against a real Prometheus (Debian's 2.42) whose three
 * weeks of GenAI client histograms are backfilled with `promtool tsdb create-blocks-from openmetrics`:
 * two prompts with the same daily rhythm (a 14:00 peak, weekends 20% lower), a sample every 30 min.
 * `homes-regressed` gets a new version at 23:00 on the last night and its nights are 50% slower from
 * 00:00: watch reports the ongoing anomaly, the version and the likely cause, exit 1. `homes-normal`
 * also changes version, and its client restarts mid-week (its counters reset to 0): quiet, exit 0.
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
const STEP_S = 1800;
const DAYS = 21;
/** The history ends at the last 06:00 UTC at least 10 minutes ago; the regressed night is the one before it. */
const nowS = Math.floor(Date.now() / 1000);
const END_S = Math.floor((nowS - 600 - 6 * HOUR_S) / (24 * HOUR_S)) * 24 * HOUR_S + 6 * HOUR_S;
const START_S = END_S - DAYS * 24 * HOUR_S;
const STEPS = (END_S - START_S) / STEP_S + 1;
const NEW_VERSION_S = END_S - 7 * HOUR_S; // 23:00
const REGRESSION_S = END_S - 6 * HOUR_S; // 00:00
const RESET_STEP = (END_S - START_S - 3 * 24 * HOUR_S - 12 * HOUR_S) / STEP_S; // three and a half days before the end

/** TTFT in seconds of the half hour ending at the step's time. */
function ttftS(k: number, regressed: boolean): number {
  const covered = new Date((START_S + k * STEP_S - 1) * 1000);
  const hour = covered.getUTCHours();
  const weekend = [0, 6].includes(covered.getUTCDay());
  const daytime = hour >= 8 && hour <= 20 ? 600 * Math.sin((Math.PI * (hour - 8)) / 12) : 0;
  let ms = (800 + daytime) * (weekend ? 0.8 : 1);
  if (regressed && START_S + k * STEP_S > REGRESSION_S) ms *= 1.5;
  return ms / 1000;
}

function promptSeries(prompt: string, regressed: boolean) {
  const labels = (version: string) => `gen_ai_prompt_name="${prompt}",gen_ai_prompt_version="${version}",gen_ai_operation_name="chat"`;
  const newVersion = (k: number) => START_S + k * STEP_S > NEW_VERSION_S;
  const options = regressed ? {} : { resetAt: RESET_STEP };
  const of = (version: 'a1b2c3d' | 'b7e1c2d', value: (k: number) => number) => (k: number) => ((version === 'b7e1c2d') === newVersion(k) ? value(k) : null);
  const ttft = (v: 'a1b2c3d' | 'b7e1c2d') => histogramLines('gen_ai_client_operation_time_to_first_chunk_seconds', labels(v), START_S, STEP_S, STEPS, () => 20, of(v, (k) => ttftS(k, regressed)), options);
  const e2e = (v: 'a1b2c3d' | 'b7e1c2d') => histogramLines('gen_ai_client_operation_duration_seconds', labels(v), START_S, STEP_S, STEPS, () => 20, of(v, (k) => ttftS(k, regressed) + 0.6), options);
  // one failed call an hour: 2.5%, the usual
  const failed = (v: 'a1b2c3d' | 'b7e1c2d') => histogramLines('gen_ai_client_operation_duration_seconds', `${labels(v)},error_type="timeout"`, START_S, STEP_S, STEPS, (k) => k % 2, of(v, () => 30), options);
  return { ttft: [...ttft('a1b2c3d'), ...ttft('b7e1c2d')], e2e: [...e2e('a1b2c3d'), ...e2e('b7e1c2d'), ...failed('a1b2c3d'), ...failed('b7e1c2d')] };
}

let prometheus: RunningPrometheus;
let dir: string;

beforeAll(async () => {
  const regressed = promptSeries('homes-regressed', true);
  const normal = promptSeries('homes-normal', false);
  prometheus = await startRunningPrometheus(
    [
      '# TYPE gen_ai_client_operation_time_to_first_chunk_seconds histogram',
      '# UNIT gen_ai_client_operation_time_to_first_chunk_seconds seconds',
      ...regressed.ttft,
      ...normal.ttft,
      '# TYPE gen_ai_client_operation_duration_seconds histogram',
      '# UNIT gen_ai_client_operation_duration_seconds seconds',
      ...regressed.e2e,
      ...normal.e2e,
    ],
    'count(count_over_time(gen_ai_client_operation_duration_seconds_count[30d]))',
  );
  dir = mkdtempSync(join(tmpdir(), 'pi-watch-prom-'));
  for (const name of ['homes-regressed', 'homes-normal']) writeFileSync(join(dir, `${name}.prompty`), `---\nname: ${name}\nmodel:\n  api: chat\n  configuration: { type: openai, name: gpt-4o-mini }\n---\nuser:\nFind homes.\n`);
}, 300_000);

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

describe('watch --prometheus on three weeks of backfilled history', () => {
  it('a night-time regression after a version change: the ongoing anomaly, its version and likely cause; exit 1', async () => {
    const { code, stdout, stderr } = await watch(['homes-regressed.prompty', '--prometheus', prometheus.url, '--json']);
    expect(stderr).toBe('');
    expect(code).toBe(1);
    const json = JSON.parse(stdout);
    expect(json.source).toMatchObject({ kind: 'prometheus', since: '35d' });
    expect(json.hours).toBeGreaterThanOrEqual(DAYS * 24 - 2);
    expect(json.versions.map((v: { version: string }) => v.version)).toEqual(['a1b2c3d', 'b7e1c2d']);
    expect(json.versions[1].firstSeen).toBe(new Date((NEW_VERSION_S) * 1000).toISOString());
    for (const metric of ['ttft.p99', 'e2e.p99']) {
      const found = json.anomalies.filter((a: { metric: string }) => a.metric === metric);
      expect(found, metric).toHaveLength(1);
      expect(found[0]).toMatchObject({ start: new Date(REGRESSION_S * 1000).toISOString(), end: null, version: 'b7e1c2d', likelyCause: { version: 'b7e1c2d' }, band: { method: 'same-hour-of-week' } });
      expect(found[0].observed).toBeGreaterThan(found[0].band.upper);
    }
    // The night's usual TTFT p99 is 800 ms (within a 15% bucket); the regressed one 1.2 s.
    const ttft = json.anomalies.find((a: { metric: string }) => a.metric === 'ttft.p99');
    expect(ttft.band.median).toBeGreaterThan(700);
    expect(ttft.band.median).toBeLessThan(950);
    expect(ttft.observed).toBeGreaterThan(1100);
    expect(json.anomalies.filter((a: { metric: string }) => a.metric === 'error-rate')).toEqual([]);
    const text = await watch(['homes-regressed.prompty', '--prometheus', prometheus.url]);
    expect(text.code).toBe(1);
    expect(text.stdout).toMatch(/from Prometheus http:\/\/127\.0\.0\.1:\d+\/ since 35d/);
    expect(text.stdout).toMatch(/ONGOING ttft\.p99: [\d.]+ s against usual [\d.]+ ms .* · version b7e1c2d — likely cause: version b7e1c2d/);
  });

  it('the same rhythm with a version change and a counter reset, no regression: daily peaks and weekends are the usual; exit 0', async () => {
    const { code, stdout } = await watch(['homes-normal.prompty', '--prometheus', prometheus.url, '--json']);
    const json = JSON.parse(stdout);
    expect(json.anomalies).toEqual([]);
    expect(code).toBe(0);
    // increase() counts across the reset: 40 requests an hour throughout (extrapolated at the version switch's edges).
    expect(json.requests).toBeGreaterThan(DAYS * 24 * 40 * 0.97);
    expect(json.requests).toBeLessThan(DAYS * 24 * 40 * 1.03);
    expect(json.metrics.find((m: { metric: string }) => m.metric === 'ttft.p99').current.band.method).toBe('same-hour-of-week');
  });

  it('too little history is said: over the last 2 days, no weekly rhythm yet', async () => {
    const { stdout } = await watch(['homes-normal.prompty', '--prometheus', prometheus.url, '--since', `${Math.ceil((nowS - END_S) / HOUR_S) + 48}h`]);
    expect(stdout).toMatch(/baseline needs \d+ more days?/);
  });

  it('one source only; an unreachable server is a clear error', async () => {
    expect(await watch(['homes-normal.prompty', '--prometheus', prometheus.url, '--traces', 'x.jsonl'])).toMatchObject({ code: 2, stderr: expect.stringContaining('give one source') });
    expect(await watch(['homes-normal.prompty', '--prometheus', 'http://127.0.0.1:9', '--timeout-ms', '500'])).toMatchObject({ code: 1, stderr: expect.stringContaining('Prometheus range query failed') });
    expect(await watch(['homes-normal.prompty', '--prometheus', prometheus.url, '--since', '500d'])).toMatchObject({ code: 2, stderr: expect.stringContaining('more hourly steps than Prometheus answers') });
  });
});
