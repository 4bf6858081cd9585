/**
 * `prompt-insight sample` at scale, the real CLI as a child process: (1) 100,000 production requests with
 * captured inputs of some 1 KB each (a realistic chat turn, one in ten with a secret or an e-mail,
 * seeded), 100 a line, gzip — spans/s of the whole command (stream, parse, map to the template, redact
 * with gitleaks' rules, dedupe, choose) and its peak RSS; (2) the attack of issue 30: 60 spans of 10 MiB
 * captured input in one small gzip, which once took 1.2 GB. Peak RSS is GNU time's maximum resident set.
 */
import { createWriteStream, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { once } from 'node:events';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createGzip } from 'node:zlib';
import { seededRandom } from '../src/core/stats/random';
import { fmt, table } from './stats';
import { timedCli } from './timedCli';

const SPANS = Number(process.env.SAMPLE_BENCH_SPANS ?? 100_000);
const PROMPT = '---\nname: homes\nmodel:\n  api: chat\n---\nsystem:\nYou are a real-estate assistant for {{city}}.\n\nuser:\n{{request}}\n';
const WORDS = 'find homes near the park with three bedrooms a garden and a garage under budget close to schools quiet street'.split(' ');
const SECRETS = ['my email is jane.doe@example.com', 'key sk_live_51HqTzQ2eZvKYlo2C8xWmNp4RtUv9Ab', 'Authorization: Basic amFuZS5kb2U6czNjcjN0UGFzcw==', 'card 4539 1488 0343 6467'];

async function writeGzipLines(path: string, lines: Iterable<string>): Promise<void> {
  const gzip = createGzip();
  const out = createWriteStream(path);
  gzip.pipe(out);
  for (const line of lines) if (!gzip.write(line)) await once(gzip, 'drain');
  gzip.end();
  await once(out, 'close');
}

function span(i: number, input: unknown[], random: () => number): Record<string, unknown> {
  const start = (Date.UTC(2026, 11, 1) + i * 1000) * 1e6;
  const hex = (n: number) => Array.from({ length: n }, () => Math.floor(random() * 256).toString(16).padStart(2, '0')).join('');
  return {
    traceId: hex(16), spanId: hex(8), name: 'chat m', kind: 3, startTimeUnixNano: String(start), endTimeUnixNano: String(start + Math.round((0.5 + random()) * 1e9)),
    attributes: [
      { key: 'gen_ai.operation.name', value: { stringValue: 'chat' } },
      { key: 'gen_ai.prompt.name', value: { stringValue: 'homes' } },
      { key: 'gen_ai.prompt.version', value: { stringValue: i % 2 ? 'a1b2c3d' : 'b7e1c2d' } },
      { key: 'gen_ai.input.messages', value: { stringValue: JSON.stringify(input) } },
    ],
  };
}

function* realistic(): Generator<string> {
  const random = seededRandom(20261205);
  for (let line = 0; line < SPANS / 100; line++) {
    const spans = Array.from({ length: 100 }, (_, k) => {
      const words = Array.from({ length: 160 }, () => WORDS[Math.floor(random() * WORDS.length)]).join(' ');
      const request = random() < 0.1 ? `${words} ${SECRETS[Math.floor(random() * SECRETS.length)]}` : words;
      return span(line * 100 + k, [{ role: 'system', parts: [{ type: 'text', content: 'You are a real-estate assistant for Austin, TX.' }] }, { role: 'user', parts: [{ type: 'text', content: request }] }], random);
    });
    yield `${JSON.stringify({ resourceSpans: [{ scopeSpans: [{ spans }] }] })}\n`;
  }
}

function* huge(): Generator<string> {
  const random = seededRandom(1);
  const big = 'Find homes near Elm St. '.repeat((10 * 1024 * 1024) / 24);
  for (let i = 0; i < 60; i++) yield `${JSON.stringify({ resourceSpans: [{ scopeSpans: [{ spans: [span(i, [{ role: 'user', parts: [{ type: 'text', content: big }] }], random)] }] }] })}\n`;
}

export async function benchSample(): Promise<string> {
  const dir = mkdtempSync(join(tmpdir(), 'pi-sample-bench-'));
  try {
    writeFileSync(join(dir, 'homes.prompty'), PROMPT);
    await writeGzipLines(join(dir, 'real.jsonl.gz'), realistic());
    await writeGzipLines(join(dir, 'huge.jsonl.gz'), huge());
    const rows: (string | number)[][] = [];
    for (const [label, file, strategy] of [['100k × ~1 KB inputs', 'real.jsonl.gz', 'random'], ['100k × ~1 KB inputs', 'real.jsonl.gz', 'slowest'], ['60 × 10 MiB inputs', 'huge.jsonl.gz', 'random']] as const) {
      const { seconds, rssMiB, json } = timedCli<{ requests: number; added: unknown[] }>(['sample', 'homes.prompty', '--traces', file, '--n', '50', '--strategy', strategy, '--dry-run', '--json'], dir);
      rows.push([label, strategy, `${fmt(statSync(join(dir, file)).size / 2 ** 20, 1)} MiB`, json.requests.toLocaleString('en'), json.added.length, fmt(seconds, 1), Math.round(json.requests / seconds).toLocaleString('en'), fmt(rssMiB, 0)]);
    }
    return [
      '## sample: production requests into test cases',
      '',
      table(['traces', 'strategy', 'gzip', 'requests', 'cases', 'seconds', 'requests/s', 'peak RSS MiB'], rows),
      '',
      'The whole CLI run (`prompt-insight sample homes.prompty --traces FILE --n 50 --dry-run --json`): every request is parsed, mapped to the template, redacted (gitleaks\' rules on RE2, personal data) and deduplicated as it streams; only the 50 cases it may write are kept. The 60 × 10 MiB file is issue 30\'s attack (1.2 GB before): inputs over 256 KiB are counted, never held.',
    ].join('\n');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
