/**
 * Does an open-loop rate stay bounded in memory? `load --rate 50000 --duration 1` (the built CLI, a
 * child process) against a loopback server that accepts every connection and never answers: the
 * arrivals outrun the endpoint from the first millisecond. Reported: the child's peak resident set
 * (process.resourceUsage().maxRSS, written as it exits), how long it ran, and what the cap on requests
 * in flight did to the arrivals. Bar: under 300 MB. Before the cap (issue 38) this command held every
 * arrival open and never finished: 929 MB after 63 s with the default timeout (then stopped by hand);
 * with it, 109 MB and done in 124 s (117 MB, 14 s with the 5 s timeout used here).
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runCli } from '../test/fixtures/cli';
import { fmt, table } from './stats';

const BAR_MB = 300;
/** The request timeout: the default (60 s) makes the same peak in 2 minutes; LOAD_MEMORY_TIMEOUT_MS=60000 runs it. */
const TIMEOUT_MS = Number(process.env.LOAD_MEMORY_TIMEOUT_MS ?? 5000);

export async function benchLoadMemory(): Promise<string> {
  const sockets = new Set<Socket>();
  const silent = createServer((socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((r) => silent.listen(0, '127.0.0.1', r));
  const url = `http://127.0.0.1:${(silent.address() as { port: number }).port}/v1`;
  const dir = mkdtempSync(join(tmpdir(), 'pi-bench-load-memory-'));
  writeFileSync(join(dir, 'ask.prompty'), '---\nname: ask\nmodel:\n  api: chat\n  configuration: { type: openai, name: gpt-4o-mini }\n---\nuser:\nSay something short.\n');
  try {
    const started = performance.now();
    const result = await runCli(['load', 'ask.prompty', '--endpoint', url, '--rate', '50000', '--duration', '1', '--timeout-ms', String(TIMEOUT_MS), '--slo', 'ttftMs.p90<=1000', '--no-store', '--json'], dir, { measureRss: true, maxBuffer: 256 * 1024 * 1024 });
    const seconds = (performance.now() - started) / 1000;
    const point = JSON.parse(result.stdout).points[0];
    const cap = point.inFlightCap;
    const peakMb = (result.maxRssBytes ?? Number.NaN) / 1024 / 1024;
    return [
      '## Open-loop load memory (does a rate the endpoint cannot take stay bounded?)',
      '',
      `\`npm run bench load-memory\` — \`load --rate 50000 --duration 1 --timeout-ms ${TIMEOUT_MS}\` against a server that accepts and never answers; peak RSS of the whole CLI process. Bar: < ${BAR_MB} MB.`,
      '',
      table(['peak RSS MB', 'seconds', 'arrivals', 'cap in flight', 'sent', 'waited', 'dropped', `under ${BAR_MB} MB`], [[fmt(peakMb), fmt(seconds), cap.arrived, cap.cap, point.sent, cap.waited, cap.dropped, peakMb < BAR_MB ? 'yes' : 'no']]),
    ].join('\n');
  } finally {
    for (const socket of sockets) socket.destroy();
    await new Promise((r) => silent.close(r));
    rmSync(dir, { recursive: true, force: true });
  }
}
