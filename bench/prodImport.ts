/**
 * `prompt-insight prod` at scale: a generated OTLP JSON Lines file of 1,000,000 GenAI spans (100 per
 * TracesData line, as a Collector batch writes them; two prompt versions, 2% errors, seeded), read by
 * the real CLI as a child process. Peak RSS (GNU time's maximum resident set) against the file's
 * size shows the file is streamed, not held; spans/s is the whole command (read, parse, aggregate,
 * percentiles with intervals, bootstrap verdicts, git mapping).
 */
import { execFileSync } from 'node:child_process';
import { createReadStream, createWriteStream, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { once } from 'node:events';
import { pipeline } from 'node:stream/promises';
import { createGzip } from 'node:zlib';
import { seededRandom } from '../src/core/stats/random';
import { fmt, table } from './stats';
import { timedCli } from './timedCli';

const SPANS = Number(process.env.PROD_BENCH_SPANS ?? 1_000_000);
const PER_LINE = 100;

function hex(random: () => number, bytes: number): string {
  let out = '';
  for (let i = 0; i < bytes; i++) out += Math.floor(random() * 256).toString(16).padStart(2, '0');
  return out;
}

async function generate(path: string, versions: [string, string]): Promise<void> {
  const random = seededRandom(20261204);
  const out = createWriteStream(path);
  const t0 = Date.UTC(2026, 11, 1) * 1e6;
  for (let line = 0; line < SPANS / PER_LINE; line++) {
    const spans = [];
    for (let k = 0; k < PER_LINE; k++) {
      const i = line * PER_LINE + k;
      const version = i < SPANS / 2 ? versions[0] : versions[1];
      const ttft = 0.2 + random() * 0.3 + (version === versions[1] ? 0.05 : 0);
      const output = 50 + Math.floor(random() * 200);
      const e2e = ttft + output * 0.02 * (0.8 + random() * 0.4);
      const start = t0 + i * 1e8;
      const failed = random() < 0.02;
      spans.push({
        traceId: hex(random, 16),
        spanId: hex(random, 8),
        name: 'chat gpt-test',
        kind: 3,
        startTimeUnixNano: String(start),
        endTimeUnixNano: String(start + Math.round(e2e * 1e9)),
        attributes: [
          { key: 'gen_ai.operation.name', value: { stringValue: 'chat' } },
          { key: 'gen_ai.request.model', value: { stringValue: 'gpt-test' } },
          { key: 'gen_ai.prompt.name', value: { stringValue: 'greet' } },
          { key: 'gen_ai.prompt.version', value: { stringValue: version } },
          { key: 'gen_ai.response.time_to_first_chunk', value: { doubleValue: ttft } },
          { key: 'gen_ai.usage.input_tokens', value: { intValue: '420' } },
          { key: 'gen_ai.usage.output_tokens', value: { intValue: String(output) } },
          { key: 'gen_ai.usage.cache_read.input_tokens', value: { intValue: '256' } },
          ...(failed ? [{ key: 'error.type', value: { stringValue: 'timeout' } }] : []),
        ],
        status: failed ? { code: 2 } : {},
      });
    }
    const ok = out.write(`${JSON.stringify({ resourceSpans: [{ resource: { attributes: [{ key: 'service.name', value: { stringValue: 'app' } }] }, scopeSpans: [{ scope: { name: 'bench' }, spans }] }] })}\n`);
    if (!ok) await once(out, 'drain');
  }
  out.end();
  await once(out, 'finish');
}

export async function benchProd(): Promise<string> {
  const dir = mkdtempSync(join(tmpdir(), 'pi-prod-bench-'));
  try {
    const git = (...args: string[]) => execFileSync('git', ['-c', 'user.name=Bench', '-c', 'user.email=b@example.com', '-c', 'commit.gpgsign=false', ...args], { cwd: dir, encoding: 'utf8' }).trim();
    git('init', '-q', '-b', 'main');
    writeFileSync(join(dir, 'greet.prompt'), '---\nmodel: gpt-test\n---\nSay hello.\n');
    git('add', '-A');
    git('commit', '-q', '-m', 'v1');
    const v1 = git('rev-parse', 'HEAD');
    writeFileSync(join(dir, 'greet.prompt'), '---\nmodel: gpt-test\n---\nSay hello, warmly.\n');
    git('commit', '-qam', 'v2');
    const v2 = git('rev-parse', 'HEAD');
    const file = join(dir, 'traces.jsonl');
    const genStart = performance.now();
    await generate(file, [v1.slice(0, 7), v2.slice(0, 7)]);
    const genSeconds = (performance.now() - genStart) / 1000;
    const bytes = statSync(file).size;
    const gzFile = join(dir, 'traces.jsonl.gz');
    await pipeline(createReadStream(file), createGzip(), createWriteStream(gzFile));
    const gzBytes = statSync(gzFile).size;
    const rows: (string | number)[][] = [];
    for (const [label, path, size] of [['plain', file, bytes], ['gzip', gzFile, gzBytes]] as const) {
      const { seconds, rssMiB, json: report } = timedCli<{ versions: { requests: number }[] }>(['prod', 'greet.prompt', '--traces', path, '--json'], dir);
      const spans = report.versions.reduce((a, v) => a + v.requests, 0);
      if (spans !== SPANS) throw new Error(`read ${spans} spans, expected ${SPANS}`);
      rows.push([label, `${fmt(size / 2 ** 20, 0)} MiB`, spans.toLocaleString('en'), fmt(seconds, 1), Math.round(spans / seconds).toLocaleString('en'), fmt(rssMiB, 0)]);
    }
    return [
      `## prod: importing ${SPANS.toLocaleString('en')} GenAI spans (OTLP JSON Lines, ${PER_LINE} spans a line; generated in ${fmt(genSeconds, 1)} s)`,
      '',
      table(['file', 'size', 'spans', 'seconds', 'spans/s', 'peak RSS MiB'], rows),
      '',
      'The whole CLI run (`prompt-insight prod greet.prompt --traces FILE --json`): streaming read, JSON parse, aggregation into typed arrays, percentiles with distribution-free intervals, bootstrap verdicts of the two versions, git mapping. Peak RSS is GNU time\'s maximum resident set of the process; it stays far below the file size because the file is never held (the latency values themselves are: 8 bytes per value, 3 series).',
    ].join('\n');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
