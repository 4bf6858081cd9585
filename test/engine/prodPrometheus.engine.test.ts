/**
 * `prompt-insight prod FILE --prometheus URL` against a real Prometheus (Debian's 2.42) whose history —
 * six hours of GenAI client histograms for two prompt versions and vLLM's server histograms — is
 * backfilled with `promtool tsdb create-blocks-from openmetrics`, then queried through PromQL over ranges.
 */
import { execFile } from 'node:child_process';
import { resolve } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { histogramLines, startRunningPrometheus, type RunningPrometheus } from './prometheusServer';
import { TestRepo } from '../fixtures/gitRepo';

const run = promisify(execFile);
let prometheus: RunningPrometheus | undefined;
let prometheusUrl: string;
let repo: TestRepo;
let a: string;
let b: string;

const BOUNDS = [0.01, 0.02, 0.04, 0.08, 0.16, 0.32, 0.64, 1.28, 2.56, 5.12, 10.24, 20.48, 40.96, 81.92];
const STEP_S = 60;

/**
 * One histogram series' history, cumulative, a sample a minute after `startS`: every step adds
 * `perStep` observations, all at `valueS` (so every one lands in the first bucket whose bound is ≥ valueS).
 */
const histogramSeries = (name: string, labels: string, startS: number, steps: number, perStep: number, valueS: number): string[] =>
  histogramLines(name, labels, startS + STEP_S, STEP_S, steps, () => perStep, () => valueS, { bounds: BOUNDS });

beforeAll(async () => {
  repo = new TestRepo();
  a = repo.commit('First greeting', { 'greet.prompt': '---\nmodel: gpt-test\n---\nSay hello.\n' });
  b = repo.commit('Longer greeting', { 'greet.prompt': '---\nmodel: gpt-test\n---\nSay hello, warmly.\n' });
  const nowS = Math.floor(Date.now() / 1000);
  const startS = nowS - 6 * 3600;
  const steps = 6 * 60 - 5; // up to five minutes ago
  const va = `gen_ai_prompt_name="greet",gen_ai_prompt_version="${a.slice(0, 7)}",gen_ai_operation_name="chat"`;
  const vb = `gen_ai_prompt_name="greet",gen_ai_prompt_version="${b.slice(0, 7)}",gen_ai_operation_name="chat"`;
  repo.commit('Deploy prompt', { 'deploy.prompt': 'Summarise the release notes for the on-call engineer in three short bullet points.\n' });
  // A version deployed 30 minutes ago: its series appears then, its first sample already holding 10 requests.
  const vc = `gen_ai_prompt_name="deploy",gen_ai_prompt_version="c0ffee1",gen_ai_operation_name="chat"`;
  const om = [
    '# TYPE gen_ai_client_operation_duration_seconds histogram',
    '# UNIT gen_ai_client_operation_duration_seconds seconds',
    ...histogramSeries('gen_ai_client_operation_duration_seconds', vc, nowS - 31 * 60, 30, 10, 0.5),
    ...histogramSeries('gen_ai_client_operation_duration_seconds', va, startS, steps, 10, 0.5),
    ...histogramSeries('gen_ai_client_operation_duration_seconds', vb, startS, steps, 10, 1.0),
    // 2 failed calls a minute for b, none for a
    ...histogramSeries('gen_ai_client_operation_duration_seconds', `${vb},error_type="timeout"`, startS, steps, 2, 30),
    '# TYPE gen_ai_client_operation_time_to_first_chunk_seconds histogram',
    '# UNIT gen_ai_client_operation_time_to_first_chunk_seconds seconds',
    ...histogramSeries('gen_ai_client_operation_time_to_first_chunk_seconds', va, startS, steps, 10, 0.1),
    ...histogramSeries('gen_ai_client_operation_time_to_first_chunk_seconds', vb, startS, steps, 10, 0.3),
    '# TYPE vllm:time_to_first_token_seconds histogram',
    ...histogramSeries('vllm:time_to_first_token_seconds', 'model_name="m"', startS, steps, 20, 0.15),
    // llama.cpp: counters only — 20 prompt tokens at 5 ms each and 10 predicted tokens at 25 ms each, a minute
    '# TYPE llamacpp:prompt_seconds counter',
    ...Array.from({ length: steps }, (_, k) => `llamacpp:prompt_seconds_total ${((k + 1) * 20 * 0.005).toFixed(6)} ${startS + (k + 1) * STEP_S}`),
    '# TYPE llamacpp:prompt_tokens counter',
    ...Array.from({ length: steps }, (_, k) => `llamacpp:prompt_tokens_total ${(k + 1) * 20} ${startS + (k + 1) * STEP_S}`),
    '# TYPE llamacpp:tokens_predicted_seconds counter',
    ...Array.from({ length: steps }, (_, k) => `llamacpp:tokens_predicted_seconds_total ${((k + 1) * 10 * 0.025).toFixed(6)} ${startS + (k + 1) * STEP_S}`),
    '# TYPE llamacpp:tokens_predicted counter',
    ...Array.from({ length: steps }, (_, k) => `llamacpp:tokens_predicted_total ${(k + 1) * 10} ${startS + (k + 1) * STEP_S}`),
  ];
  prometheus = await startRunningPrometheus(om, 'count(count_over_time(gen_ai_client_operation_duration_seconds_count[1h]))');
  prometheusUrl = prometheus.url;
}, 180_000);

afterAll(() => {
  prometheus?.stop();
});

describe('prod --prometheus on backfilled history', () => {
  it('per version over 6 h: requests, errors by type, bucket percentiles, revisions, the error-rate verdict', async () => {
    const { stdout } = await run(process.execPath, [resolve('dist/cli.js'), 'prod', 'greet.prompt', '--prometheus', prometheusUrl, '--since', '6h', '--json'], { cwd: repo.root, timeout: 120_000 });
    const report = JSON.parse(stdout);
    expect(report.versions.map((v: { revision: string }) => v.revision)).toEqual([b, a]);
    const [vb, va] = report.versions;
    // The series began inside the window: its whole count, 10 a minute × 355 minutes, the first scrape's 10 included.
    expect(va.requests).toBe(3550);
    expect(va.errors).toBe(0);
    expect(vb.errors / vb.requests).toBeCloseTo(2 / 12, 2);
    expect(Object.keys(vb.errorsByType)).toEqual(['timeout']);
    // All of a's TTFTs fall in (0.08, 0.16]: the median interpolates to the middle of that bucket.
    expect(va.ttftMs.p50.value).toBeCloseTo(120, 0);
    expect(vb.ttftMs.p50.value).toBeGreaterThan(160);
    expect(vb.ttftMs.p50.value).toBeLessThanOrEqual(320);
    expect(va.ttftMs.p50.ci95).toEqual([null, null]);
    const verdict = report.comparison.verdicts[0];
    expect(verdict).toMatchObject({ metric: 'errorRate', verdict: 'worse', base: a.slice(0, 7), head: b.slice(0, 7) });
    // vLLM's TTFTs are all 0.15 s: in (0.08, 0.16] (the conventions' buckets here), so the median interpolates to 0.12 s.
    expect(report.server).toContainEqual({ engine: 'vLLM', metric: 'TTFT', p50Ms: expect.closeTo(120, 0), p99Ms: expect.closeTo(159.2, 0) });
    expect(report.server).toContainEqual({ engine: 'llama.cpp', metric: 'prefill per token', meanMs: expect.closeTo(5, 3) });
    expect(report.server).toContainEqual({ engine: 'llama.cpp', metric: 'decode per token', meanMs: expect.closeTo(25, 3) });
    expect(report.notes.join('\n')).toMatch(/whole server \(its own metrics, all prompts\): vLLM TTFT p50 120 ms · p99 159 ms; llama\.cpp prefill per token mean 5 ms/);
  });

  it('a version deployed inside the window keeps its first scrape: every request counted (not increase()\'s 290 of 300)', async () => {
    const { stdout } = await run(process.execPath, [resolve('dist/cli.js'), 'prod', 'deploy.prompt', '--prometheus', prometheusUrl, '--since', '6h', '--json'], { cwd: repo.root, timeout: 60_000 });
    const report = JSON.parse(stdout);
    expect(report.versions).toMatchObject([{ version: 'c0ffee1', requests: 300, revision: null }]);
  });

  it('a window before any history has no versions; an invalid window is stated', async () => {
    const { stdout } = await run(process.execPath, [resolve('dist/cli.js'), 'prod', 'greet.prompt', '--prometheus', prometheusUrl, '--since', '1m', '--json'], { cwd: repo.root, timeout: 60_000 });
    expect(JSON.parse(stdout).versions).toEqual([]);
    await expect(run(process.execPath, [resolve('dist/cli.js'), 'prod', 'greet.prompt', '--prometheus', prometheusUrl, '--since', '2026-01-01'], { cwd: repo.root })).rejects.toMatchObject({ code: 1, stderr: expect.stringContaining('takes a duration such as 24h') });
  });
});
