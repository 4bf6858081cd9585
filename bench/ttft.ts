/**
 * TTFT accuracy and load, against the simulator with scripted timings running in its own process.
 * Two references for true TTFT: the wire (a packet capture, wireCapture.ts) and the simulator's own
 * report of when it wrote the first token. curl's time_starttransfer on the same endpoint is the
 * peer (the simulator sends headers with the first token, so curl's first byte is the first token).
 */
import { execFile } from 'node:child_process';
import { resolve } from 'node:path';
import { connections } from '../src/core/endpoint/connectionPool';
import { socketWire } from '../src/core/endpoint/socketIo';
import type { Wire } from '../src/core/endpoint/wire';
import { workerWire } from '../src/core/endpoint/workerWire';
import { batchRunner } from '../src/core/endpoint/batch';
import { runOnce } from '../src/core/run/runOnce';
import { httpTransport } from '../src/core/endpoint/transport';
import type { ChatRequest } from '../src/core/endpoint/types';
import { startSimProcess, type SimProcess } from '../test/fixtures/simProcess';
import { fmt, median, quantile, table } from './stats';
import { startWireCapture, wireMarker } from './wireCapture';

const TRUE_TTFT_MS = 100;

/** The simulator with scripted timings: no jitter, no prefill cost. */
function startSim(args: string[]): Promise<SimProcess> {
  return startSimProcess(['--jitter-ms', '0', '--prefill-ms-per-token', '0', ...args]);
}

/** One request per marker, so the wire reference can tell requests apart. */
const requestWith = (marker: string): ChatRequest => ({ model: 'sim', messages: [{ role: 'user', content: `Find homes nearby. ${marker}` }], params: {} });
let nextMarker = 0;

/** Client-measured TTFT minus a reference, per request. */
interface Errors {
  /** vs the wire (packet capture); empty without a capture. */
  wire: number[];
  /** vs the simulator's own report of when it wrote the first token. */
  simulator: number[];
}

interface Measured {
  clientTtft: number;
  simulatorTtft: number;
  marker: string;
}

function errorsOf(measured: Measured[], wire: Map<string, number> | undefined): Errors {
  return {
    wire: wire ? measured.filter((m) => wire.has(m.marker)).map((m) => m.clientTtft - wire.get(m.marker)!) : [],
    simulator: measured.map((m) => m.clientTtft - m.simulatorTtft),
  };
}

/** The two places the product's sockets can live: a worker thread (the default) and the decoding thread (the fallback). */
const inThread = socketWire(connections, () => performance.now());
const WIRES: Record<'worker' | 'thread', Wire> = { worker: workerWire(resolve('dist/socketWorker.js'), inThread), thread: inThread };
const WIRE_LABEL = { worker: 'sockets in a worker', thread: 'sockets on the main thread' };

async function ours(url: string, runs: number, concurrency: number, wire: keyof typeof WIRES = 'worker'): Promise<{ measured: Measured[]; failed: number; cpuMsPerStream: number; tokens: number }> {
  const transport = httpTransport({ name: 'sim', provider: 'openai', baseUrl: url }, undefined, WIRES[wire]);
  const cpu = process.cpuUsage();
  const outcomes = await batchRunner(
    () => {
      const marker = wireMarker(nextMarker++);
      return runOnce(transport, requestWith(marker), { timeoutMs: 60_000, countTokens: () => 1, inputTokensEstimate: null, maxRetries: 0 }).then((outcome) => ({ outcome, marker }));
    },
    { runs, concurrency, warmup: 0 },
  );
  const used = process.cpuUsage(cpu);
  const ok = outcomes.filter(({ outcome: o }) => o.record.ok && o.record.server?.ttftMs !== undefined);
  return {
    measured: ok.map(({ outcome: o, marker }) => ({ clientTtft: o.record.ttftMs!, simulatorTtft: o.record.server!.ttftMs!, marker })),
    failed: outcomes.length - ok.length,
    cpuMsPerStream: (used.user + used.system) / 1000 / outcomes.length,
    tokens: ok.reduce((s, { outcome: o }) => s + (o.record.outputTokens ?? 0), 0),
  };
}

/** curl, `perProcess` sequential requests per process (one connection), `processes` in parallel. */
async function curl(url: string, processes: number, perProcess: number): Promise<Measured[]> {
  const one = (): Promise<Measured[]> =>
    new Promise((done, fail) => {
      const args: string[] = [];
      const markers: string[] = [];
      for (let i = 0; i < perProcess; i++) {
        const marker = wireMarker(nextMarker++);
        markers.push(marker);
        const body = JSON.stringify({ ...requestWith(marker), stream: true, stream_options: { include_usage: true } });
        args.push(...(i > 0 ? ['--next'] : []), '-s', '-N', '-H', 'content-type: application/json', '-d', body, '-w', '\n@@%{time_starttransfer}\n', `${url}/chat/completions`);
      }
      execFile('curl', args, { maxBuffer: 64 * 1024 * 1024 }, (error, stdout) => {
        if (error) return fail(error);
        const measured: Measured[] = [];
        let serverTtft: number | undefined;
        let index = 0;
        for (const line of stdout.split('\n')) {
          const sim = /"x_sim":\{"ttft_ms":([\d.]+)/.exec(line);
          if (sim) serverTtft = Number(sim[1]);
          const timing = /^@@([\d.]+)$/.exec(line);
          if (timing) {
            if (serverTtft !== undefined) measured.push({ clientTtft: Number(timing[1]) * 1000, simulatorTtft: serverTtft, marker: markers[index]! });
            serverTtft = undefined;
            index++;
          }
        }
        done(measured);
      });
    });
  return (await Promise.all(Array.from({ length: processes }, one))).flat();
}

export async function benchTtft(): Promise<string> {
  const out: string[] = [
    '## TTFT accuracy (measured − true TTFT, ms) and load',
    '',
    `Simulator in its own process, scripted TTFT ${TRUE_TTFT_MS} ms, no jitter. True TTFT, two references: **wire** = a packet capture on lo (tcpdump, kernel timestamps) from the request's packet to the packet carrying its first content token; **simulator** = when the simulator wrote the first token by its own clock from when it had read the request, which its event loop (GC, a burst of arrivals) can stamp late, so that column counts the simulator's delays as client error.`,
    '',
  ];
  const sim = await startSim(['--ttft-ms', String(TRUE_TTFT_MS), '--decode-ms-per-token', '5', '--output-tokens', '20']);
  try {
    for (const wire of ['worker', 'thread'] as const) await ours(sim.url, 20, 4, wire); // warm the JIT and the connection pools
    const capture = await startWireCapture(Number(new URL(sim.url).port));
    const rows: { client: string; measured: Measured[]; runs: number }[] = [];
    for (const [concurrency, runs] of [[1, 200], [64, 640]] as const) {
      for (const wire of ['worker', 'thread'] as const) {
        const measured = await ours(sim.url, runs, concurrency, wire);
        rows.push({ client: `Prompt Insight (${WIRE_LABEL[wire]}), concurrency ${concurrency}`, measured: measured.measured, runs });
      }
      const reference = concurrency === 1 ? await curl(sim.url, 1, runs) : await curl(sim.url, concurrency, runs / concurrency);
      rows.push({ client: `curl time_starttransfer, ${concurrency === 1 ? 'sequential' : `${concurrency} processes`}`, measured: reference, runs });
    }
    const wire = typeof capture === 'string' ? undefined : await capture.stop();
    const cells = (values: number[]): string[] => (values.length === 0 ? ['n/a', 'n/a', 'n/a'] : [fmt(median(values), 2), fmt(quantile(values, 0.99), 2), fmt(Math.max(...values), 2)]);
    out.push(
      table(
        ['client', 'n', 'vs wire: median', 'p99', 'max', 'vs simulator: median', 'p99', 'max', 'failed'],
        rows.map(({ client, measured, runs }) => {
          const errors = errorsOf(measured, wire?.ttftByMarker);
          return [client, measured.length, ...cells(errors.wire), ...cells(errors.simulator), runs - measured.length];
        }),
      ),
      '',
      typeof capture === 'string' ? `No wire reference: ${capture}.` : `Wire reference: ${wire!.ttftByMarker.size} requests captured, ${wire!.dropped} packets dropped by the kernel.`,
      '',
      'Bar: median ≤ 1 ms, p99 ≤ 5 ms at concurrency 1 and 64.',
      '',
    );
  } finally {
    sim.child.kill('SIGINT');
  }
  // Load: 256 concurrent streams of 200 tokens each (20 ms per token).
  const loaded = await startSim(['--ttft-ms', '200', '--decode-ms-per-token', '20', '--output-tokens', '200']);
  try {
    const capture = await startWireCapture(Number(new URL(loaded.url).port));
    const load = await ours(loaded.url, 256, 256);
    const wire = typeof capture === 'string' ? undefined : await capture.stop();
    const errors = errorsOf(load.measured, wire?.ttftByMarker);
    const ms = (values: number[], q: number): string => (values.length === 0 ? 'n/a' : `${fmt(quantile(values, q), 2)} ms`);
    out.push(
      table(['load', 'streams', 'client errors', 'TTFT − wire: median', 'p99', 'TTFT − simulator: median', 'p99', 'client CPU per stream', 'client CPU per token'], [
        ['256 concurrent streams', 256, load.failed, ms(errors.wire, 0.5), ms(errors.wire, 0.99), ms(errors.simulator, 0.5), ms(errors.simulator, 0.99), `${fmt(load.cpuMsPerStream, 2)} ms`, `${fmt((load.cpuMsPerStream * 256 * 1000) / Math.max(1, load.tokens), 1)} µs`],
      ]),
    );
  } finally {
    loaded.child.kill('SIGINT');
  }
  return out.join('\n');
}
