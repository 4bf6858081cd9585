/**
 * Is the load generator the bottleneck? `load` sends open-loop Poisson arrivals and closed-loop
 * concurrency through the product's own client (sockets in a worker) against the simulator in its
 * own process, whose scripted TTFT is the truth. Per level: how late requests went out against their
 * schedule (dispatch delay) and how far the client's TTFT is from the simulator's own report of when
 * it wrote the first token (TTFT error), p50/p99. The peer: autocannon (npm), a plain HTTP load
 * generator, on the same endpoint and the same streaming request at the same connection counts —
 * requests/s and latency as it measures them (it cannot see the first token).
 */
import { execFile } from 'node:child_process';
import { resolve } from 'node:path';
import { promisify } from 'node:util';
import { batchRunner } from '../src/core/endpoint/batch';
import { connections } from '../src/core/endpoint/connectionPool';
import { runOnce } from '../src/core/run/runOnce';
import { socketWire } from '../src/core/endpoint/socketIo';
import { httpTransport } from '../src/core/endpoint/transport';
import type { ChatRequest } from '../src/core/endpoint/types';
import { workerWire } from '../src/core/endpoint/workerWire';
import { seededRandom } from '../src/core/stats/random';
import { startSimProcess } from '../test/fixtures/simProcess';
import { fmt, quantile, table } from './stats';

const run = promisify(execFile);
const BAR_MS = 5;
const SECONDS_PER_LEVEL = Number(process.env.LOAD_BENCH_SECONDS ?? 4);
const request: ChatRequest = { model: 'sim', messages: [{ role: 'user', content: 'Find homes nearby.' }], params: { max_tokens: 20 } };

interface Level {
  label: string;
  sent: number;
  failed: number;
  requestsPerSec: number;
  dispatch: number[];
  ttftError: number[];
}

async function ours(url: string, options: { ratePerSec?: number; concurrency: number; runs: number }): Promise<Level> {
  const transport = httpTransport({ name: 'sim', provider: 'openai', baseUrl: url }, undefined, workerWire(resolve('dist/socketWorker.js'), socketWire(connections, () => performance.now())));
  const dispatch: number[] = [];
  const started = performance.now();
  const outcomes = await batchRunner(
    () => runOnce(transport, request, { timeoutMs: 30_000, countTokens: () => 1, inputTokensEstimate: null, maxRetries: 0 }),
    { runs: options.runs, concurrency: options.concurrency, warmup: 0, ...(options.ratePerSec ? { ratePerSec: options.ratePerSec } : {}), random: seededRandom(1), onDispatchDelay: (_i, d) => dispatch.push(d) },
  );
  const seconds = (performance.now() - started) / 1000;
  const ok = outcomes.filter((o) => o.record.ok && o.record.server?.ttftMs !== undefined && o.record.ttftMs !== null);
  return {
    label: options.ratePerSec ? `${options.ratePerSec}/s open loop` : `concurrency ${options.concurrency}`,
    sent: outcomes.length,
    failed: outcomes.length - ok.length,
    requestsPerSec: outcomes.length / seconds,
    dispatch,
    ttftError: ok.map((o) => o.record.ttftMs! - o.record.server!.ttftMs!),
  };
}

async function autocannon(url: string, connections: number): Promise<{ requestsPerSec: number; p50: number; p99: number; errors: number }> {
  const { stdout } = await run(process.execPath, [resolve('node_modules/autocannon/autocannon.js'), '-j', '-c', String(connections), '-d', String(SECONDS_PER_LEVEL), '-m', 'POST', '-H', 'content-type=application/json', '-b', JSON.stringify({ model: 'sim', stream: true, messages: request.messages, max_tokens: 20 }), `${url}/chat/completions`], { maxBuffer: 64 * 1024 * 1024 });
  const json = JSON.parse(stdout) as { requests: { average: number }; latency: { p50: number; p99: number }; errors: number; non2xx: number };
  return { requestsPerSec: json.requests.average, p50: json.latency.p50, p99: json.latency.p99, errors: json.errors + json.non2xx };
}

export async function benchLoad(): Promise<string> {
  // A simulator with a fixed 50 ms TTFT, 20 tokens at 2 ms: ~90 ms per request, unlimited slots.
  const sim = await startSimProcess(['--ttft-ms', '50', '--decode-ms-per-token', '2', '--output-tokens', '20', '--jitter-ms', '0', '--prefill-ms-per-token', '0']);
  try {
    // Warm-up, not reported: the socket worker, connections and the JIT get going.
    await ours(sim.url, { concurrency: 8, runs: 80 });
    const rows: (string | number)[][] = [];
    let bestRate = 0;
    for (const rate of [25, 50, 100, 200, 400]) {
      const level = await ours(sim.url, { ratePerSec: rate, concurrency: 100_000, runs: Math.round(rate * SECONDS_PER_LEVEL) });
      const meets = quantile(level.dispatch, 0.99) < BAR_MS && quantile(level.ttftError, 0.99) < BAR_MS && level.failed === 0;
      if (meets) bestRate = rate;
      rows.push(['ours', level.label, level.sent, level.failed, fmt(level.requestsPerSec), fmt(quantile(level.dispatch, 0.5), 2), fmt(quantile(level.dispatch, 0.99), 2), fmt(quantile(level.ttftError, 0.5), 2), fmt(quantile(level.ttftError, 0.99), 2), meets ? 'yes' : 'no']);
    }
    let bestConcurrency = 0;
    for (const concurrency of [8, 32, 64, 128]) {
      const level = await ours(sim.url, { concurrency, runs: Math.round((concurrency / 0.09) * SECONDS_PER_LEVEL * 0.5) });
      const meets = quantile(level.ttftError, 0.99) < BAR_MS && level.failed === 0;
      if (meets) bestConcurrency = concurrency;
      rows.push(['ours', level.label, level.sent, level.failed, fmt(level.requestsPerSec), '–', '–', fmt(quantile(level.ttftError, 0.5), 2), fmt(quantile(level.ttftError, 0.99), 2), meets ? 'yes' : 'no']);
      const peer = await autocannon(sim.url, concurrency);
      rows.push(['autocannon', `${concurrency} connections`, '–', peer.errors, fmt(peer.requestsPerSec), '–', '–', `latency p50 ${peer.p50} ms`, `p99 ${peer.p99} ms`, '(no TTFT)']);
    }
    return [
      '## Load generator (is the client the bottleneck?)',
      '',
      `\`npm run bench load\` — the simulator in its own process (TTFT 50 ms scripted, 20 tokens at 2 ms); ${SECONDS_PER_LEVEL} s per level; dispatch delay = actual send − scheduled arrival; TTFT error = client TTFT − the simulator's own first-token time. Bar: p99 < ${BAR_MS} ms.`,
      '',
      table(['client', 'level', 'sent', 'failed', 'req/s', 'dispatch p50 ms', 'dispatch p99 ms', 'TTFT error p50 ms', 'TTFT error p99 ms', `within ${BAR_MS} ms`], rows),
      '',
      `Highest open-loop rate within the bar: ${bestRate || 'none'} req/s; highest concurrency within the bar: ${bestConcurrency || 'none'}.`,
    ].join('\n');
  } finally {
    sim.child.kill();
  }
}
