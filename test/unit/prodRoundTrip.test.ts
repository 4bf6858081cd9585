/**
 * The loop closed: runs of two committed revisions against the simulator, stored, exported by
 * `export --format otlp-json`, and read back by `prod` — each version mapped to its commit, with the
 * stored runs' own counts and latencies.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { percentile } from '../../src/core/stats/percentile';
import { TestRepo } from '../fixtures/gitRepo';
import { startSimProcess, type SimProcess } from '../fixtures/simProcess';
import { runCli } from '../fixtures/cli';

const cli = (args: string[], cwd: string) => runCli(args, cwd, { maxBuffer: 64 * 1024 * 1024 });

let sim: SimProcess;
let repo: TestRepo;
let a: string;
let b: string;
beforeAll(async () => {
  sim = await startSimProcess(['--ttft-ms', '20', '--decode-ms-per-token', '1', '--output-tokens', '12', '--jitter-ms', '5']);
  repo = new TestRepo();
  a = repo.commit('short', { 'greet.prompt': '---\nmodel: m\n---\nSay hello.\n' });
  expect((await cli(['run', 'greet.prompt', '--endpoint', sim.url, '--runs', '6', '--store', 'runs.jsonl'], repo.root)).code).toBe(0);
  b = repo.commit('long', { 'greet.prompt': `---\nmodel: m\n---\n${'Say hello, warmly and at length. '.repeat(20)}\n` });
  expect((await cli(['run', 'greet.prompt', '--endpoint', sim.url, '--runs', '6', '--store', 'runs.jsonl'], repo.root)).code).toBe(0);
}, 60_000);
afterAll(() => {
  sim.child.kill('SIGINT');
});

describe('export --format otlp-json → prod --traces', () => {
  it('reads back every stored run under its revision, with the stored E2E values', async () => {
    expect((await cli(['export', '--store', 'runs.jsonl', '--format', 'otlp-json', '--out', 'traces.jsonl'], repo.root)).code).toBe(0);
    const { code, stdout, stderr } = await cli(['prod', 'greet.prompt', '--traces', 'traces.jsonl', '--json'], repo.root);
    expect(stderr).toBe('');
    expect(code).toBe(0);
    const report = JSON.parse(stdout);
    expect(report.skipped).toEqual({ lines: 0, spans: 0, reasons: {} });
    expect(report.versions.map((v: { revision: string }) => v.revision)).toEqual([b, a]);
    expect(report.versions.map((v: { requests: number }) => v.requests)).toEqual([6, 6]);
    const stored = readFileSync(join(repo.root, 'runs.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l.slice(l.indexOf('{'))));
    const e2eOf = (records: { run: { e2eMs: number } }[]) => records.map((r) => r.run.e2eMs).sort((x, y) => x - y);
    const first = stored.slice(0, 6);
    const second = stored.slice(6);
    // E2E from the span's prompt_insight.e2e (the span itself ends at stream end): microsecond rounding at most.
    expect(report.versions[1].e2eMs.p50.value).toBeCloseTo(percentile(e2eOf(first), 0.5), 1);
    expect(report.versions[0].e2eMs.p50.value).toBeCloseTo(percentile(e2eOf(second), 0.5), 1);
    expect(report.versions[0].tokens.input).toBe(second.reduce((s: number, r: { run: { inputTokens: number } }) => s + r.run.inputTokens, 0));
    expect(report.versions[0].tokens.input).toBeGreaterThan(report.versions[1].tokens.input);
    expect(report.comparison).toMatchObject({ head: report.versions[0].version, base: report.versions[1].version });
  });
});
