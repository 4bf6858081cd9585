/**
 * `load --prometheus URL --prometheus-selector 'job="sim"'`: the server's prefix-cache counters read
 * through a real Prometheus (Debian's) that scrapes the simulator every 500 ms, instead of the
 * server's own /metrics. A Prometheus reading is as old as its last scrape, so each reading waits for
 * a scrape after the moment it stands for: the counters per point must equal those read straight
 * from the server — which they would not if the "after" reading missed the point's last requests.
 * The simulator counts each request's input tokens as queries and 30% of them as hits.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSimProcess, type SimProcess } from '../fixtures/simProcess';
import { startScrapingPrometheus, type RunningPrometheus } from './prometheusServer';
import { runCli } from '../fixtures/cli';

const cli = (args: string[], cwd: string) => runCli(args, cwd);

let sim: SimProcess;
let prometheus: RunningPrometheus | undefined;
let prometheusUrl: string;
let dir: string;

beforeAll(async () => {
  sim = await startSimProcess(['--slots', '2', '--ttft-ms', '15', '--decode-ms-per-token', '1', '--output-tokens', '10', '--jitter-ms', '0', '--prefix-cache-hit-rate', '0.3']);
  dir = mkdtempSync(join(tmpdir(), 'pi-load-prom-'));
  prometheus = await startScrapingPrometheus('sim', new URL(sim.url).host, 'vllm:prefix_cache_queries_total{job="sim"}');
  prometheusUrl = prometheus.url;
  writeFileSync(join(dir, 'ask.prompty'), '---\nname: ask\nmodel:\n  api: chat\n  configuration: { type: openai, name: gpt-4o-mini }\n---\nuser:\nSay something short about prefix caches and why a warm one makes latency look better than it is.\n');
}, 120_000);

afterAll(() => {
  prometheus?.stop();
  sim?.child.kill('SIGINT');
});

const base = ['load', 'ask.prompty', '--concurrency', '1,2', '--requests', '8', '--slo', 'ttftMs.p90<=5000', '--attainment', '0.5', '--no-store', '--json'];
type Counters = { source: string; hits: number; queries: number; hitRate: number; warm: boolean };

describe('load: prefix-cache counters through Prometheus', () => {
  it('each point counts exactly its own requests, as read straight from the server; the point is flagged warm', async () => {
    const throughPrometheus = await cli([...base, '--endpoint', sim.url, '--prometheus', prometheusUrl, '--prometheus-selector', 'job="sim"'], dir);
    expect(throughPrometheus.stderr).toBe('');
    expect(throughPrometheus.code).toBe(0);
    const direct = await cli([...base, '--endpoint', sim.url, '--server-metrics', sim.url.replace(/\/v1$/, '/metrics')], dir);
    expect(direct.code).toBe(0);
    const viaProm = JSON.parse(throughPrometheus.stdout).points.map((p: { cache: { counters: Counters } }) => p.cache.counters);
    const straight = JSON.parse(direct.stdout).points.map((p: { cache: { counters: Counters } }) => p.cache.counters);
    expect(viaProm).toHaveLength(2);
    for (const [i, c] of viaProm.entries()) {
      expect(c.source).toBe('server-counters');
      // The same prompt, eight requests a point: the same queries and hits whichever way they are read.
      expect([c.queries, c.hits]).toEqual([straight[i].queries, straight[i].hits]);
      expect(c.queries).toBeGreaterThan(0);
      expect(c.hitRate).toBeCloseTo(0.3, 1);
      expect(c.warm).toBe(true);
    }
  }, 120_000);

  it('a selector matching no scraped series: the points go on and say why their cache state is unknown', async () => {
    const { code, stdout } = await cli([...base, '--endpoint', sim.url, '--prometheus', prometheusUrl, '--prometheus-selector', 'job="nobody"'], dir);
    expect(code).toBe(0);
    const points = JSON.parse(stdout).points as { sent: number; cache: { counters: { source: string; reason: string } } }[];
    expect(points.map((p) => p.sent)).toEqual([8, 8]);
    for (const p of points) {
      expect(p.cache.counters.source).toBe('none');
      expect(p.cache.counters.reason).toBe(`before the point: Prometheus at ${prometheusUrl} holds no prefix-cache hit counters for job="nobody" (vllm:prefix_cache_hits_total / vllm:prefix_cache_queries_total)`);
    }
  }, 60_000);
});
