/**
 * `prompt-insight load` keeps the GPU in each point's server view when the metrics URL exports it:
 * the real CLI against the simulator, with `--server-metrics` pointed at a loopback server that serves
 * a DCGM-exporter page (DCGM_FI_DEV_GPU_UTIL in %, DCGM_FI_DEV_FB_USED in MiB). The page alternates
 * between two known states per scrape, so the max and mean over the point's samples are known exactly
 * from the sample count. Without DCGM on the page (a vLLM page) the GPU fields are null and the text says so.
 */
import { type ChildProcess } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../fixtures/cli';
import { startSimProcess } from '../fixtures/simProcess';

const cli = (args: string[], cwd: string) => runCli(args, cwd);

// ~500 ms a request, so a point's steady window spans several 500 ms metric samples.
const startSimCli = () => startSimProcess(['--slots', '2', '--ttft-ms', '300', '--decode-ms-per-token', '20', '--output-tokens', '10', '--jitter-ms', '0']);

/** Two GPU states, alternating per scrape: (util %, framebuffer used MiB). */
const STATES = [
  { util: 40, fbMiB: 1000 },
  { util: 80, fbMiB: 3000 },
] as const;
const MIB = 1024 * 1024;

let sim: ChildProcess;
let simUrl: string;
let dcgm: Server;
let dcgmUrl: string;
let scrapes = 0;
let dir: string;
beforeAll(async () => {
  const started = await startSimCli();
  [sim, simUrl] = [started.child, started.url];
  dcgm = createServer((req, res) => {
    if (req.url === '/vllm/metrics') return void res.writeHead(200, { 'content-type': 'text/plain; version=0.0.4' }).end('# TYPE vllm:num_requests_running gauge\nvllm:num_requests_running{model_name="m"} 1\n# TYPE vllm:num_requests_waiting gauge\nvllm:num_requests_waiting{model_name="m"} 0\n');
    if (req.url !== '/metrics') return void res.writeHead(404).end();
    const s = STATES[scrapes++ % 2]!;
    res.writeHead(200, { 'content-type': 'text/plain; version=0.0.4' }).end(
      [
        '# HELP DCGM_FI_DEV_GPU_UTIL GPU utilization (in %).',
        '# TYPE DCGM_FI_DEV_GPU_UTIL gauge',
        `DCGM_FI_DEV_GPU_UTIL{gpu="0",UUID="GPU-1",device="nvidia0",modelName="NVIDIA L4",Hostname="h"} ${s.util}`,
        '# HELP DCGM_FI_DEV_FB_USED Framebuffer memory used (in MiB).',
        '# TYPE DCGM_FI_DEV_FB_USED gauge',
        `DCGM_FI_DEV_FB_USED{gpu="0",UUID="GPU-1",device="nvidia0",modelName="NVIDIA L4",Hostname="h"} ${s.fbMiB}`,
        '',
      ].join('\n'),
    );
  });
  await new Promise<void>((done) => dcgm.listen(0, '127.0.0.1', done));
  dcgmUrl = `http://127.0.0.1:${(dcgm.address() as AddressInfo).port}/metrics`;
  dir = mkdtempSync(join(tmpdir(), 'pi-load-gpu-'));
  writeFileSync(join(dir, 'ask.prompty'), '---\nname: ask\nmodel:\n  api: chat\n  configuration: { type: openai, name: gpt-4o-mini }\n---\nuser:\nSay something short about GPUs.\n');
});
afterAll(async () => {
  sim?.kill('SIGINT');
  await new Promise((done) => dcgm?.close(done));
});

// One point, concurrency 1, 7 requests: the first and last are left out, the window spans ~5 requests (~2.5 s).
const base = ['--concurrency', '1', '--requests', '7', '--slo', 'ttftMs.p90<=5000', '--attainment', '0.5', '--no-store'];

describe('load: GPU per point from DCGM', () => {
  it('reports GPU util and memory max/mean over the window, equal to what the exporter served', async () => {
    const { code, stdout, stderr } = await cli(['load', 'ask.prompty', '--endpoint', simUrl, '--server-metrics', dcgmUrl, ...base, '--json'], dir);
    expect(stderr).toBe('');
    expect(code).toBe(0);
    const [point] = JSON.parse(stdout).points;
    const server = point.server;
    expect(server).not.toBeNull();
    const n: number = server.samples;
    expect(n).toBeGreaterThanOrEqual(2);
    // The window's samples are consecutive scrapes, so the two states alternate: k of one, n − k of the other.
    const candidates = [Math.floor(n / 2), Math.ceil(n / 2)].map((k) => ({
      util: (k * 0.4 + (n - k) * 0.8) / n,
      memory: ((k * 1000 + (n - k) * 3000) * MIB) / n,
    }));
    expect(server.gpuUtil.max).toBeCloseTo(0.8, 12);
    expect(server.gpuMemoryUsedBytes.max).toBe(3000 * MIB);
    const match = candidates.find((c) => Math.abs(c.util - server.gpuUtil.mean) < 1e-9);
    expect(match, `gpuUtil.mean ${server.gpuUtil.mean} over ${n} samples`).toBeDefined();
    // Utilisation and memory come from the same samples: the same k explains both means.
    expect(server.gpuMemoryUsedBytes.mean).toBeCloseTo(match!.memory, 3);
    // The exporter is not an inference server: the request gauges stay null rather than zero.
    expect(server.requestsRunning).toBeNull();
  });

  it('prints the GPU spread in the text output beside the server view', async () => {
    const { code, stdout } = await cli(['load', 'ask.prompty', '--endpoint', simUrl, '--server-metrics', dcgmUrl, ...base], dir);
    expect(code).toBe(0);
    expect(stdout).toMatch(/Server's own view \(its \/metrics over each point's window, max \/ mean\):/);
    expect(stdout).toMatch(/ {2}concurrency 1: GPU util 80% \/ (5[3-9]|6\d|70)% · GPU memory 2\.93 GiB \/ [12]\.\d\d GiB \(\d+ samples\)/);
  });

  it('GPU fields are null when the metrics URL exports no DCGM, and the text says so', async () => {
    // An inference server's page without DCGM (vLLM's gauges only).
    const simMetrics = dcgmUrl.replace(/\/metrics$/, '/vllm/metrics');
    const json = await cli(['load', 'ask.prompty', '--endpoint', simUrl, '--server-metrics', simMetrics, ...base, '--json'], dir);
    expect(json.code).toBe(0);
    const [point] = JSON.parse(json.stdout).points;
    expect(point.server).not.toBeNull();
    expect(point.server.requestsRunning).toEqual({ max: 1, mean: 1 });
    expect(point.server.gpuUtil).toBeNull();
    expect(point.server.gpuMemoryUsedBytes).toBeNull();
    const text = await cli(['load', 'ask.prompty', '--endpoint', simUrl, '--server-metrics', simMetrics, ...base], dir);
    expect(text.stdout).toMatch(/ {2}concurrency 1: .*GPU not exported \(\d+ samples\)/);
  });
});
