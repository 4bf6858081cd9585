/**
 * TTFT accuracy and load, against the simulator with scripted timings running in its own process.
 * The simulator reports, per request, when it actually wrote the first token (from the end of the
 * request body); measured − true is the client's error. curl's time_starttransfer on the same
 * endpoint is the reference (the simulator sends headers with the first token, so curl's first byte
 * is the first token).
 */
import { execFile } from 'node:child_process';
import { batchRunner } from '../src/core/endpoint/batch';
import { runOnce } from '../src/core/endpoint/runOnce';
import { httpTransport } from '../src/core/endpoint/transport';
import type { ChatRequest } from '../src/core/endpoint/types';
import { startSimProcess, type SimProcess } from '../test/fixtures/simProcess';
import { fmt, median, quantile, table } from './stats';

const TRUE_TTFT_MS = 100;

/** The simulator with scripted timings: no jitter, no prefill cost. */
function startSim(args: string[]): Promise<SimProcess> {
  return startSimProcess(['--jitter-ms', '0', '--prefill-ms-per-token', '0', ...args]);
}

const request: ChatRequest = { model: 'sim', messages: [{ role: 'user', content: 'Find homes nearby.' }], params: {} };

async function ours(url: string, runs: number, concurrency: number): Promise<{ errors: number[]; failed: number; cpuMsPerStream: number; tokens: number }> {
  const transport = httpTransport({ name: 'sim', provider: 'openai', baseUrl: url }, undefined);
  const cpu = process.cpuUsage();
  const outcomes = await batchRunner(() => runOnce(transport, request, { timeoutMs: 60_000, countTokens: () => 1, inputTokensEstimate: null, maxRetries: 0 }), { runs, concurrency, warmup: 0 });
  const used = process.cpuUsage(cpu);
  const ok = outcomes.filter((o) => o.record.ok && o.record.server?.ttftMs !== undefined);
  return {
    errors: ok.map((o) => o.record.ttftMs! - o.record.server!.ttftMs!),
    failed: outcomes.length - ok.length,
    cpuMsPerStream: (used.user + used.system) / 1000 / outcomes.length,
    tokens: ok.reduce((s, o) => s + (o.record.outputTokens ?? 0), 0),
  };
}

/** curl, `perProcess` sequential requests per process, `processes` in parallel; error vs the server's own first-write time. */
async function curl(url: string, processes: number, perProcess: number): Promise<number[]> {
  const body = JSON.stringify({ ...request, stream: true, stream_options: { include_usage: true } });
  const one = (): Promise<number[]> =>
    new Promise((done, fail) => {
      const args: string[] = [];
      for (let i = 0; i < perProcess; i++) args.push(...(i > 0 ? ['--next'] : []), '-s', '-N', '-H', 'content-type: application/json', '-d', body, '-w', '\n@@%{time_starttransfer}\n', `${url}/chat/completions`);
      execFile('curl', args, { maxBuffer: 64 * 1024 * 1024 }, (error, stdout) => {
        if (error) return fail(error);
        const errors: number[] = [];
        let serverTtft: number | undefined;
        for (const line of stdout.split('\n')) {
          const sim = /"x_sim":\{"ttft_ms":([\d.]+)/.exec(line);
          if (sim) serverTtft = Number(sim[1]);
          const timing = /^@@([\d.]+)$/.exec(line);
          if (timing && serverTtft !== undefined) {
            errors.push(Number(timing[1]) * 1000 - serverTtft);
            serverTtft = undefined;
          }
        }
        done(errors);
      });
    });
  return (await Promise.all(Array.from({ length: processes }, one))).flat();
}

export async function benchTtft(): Promise<string> {
  const out: string[] = ['## TTFT accuracy (measured − true TTFT, ms) and load', '', `Simulator in its own process, scripted TTFT ${TRUE_TTFT_MS} ms, no jitter; true TTFT = when the simulator wrote the first token, which it reports in the stream.`, ''];
  const sim = await startSim(['--ttft-ms', String(TRUE_TTFT_MS), '--decode-ms-per-token', '5', '--output-tokens', '20']);
  try {
    await ours(sim.url, 20, 4); // warm the JIT and the connection pool
    const rows: (string | number)[][] = [];
    for (const [concurrency, runs] of [[1, 200], [64, 640]] as const) {
      const measured = await ours(sim.url, runs, concurrency);
      rows.push([`Prompt Insight, concurrency ${concurrency}`, measured.errors.length, fmt(median(measured.errors), 2), fmt(quantile(measured.errors, 0.99), 2), fmt(Math.max(...measured.errors), 2), measured.failed]);
      const reference = concurrency === 1 ? await curl(sim.url, 1, runs) : await curl(sim.url, concurrency, runs / concurrency);
      rows.push([`curl time_starttransfer, ${concurrency === 1 ? 'sequential' : `${concurrency} processes`}`, reference.length, fmt(median(reference), 2), fmt(quantile(reference, 0.99), 2), fmt(Math.max(...reference), 2), runs - reference.length]);
    }
    out.push(table(['client', 'n', 'median', 'p99', 'max', 'failed'], rows), '', 'Bar: median ≤ 1 ms, p99 ≤ 5 ms at concurrency 1 and 64.', '');
  } finally {
    sim.child.kill('SIGINT');
  }
  // Load: 256 concurrent streams of 200 tokens each (20 ms per token).
  const loaded = await startSim(['--ttft-ms', '200', '--decode-ms-per-token', '20', '--output-tokens', '200']);
  try {
    const load = await ours(loaded.url, 256, 256);
    out.push(
      table(['load', 'streams', 'client errors', 'TTFT error median', 'TTFT error p99', 'client CPU per stream', 'client CPU per token'], [
        ['256 concurrent streams', 256, load.failed, `${fmt(median(load.errors), 2)} ms`, `${fmt(quantile(load.errors, 0.99), 2)} ms`, `${fmt(load.cpuMsPerStream, 2)} ms`, `${fmt((load.cpuMsPerStream * 256 * 1000) / Math.max(1, load.tokens), 1)} µs`],
      ]),
    );
  } finally {
    loaded.child.kill('SIGINT');
  }
  return out.join('\n');
}
