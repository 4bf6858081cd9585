/**
 * The panel's Production view from real trace files and a real git repo: hourly figures per version,
 * the version change with the hours before and after it, the baseline band (none with what it still
 * needs after ten hours; the same hour of the week after three weeks), the text in the editor marked.
 */
import { gzipSync } from 'node:zlib';
import { beforeAll, describe, expect, it } from 'vitest';
import { readFileProduction } from '../../../src/core/telemetry/prodForEditor';
import { isProductionView, productionView } from '../../../src/core/telemetry/productionView';
import { TestRepo } from '../../fixtures/gitRepo';
import { otlpSpan, tracesLine } from '../../fixtures/otlpTraces';

const HOUR = 3_600_000;
/** A fixed "now" on an hour boundary plus 30 min, so hour buckets are known. */
const NOW = Date.UTC(2026, 11, 4, 12, 30);
const HOUR_NOW = Date.UTC(2026, 11, 4, 12);

let repo: TestRepo;
let a: string;
let b: string;

/** 20 requests in the hour starting at `hourStart`, TTFT base … base+19 ms. */
function hourOfSpans(version: string, hourStart: number, base: number): Record<string, unknown>[] {
  return Array.from({ length: 20 }, (_, k) => otlpSpan({ promptName: 'greet', version, startMs: hourStart + k * 60_000, ttftMs: base + k, e2eMs: base + 200 + k }));
}

beforeAll(() => {
  repo = new TestRepo();
  a = repo.commit('First greeting', { 'greet.prompt': '---\nmodel: gpt-test\n---\nSay hello.\n' });
  b = repo.commit('Longer greeting', { 'greet.prompt': '---\nmodel: gpt-test\n---\nSay hello, briefly and warmly.\n' });
  // A for six hours (10 to 5 hours ago), then B for four (4 to 1 hours ago).
  const lines: string[] = [];
  for (let h = 10; h >= 5; h--) lines.push(tracesLine(hourOfSpans(a.slice(0, 7), HOUR_NOW - h * HOUR, 100)));
  for (let h = 4; h >= 1; h--) lines.push(tracesLine(hourOfSpans(b.slice(0, 7), HOUR_NOW - h * HOUR, 300)));
  repo.write('traces/day.jsonl', `${lines.join('\n')}\n`);
  // Three weeks of A, every hour, for the baseline (gzip).
  const weeks: string[] = [];
  for (let h = 21 * 24; h >= 1; h--) weeks.push(tracesLine(hourOfSpans(a.slice(0, 7), HOUR_NOW - h * HOUR, 100)));
  repo.write('history/weeks.jsonl.gz', gzipSync(`${weeks.join('\n')}\n`));
  // A every hour for eight days until 5 hours ago, then B: a week earlier A served B's hours.
  const replaced: string[] = [];
  for (let h = 8 * 24; h >= 5; h--) replaced.push(tracesLine(hourOfSpans(a.slice(0, 7), HOUR_NOW - h * HOUR, 100)));
  for (let h = 4; h >= 1; h--) replaced.push(tracesLine(hourOfSpans(b.slice(0, 7), HOUR_NOW - h * HOUR, 300)));
  repo.write('replaced/week.jsonl', `${replaced.join('\n')}\n`);
  // A gray release: A keeps serving beside B.
  const gray: string[] = [];
  for (let h = 10; h >= 1; h--) gray.push(tracesLine(hourOfSpans(a.slice(0, 7), HOUR_NOW - h * HOUR, 100)));
  for (let h = 4; h >= 1; h--) gray.push(tracesLine(hourOfSpans(b.slice(0, 7), HOUR_NOW - h * HOUR + 30_000, 300)));
  repo.write('gray/day.jsonl', `${gray.join('\n')}\n`);
});

describe('Production view', () => {
  it('hourly TTFT p50/p99 and requests per version, the change from A to B with before and after, no band yet (and what it needs)', async () => {
    const production = await readFileProduction(`${repo.root}/greet.prompt`, [{ kind: 'traces', traces: 'traces/*.jsonl', since: '24h' }], { root: repo.root, nowMs: NOW });
    const view = productionView('greet.prompt', production, 'greet', (v) => v.revision === b);
    expect(isProductionView(JSON.parse(JSON.stringify(view)))).toBe(true);
    const [source] = view.sources;
    expect(source!.error).toBeNull();
    expect(source!.versions.map((v) => [v.version, v.requests, v.thisText, v.inGitHistory])).toEqual([[b.slice(0, 7), 80, true, true], [a.slice(0, 7), 120, false, true]]);
    const timeline = source!.timeline!;
    const byVersion = Object.fromEntries(timeline.versions.map((v) => [v.version, v.points]));
    // A: six hours of 20 requests, TTFT 100…119 → p50 109.5, p99 118.81 (type 7) → 118.8
    expect(byVersion[a.slice(0, 7)]!.map((p) => [(HOUR_NOW - p.t) / HOUR, p.requests, p.ttftP50Ms, p.ttftP99Ms])).toEqual([10, 9, 8, 7, 6, 5].map((h) => [h, 20, 109.5, 118.8]));
    expect(byVersion[b.slice(0, 7)]!.map((p) => [(HOUR_NOW - p.t) / HOUR, p.requests, p.ttftP50Ms])).toEqual([4, 3, 2, 1].map((h) => [h, 20, 309.5]));
    expect(timeline.changes).toHaveLength(1);
    const change = timeline.changes[0]!;
    expect(change).toMatchObject({ version: b.slice(0, 7), previous: a.slice(0, 7), t: HOUR_NOW - 4 * HOUR });
    // A served neither B's hours nor the same hours a week before: the six hours before the deploy are another
    // time of day, not a baseline — no figures, and why.
    expect(change.before).toBeNull();
    expect(change.beforeNote).toBe(`${a.slice(0, 7)} served neither these hours nor the same hours a week before: no like-for-like figures`);
    expect(change.after).toEqual({ hours: 4, requests: 80, ttftP50Ms: 309.5, ttftP99Ms: 319, how: 'pooled' });
    expect(timeline.band.method).toBe('none');
    expect(source!.baseline).toMatch(/^no baseline yet: the weekly rhythm needs 2 more weeks of history at this hour, or \d+ more hours for a rolling one$/);
  });

  it('before/after over matched hours: the same hours a week earlier when B replaced A; the same hours side by side in a gray release', async () => {
    const changeOf = async (traces: string) => {
      const production = await readFileProduction(`${repo.root}/greet.prompt`, [{ kind: 'traces', traces, since: '24h' }], { root: repo.root, nowMs: NOW });
      return production.readings[0]!.timeline!.changes[0]!;
    };
    const replaced = await changeOf('replaced/*.jsonl');
    expect(replaced.before).toEqual({ hours: 6, requests: 120, ttftP50Ms: 109.5, ttftP99Ms: 119, how: 'pooled', matched: 'week-before' });
    expect(replaced.after).toMatchObject({ hours: 4, requests: 80, ttftP50Ms: 309.5 });
    const gray = await changeOf('gray/*.jsonl');
    expect(gray.before).toEqual({ hours: 4, requests: 80, ttftP50Ms: 109.5, ttftP99Ms: 119, how: 'pooled', matched: 'same-hours' });
  });

  it('three weeks of history: the band is the same hour of the week, and says so', async () => {
    const production = await readFileProduction(`${repo.root}/greet.prompt`, [{ kind: 'traces', traces: 'history/*.jsonl.gz', since: '24h' }], { root: repo.root, nowMs: NOW });
    const view = productionView('greet.prompt', production, 'greet', () => false);
    const source = view.sources[0]!;
    expect(source.timeline!.band.method).toBe('same-hour-of-week');
    expect(source.baseline).toBe('dynamic baseline: the same hour of the week over the last weeks (median ± 3 scaled MADs)');
    const last = source.timeline!.band.points.at(-1)!;
    // Every hour's p99 is 118.8: median 118.8, MAD 0 → the 10% practical margin.
    expect(last.median).toBeCloseTo(118.8, 6);
    expect(last.lower).toBeCloseTo(106.92, 6);
    expect(last.upper).toBeCloseTo(130.68, 6);
    // The window shows one day of hours; the three weeks before it feed only the band.
    expect(source.timeline!.versions[0]!.points).toHaveLength(24);
  });

  it('a source that cannot be read is a message in the view, not an exception', async () => {
    const production = await readFileProduction(`${repo.root}/greet.prompt`, [{ kind: 'prometheus', prometheus: 'http://127.0.0.1:9', since: '24h' }], { root: repo.root, nowMs: NOW, prometheusTimeoutMs: 500 });
    const view = productionView('greet.prompt', production, 'greet', () => false);
    expect(view.sources[0]!.error).toMatch(/^Prometheus query failed: /);
    expect(view.sources[0]!.baseline).toBe('no hourly figures from this source');
  });
});

describe('a slow Prometheus', () => {
  it('answering every query just inside its timeout: the source stops at its deadline and says so', async () => {
    const { createServer } = await import('node:http');
    let asked = 0;
    const slow = createServer((_req, res) => {
      asked++;
      setTimeout(() => res.end(JSON.stringify({ status: 'success', data: { resultType: 'vector', result: [] } })), 400);
    });
    await new Promise<void>((r) => slow.listen(0, '127.0.0.1', r));
    const url = `http://127.0.0.1:${(slow.address() as { port: number }).port}`;
    try {
      const started = Date.now();
      const production = await readFileProduction(`${repo.root}/greet.prompt`, [{ kind: 'prometheus', prometheus: url, since: '24h' }], { root: repo.root, nowMs: NOW, prometheusTimeoutMs: 1000, deadlineMs: 1500 });
      expect(Date.now() - started).toBeLessThan(3000);
      expect(production.readings[0]!.error).toBe(`Prometheus ${url} did not finish within 2 s; shown when it does (next read in a minute).`);
      expect(asked).toBeLessThanOrEqual(5);
    } finally {
      slow.close();
    }
  });
});
