/**
 * Production comparisons over matched time. Traffic has a daily rhythm — the evening peak (17–22 h UTC) is
 * slower for every version — so a version that only served the evening must not be called worse than one
 * that served the morning. Times are anchored to a fixed moment (prod --now), never the wall clock.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../fixtures/cli';
import { TestRepo } from '../fixtures/gitRepo';
import { otlpSpan, tracesLine } from '../fixtures/otlpTraces';

const NOW = Date.parse('2026-12-04T23:50:00Z');
const HOUR = 3_600_000;
const DEPLOY = Date.parse('2026-12-04T14:20:00Z');

let repo: TestRepo;
let v1: string;
let v2: string;

/** A fixed-seed stream of numbers in [0, 1). */
function random(seed: number): () => number {
  let s = seed >>> 0;
  return () => ((s = (s * 1664525 + 1013904223) >>> 0) / 2 ** 32);
}

/** Requests every two minutes from `from` to `to`, each served by `versionAt(t)`, TTFT by the hour (the evening peak slower) × the version's factor. */
function traffic(from: number, to: number, versionAt: (t: number, r: () => number) => string | null, slower: Record<string, number> = {}, seed = 1) {
  const r = random(seed);
  const spans = [];
  for (let t = from; t < to; t += 120_000) {
    const version = versionAt(t, r);
    if (!version) continue;
    const hour = new Date(t).getUTCHours();
    const ttft = (hour >= 17 && hour < 22 ? 600 : 300) * (slower[version] ?? 1) * (0.9 + 0.2 * r());
    spans.push(otlpSpan({ promptName: 'greet', version, startMs: t, ttftMs: ttft, e2eMs: ttft + 400 + 40 * r() }));
  }
  return spans;
}

function write(name: string, spans: ReturnType<typeof traffic>) {
  const lines: string[] = [];
  for (let i = 0; i < spans.length; i += 500) lines.push(tracesLine(spans.slice(i, i + 500)));
  writeFileSync(join(repo.root, name), `${lines.join('\n')}\n`);
}

const prod = async (file: string) => {
  const { code, stdout, stderr } = await runCli(['prod', 'greet.prompt', '--traces', file, '--now', new Date(NOW).toISOString(), '--json'], repo.root);
  expect(stderr).toBe('');
  expect(code).toBe(0);
  return JSON.parse(stdout);
};
const verdicts = (report: { comparison: { verdicts: { metric: string; verdict: string }[] } }) => Object.fromEntries(report.comparison.verdicts.map((v) => [v.metric, v.verdict]));

beforeAll(() => {
  repo = new TestRepo();
  v1 = repo.commit('Greeting', { 'greet.prompt': '---\nmodel: gpt-test\n---\nSay hello to the user.\n' }).slice(0, 8);
  v2 = repo.commit('Warmer greeting', { 'greet.prompt': '---\nmodel: gpt-test\n---\nSay hello to the user, warmly.\n' }).slice(0, 8);
  // 1. Identical latency; v2 deployed at 14:20, so only v2 served this evening's peak. v1 served the nine days before.
  write('deploy.jsonl', traffic(NOW - 9 * 24 * HOUR, NOW, (t) => (t < DEPLOY ? v1 : v2)));
  // 2. A gray release: v2 takes a tenth of the traffic all day, and its TTFT is half again as long.
  write('canary.jsonl', traffic(NOW - 24 * HOUR, NOW, (_t, r) => (r() < 0.1 ? v2 : v1), { [v2]: 1.5 }, 2));
  // 3. One day only, v1 until 14:20 and v2 after: nothing to match them on.
  write('oneday.jsonl', traffic(Date.parse('2026-12-04T00:00:00Z'), NOW, (t) => (t < DEPLOY ? v1 : v2), {}, 3));
});

describe('prod compares versions over matched time', () => {
  it('identical latency, v2 serving the evening peak: compared with the same hours of the week, not called worse', async () => {
    const report = await prod('deploy.jsonl');
    expect(report.versions.map((v: { version: string }) => v.version)).toEqual([v2, v1]);
    // Pooled, v2's median TTFT is far above v1's: it served the evening.
    expect(report.versions[0].ttftMs.p50.value).toBeGreaterThan(report.versions[1].ttftMs.p50.value * 1.3);
    expect(report.comparison.matching).toMatchObject({ method: 'same-hours-of-week' });
    expect(report.comparison.matching.hours).toBeGreaterThanOrEqual(9);
    expect(verdicts(report)).toMatchObject({ ttftMs: 'no-difference', e2eMs: 'no-difference' });
    const text = await runCli(['prod', 'greet.prompt', '--traces', 'deploy.jsonl', '--now', new Date(NOW).toISOString()], repo.root);
    expect(text.stdout).toMatch(new RegExp(`latest ${v2} vs previous ${v1}, compared over the same hours of the week`));
  });

  it('the report without --since says its range: every span in the files for the versions, the last 24 h for the chart', async () => {
    const out = join(repo.root, 'deploy.html');
    const { code } = await runCli(['prod', 'greet.prompt', '--traces', 'deploy.jsonl', '--now', new Date(NOW).toISOString(), '--report', out], repo.root);
    expect(code).toBe(0);
    expect(readFileSync(out, 'utf8')).toContain('versions: every span in the files, 2026-11-25 23:50 UTC – 2026-12-04 23:48 UTC; hourly chart: 2026-12-03 23:50 UTC – 2026-12-04 23:50 UTC');
  });

  it('a gray release with a real regression: compared hour by hour side by side, and called worse', async () => {
    const report = await prod('canary.jsonl');
    expect(report.comparison.matching).toMatchObject({ method: 'same-hours' });
    expect(report.comparison.matching.hours).toBeGreaterThanOrEqual(20);
    expect(verdicts(report)).toMatchObject({ ttftMs: 'worse' });
  });

  it('versions that served different hours with no hour of the week in common: no verdict, and why', async () => {
    const report = await prod('oneday.jsonl');
    expect(report.comparison.matching.method).toBe('unmatched');
    expect(verdicts(report)).toEqual({ ttftMs: 'insufficient', e2eMs: 'insufficient', errorRate: 'insufficient' });
    expect(report.comparison.verdicts[0].summary).toMatch(/no verdict: the two versions served different hours \(2026-12-04T00h–2026-12-04T15h and 2026-12-04T14h–2026-12-05T00h UTC\), with too few hours in common/);
  });
});
