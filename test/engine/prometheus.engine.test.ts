/**
 * The path for clusters: a real Prometheus (Debian's 2.42) scrapes the test's llama-server, and
 * `prompt-insight run --prometheus URL --prometheus-selector 'job="llama"'` reads the server's
 * metrics through Prometheus' HTTP API while the runs go on.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startLlamaServer, type LlamaServer } from './llamaServer';
import { startScrapingPrometheus, type RunningPrometheus } from './prometheusServer';

const run = promisify(execFile);
let llama: LlamaServer;
let prometheus: RunningPrometheus | undefined;
let prometheusUrl: string;
let dir: string;


beforeAll(async () => {
  llama = await startLlamaServer();
  dir = mkdtempSync(join(tmpdir(), 'pi-prom-'));
  // Ready, and the llama job scraped at least once.
  prometheus = await startScrapingPrometheus('llama', new URL(llama.url).host, 'llamacpp:requests_processing{job="llama"}');
  prometheusUrl = prometheus.url;
  writeFileSync(join(dir, 'p.prompty'), `---\nname: p\nmodel:\n  api: chat\n  parameters:\n    max_tokens: 48\n---\nsystem:\n${'You list homes for sale; a home is a single-family house. '.repeat(25)}\nuser:\nFind homes nearby.\n`);
}, 120_000);

afterAll(async () => {
  prometheus?.stop();
  await llama?.stop();
});

describe('server metrics through a Prometheus server', () => {
  it('samples llama-server through Prometheus: requests running while the runs go on, on the runs\' clock', async () => {
    const { stdout } = await run(process.execPath, [resolve('dist/cli.js'), 'run', join(dir, 'p.prompty'), '--endpoint', `${llama.url}/v1`, '--model', 'm', '--runs', '4', '--json', '--no-store', '--prometheus', prometheusUrl, '--prometheus-selector', 'job="llama"'], { timeout: 120_000 });
    const result = JSON.parse(stdout);
    expect(result.server.promqlSelector).toBe('job="llama"');
    const samples = result.server.metrics as { t: number; requestsRunning?: number; raw: Record<string, number> }[];
    expect(samples.length).toBeGreaterThanOrEqual(3);
    expect(Math.max(...samples.map((s) => s.requestsRunning ?? 0))).toBe(1);
    expect(samples.at(-1)!.raw['llamacpp:tokens_predicted_total']).toBeGreaterThan(0);
  });

  it('a selector that matches nothing, or one that tries to close the query, is a gap or a usage error, never a stop', async () => {
    const { stdout } = await run(process.execPath, [resolve('dist/cli.js'), 'run', join(dir, 'p.prompty'), '--endpoint', `${llama.url}/v1`, '--model', 'm', '--runs', '1', '--json', '--no-store', '--prometheus', prometheusUrl, '--prometheus-selector', 'job="nothing"'], { timeout: 120_000 });
    const result = JSON.parse(stdout);
    expect(result.runs[0].ok).toBe(true);
    expect(result.server.metricsGaps.map((g: { error: string }) => g.error)).toContain('the query matched no series');
    await expect(run(process.execPath, [resolve('dist/cli.js'), 'run', join(dir, 'p.prompty'), '--endpoint', `${llama.url}/v1`, '--prometheus', prometheusUrl, '--prometheus-selector', 'job="x"} or vector(1'])).rejects.toMatchObject({ code: 2 });
  });
});
