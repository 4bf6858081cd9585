/**
 * `prompt-insight load` reads the server's prefix-cache counters before and after each point and
 * reports the point's hit rate, flagging it warm at 1% or more. The truth is known: the simulator
 * (started with the real CLI, `sim --prefix-cache-hit-rate R`) counts each request's input tokens as
 * queries and R of them as hits. Without counters the point says why instead of guessing.
 */
import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { countersFromText } from '../../src/core/load/prefixCacheCounters';
import { startSimProcess } from '../fixtures/simProcess';
import { runCli } from '../fixtures/cli';

const cli = (args: string[], cwd: string) => runCli(args, cwd);

/** The simulator as the user starts it (the real CLI), two slots, quick answers. */
const startSimCli = (extra: string[]) => startSimProcess(['--slots', '2', '--ttft-ms', '15', '--decode-ms-per-token', '1', '--output-tokens', '10', '--jitter-ms', '0', ...extra]);

const sims: ChildProcess[] = [];
let warmUrl: string;
let coldUrl: string;
let plainUrl: string;
let dir: string;
beforeAll(async () => {
  const [warm, cold, plain] = await Promise.all([startSimCli(['--prefix-cache-hit-rate', '0.3']), startSimCli(['--prefix-cache-hit-rate', '0']), startSimCli([])]);
  for (const s of [warm, cold, plain]) sims.push(s.child);
  [warmUrl, coldUrl, plainUrl] = [warm.url, cold.url, plain.url];
  dir = mkdtempSync(join(tmpdir(), 'pi-load-cache-'));
  writeFileSync(join(dir, 'ask.prompty'), '---\nname: ask\nmodel:\n  api: chat\n  configuration: { type: openai, name: gpt-4o-mini }\n---\nuser:\nSay something short about prefix caches and why a warm one makes latency look better than it is.\n');
});
afterAll(() => {
  for (const child of sims) child.kill('SIGINT');
});

const metricsOf = (url: string) => url.replace(/\/v1$/, '/metrics');
const base = ['--requests', '8', '--slo', 'ttftMs.p90<=5000', '--attainment', '0.5', '--no-store'];

describe('load: prefix-cache counters per point', () => {
  it('reads the counters before and after each point: the hit rate is the server\'s truth, and the point is flagged warm', async () => {
    const { code, stdout, stderr } = await cli(['load', 'ask.prompty', '--endpoint', warmUrl, '--server-metrics', metricsOf(warmUrl), '--concurrency', '1,2', ...base, '--json'], dir);
    expect(stderr).toBe('');
    expect(code).toBe(0);
    const points = JSON.parse(stdout).points;
    expect(points).toHaveLength(2);
    for (const point of points) {
      const c = point.cache.counters;
      expect(c.source).toBe('server-counters');
      // Each point holds its own 8 requests only (counters are cumulative on the server): queries = 8 × the input tokens.
      expect(point.inputTokens).toBeGreaterThan(10);
      expect(c.queries).toBe(8 * point.inputTokens);
      expect(c.hits).toBe(8 * Math.round(point.inputTokens * 0.3));
      expect(c.hitRate).toBeCloseTo(c.hits / c.queries, 10);
      expect(Math.abs(c.hitRate - 0.3)).toBeLessThan(0.02);
      expect(c.warm).toBe(true);
      expect(point.notes.some((n: string) => n.startsWith('warm: the server\'s prefix-cache counters show a'))).toBe(true);
    }
  });

  it('text output flags the warm point and quotes the hit rate', async () => {
    const { code, stdout } = await cli(['load', 'ask.prompty', '--endpoint', warmUrl, '--server-metrics', metricsOf(warmUrl), '--concurrency', '2', ...base], dir);
    expect(code).toBe(0);
    expect(stdout).toMatch(/concurrency 2 .* · WARM \(prefix cache hits\)/);
    expect(stdout).toMatch(/Prefix cache \(the server's counters, before and after each point\): concurrency 2 (29|30|31)\.\d% WARM\./);
    expect(stdout).toMatch(/Note — concurrency 2: warm: the server's prefix-cache counters show a/);
  });

  it('a server whose counters show no hits: hit rate 0, not warm', async () => {
    const { code, stdout } = await cli(['load', 'ask.prompty', '--endpoint', coldUrl, '--server-metrics', metricsOf(coldUrl), '--concurrency', '2', ...base, '--json'], dir);
    expect(code).toBe(0);
    const [point] = JSON.parse(stdout).points;
    expect(point.cache.counters).toMatchObject({ source: 'server-counters', hits: 0, hitRate: 0, warm: false });
    expect(point.cache.counters.queries).toBe(8 * point.inputTokens);
    expect(point.notes.some((n: string) => n.startsWith('warm:'))).toBe(false);
  });

  it('no counters: said, with the reason — no /metrics given, or a /metrics that cannot be read', async () => {
    const none = await cli(['load', 'ask.prompty', '--endpoint', plainUrl, '--concurrency', '1', ...base, '--json'], dir);
    expect(none.code).toBe(0);
    expect(JSON.parse(none.stdout).points[0].cache.counters).toEqual({ source: 'none', hits: null, queries: null, hitRate: null, warm: false, reason: expect.stringContaining('give --server-metrics URL') });
    const missing = await cli(['load', 'ask.prompty', '--endpoint', plainUrl, '--server-metrics', metricsOf(plainUrl), '--concurrency', '1', ...base, '--json'], dir);
    expect(missing.code).toBe(0);
    const counters = JSON.parse(missing.stdout).points[0].cache.counters;
    expect(counters).toMatchObject({ source: 'none', hitRate: null, warm: false });
    expect(counters.reason).toMatch(/^before the point: http:\/\/127\.0\.0\.1:\d+\/metrics could not be read \(.*404/);
    const text = await cli(['load', 'ask.prompty', '--endpoint', plainUrl, '--concurrency', '1', ...base], dir);
    expect(text.stdout).toMatch(/Prefix cache: not known from the server's counters — no metrics to read prefix-cache counters from \(give --server-metrics URL or --prometheus URL/);
    const bad = await cli(['load', 'ask.prompty', '--endpoint', plainUrl, '--server-metrics', 'file:///etc/passwd', '--concurrency', '1', ...base], dir);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/--server-metrics takes the http\(s\) URL/);
  });

  it('accepts the older vLLM names and sums the series across models', () => {
    expect(countersFromText('# TYPE vllm:gpu_prefix_cache_hits counter\nvllm:gpu_prefix_cache_hits{model_name="a"} 5\nvllm:gpu_prefix_cache_hits{model_name="b"} 7\n# TYPE vllm:gpu_prefix_cache_queries counter\nvllm:gpu_prefix_cache_queries{model_name="a"} 100\nvllm:gpu_prefix_cache_queries{model_name="b"} 20')).toEqual({ hits: 12, queries: 120 });
    expect(countersFromText('# TYPE vllm:num_requests_running gauge\nvllm:num_requests_running 1\n')).toEqual({ reason: expect.stringContaining('exports no prefix-cache hit counters') });
  });
});
