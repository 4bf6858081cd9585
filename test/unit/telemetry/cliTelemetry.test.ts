/**
 * The built CLI (dist/cli.js loading dist/telemetry.js): `run --otlp-endpoint` sends its runs to a loopback
 * OTLP/HTTP receiver; `export --format otlp-json` writes the store as OTLP JSON Lines, checked against the
 * OTLP JSON mapping and read back.
 */
import { execFile, execFileSync } from 'node:child_process';
import { appendFileSync, cpSync, mkdtempSync, readFileSync } from 'node:fs';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSimProcess, type SimProcess } from '../../fixtures/simProcess';

const CLI = resolve('dist/cli.js');

function cli(args: string[], env: Record<string, string> = {}): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((done) => {
    execFile(process.execPath, [CLI, ...args], { env: { ...process.env, ...env } }, (error, stdout, stderr) => done({ code: error ? (error as { code: number }).code : 0, stdout, stderr }));
  });
}

let sim: SimProcess;
let dir: string;
let receiver: Server;
let receiverUrl: string;
const received: { path: string; headers: IncomingHttpHeaders; body: any }[] = [];

beforeAll(async () => {
  sim = await startSimProcess(['--ttft-ms', '30', '--decode-ms-per-token', '1', '--output-tokens', '12']);
  dir = mkdtempSync(join(tmpdir(), 'pi-otel-'));
  receiver = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      received.push({ path: req.url ?? '', headers: req.headers, body: JSON.parse(Buffer.concat(chunks).toString('utf8')) });
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((done) => receiver.listen(0, '127.0.0.1', done));
  receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`;
});
afterAll(() => {
  sim.child.kill('SIGINT');
  receiver.close();
});

const attrs = (list: { key: string; value: Record<string, unknown> }[]): Record<string, unknown> => Object.fromEntries(list.map(({ key, value }) => [key, Object.values(value)[0]]));

/** Every key of an OTLP JSON document, recursively (attribute keys are values, not keys: they are skipped). */
function jsonKeys(value: unknown, out = new Set<string>()): Set<string> {
  if (Array.isArray(value)) value.forEach((v) => jsonKeys(v, out));
  else if (value && typeof value === 'object') {
    for (const [k, v] of Object.entries(value)) {
      out.add(k);
      jsonKeys(v, out);
    }
  }
  return out;
}

describe('telemetry from the CLI', () => {
  it('run --otlp-endpoint sends one span per run and the client histograms; headers come from the environment and are never printed', async () => {
    const store = join(dir, 'runs.jsonl');
    // A repository of our own: the prompt is committed and unchanged, so its version is that commit.
    const repo = mkdtempSync(join(tmpdir(), 'pi-otel-repo-'));
    cpSync('examples/homes', repo, { recursive: true });
    const gitIn = (...args: string[]) => execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@t', ...args], { cwd: repo, encoding: 'utf8' }).trim();
    gitIn('init', '-q');
    gitIn('add', '.');
    gitIn('commit', '-qm', 'homes');
    const commit = gitIn('rev-parse', 'HEAD');
    const { code, stderr } = await cli(['run', join(repo, 'homes.prompty'), '--endpoint', sim.url, '--runs', '3', '--store', store, '--otlp-endpoint', `${receiverUrl}/`], { OTEL_EXPORTER_OTLP_HEADERS: 'authorization=Bearer%20otlp-secret-4242' });
    expect(code).toBe(0);
    expect(stderr).toContain(`Sent 3 spans and their metrics to ${receiverUrl} (OTLP/HTTP)`);
    expect(stderr).not.toContain('otlp-secret-4242');
    const traces = received.filter((r) => r.path === '/v1/traces');
    expect(traces[0]!.headers.authorization).toBe('Bearer otlp-secret-4242');
    const spans = traces.flatMap((t) => t.body.resourceSpans.flatMap((r: any) => r.scopeSpans.flatMap((s: any) => s.spans)));
    expect(spans).toHaveLength(3);
    const stored = readFileSync(store, 'utf8').trim().split('\n').map((l) => JSON.parse(l.slice(l.indexOf('{'))));
    for (const span of spans) {
      const a = attrs(span.attributes);
      expect(span.kind).toBe(3);
      expect(a['gen_ai.operation.name']).toBe('chat');
      expect(a['gen_ai.prompt.name']).toBe(stored[0].prompt);
      expect(a['gen_ai.prompt.version']).toBe(commit);
      expect(a['gen_ai.request.model']).toBe(stored[0].key.model);
      expect(a['server.address']).toBe('127.0.0.1');
      expect(a['prompt_insight.simulated']).toBe(true);
      expect(a['gen_ai.response.time_to_first_chunk']).toBeGreaterThanOrEqual(0.03);
      const durationS = (Number(BigInt(span.endTimeUnixNano) - BigInt(span.startTimeUnixNano)) / 1e9);
      expect(durationS).toBeGreaterThanOrEqual(a['gen_ai.response.time_to_first_chunk'] as number);
      // The test cases of homes.prompty were checked: their verdict rides on the span.
      expect(span.events.map((e: any) => e.name)).toContain('gen_ai.evaluation.result');
    }
    // The same runs as the store kept: their usage, one for one.
    const sorted = (values: unknown[]) => values.map(Number).sort((x, y) => x - y);
    expect(sorted(spans.map((s: any) => attrs(s.attributes)['gen_ai.usage.output_tokens']))).toEqual(sorted(stored.map((r) => r.run.outputTokens)));
    expect(sorted(spans.map((s: any) => attrs(s.attributes)['gen_ai.usage.input_tokens']))).toEqual(sorted(stored.map((r) => r.run.inputTokens)));
    const metricNames = received.filter((r) => r.path === '/v1/metrics').flatMap((r) => r.body.resourceMetrics.flatMap((rm: any) => rm.scopeMetrics.flatMap((s: any) => s.metrics.map((m: any) => m.name))));
    expect(metricNames).toContain('gen_ai.client.operation.duration');

    // Changed since the commit: the version is the content hash of what was sent.
    appendFileSync(join(repo, 'homes.prompty'), '\nAnswer briefly.\n');
    received.length = 0;
    expect((await cli(['run', join(repo, 'homes.prompty'), '--endpoint', sim.url, '--runs', '1', '--no-store', '--otlp-endpoint', receiverUrl])).code).toBe(0);
    const changed = received.find((r) => r.path === '/v1/traces')!.body.resourceSpans[0].scopeSpans[0].spans[0];
    expect(attrs(changed.attributes)['gen_ai.prompt.version']).toMatch(/^sha256:[0-9a-f]{16}$/);
  }, 60_000);

  it('load --otlp-endpoint sends one span per request of every level', async () => {
    received.length = 0;
    const { code, stderr } = await cli(['load', 'examples/homes/homes.prompty', '--endpoint', sim.url, '--concurrency', '1,2', '--requests', '3', '--otlp-endpoint', receiverUrl]);
    expect(code).toBe(0);
    expect(stderr).toContain(`Sent 6 spans and their metrics to ${receiverUrl} (OTLP/HTTP)`);
    const spans = received.filter((r) => r.path === '/v1/traces').flatMap((t) => t.body.resourceSpans.flatMap((r: any) => r.scopeSpans.flatMap((s: any) => s.spans)));
    expect(spans).toHaveLength(6);
    for (const span of spans) expect(attrs(span.attributes)['gen_ai.operation.name']).toBe('chat');
  }, 60_000);

  it('refuses an OTLP endpoint with credentials in it before any run', async () => {
    const { code, stderr } = await cli(['run', 'examples/homes/homes.prompty', '--endpoint', sim.url, '--no-store', '--otlp-endpoint', 'http://user:pw@127.0.0.1:4318']);
    expect(code).toBe(2);
    expect(stderr).toContain('OTEL_EXPORTER_OTLP_HEADERS');
  });

  it('export --format otlp-json writes one TracesData per line in the OTLP JSON mapping, one span per stored run', async () => {
    const store = join(dir, 'export.jsonl');
    expect((await cli(['run', 'examples/homes/homes.prompty', '--endpoint', sim.url, '--runs', '4', '--store', store])).code).toBe(0);
    const out = join(dir, 'traces.jsonl');
    const { code } = await cli(['export', '--store', store, '--format', 'otlp-json', '--out', out]);
    expect(code).toBe(0);
    const storedIds = readFileSync(store, 'utf8').trim().split('\n').map((l) => JSON.parse(l.slice(l.indexOf('{'))).id as string);
    const lines = readFileSync(out, 'utf8').trim().split('\n');
    expect(lines).toHaveLength(4);
    const spans: any[] = [];
    for (const line of lines) {
      const data = JSON.parse(line);
      expect(Object.keys(data)).toEqual(['resourceSpans']);
      for (const key of jsonKeys(data)) expect(key).toMatch(/^[a-z][a-zA-Z0-9]*$/); // lowerCamelCase, no snake_case
      for (const rs of data.resourceSpans) for (const ss of rs.scopeSpans) spans.push(...ss.spans);
    }
    expect(spans).toHaveLength(4);
    for (const span of spans) {
      expect(span.traceId).toMatch(/^[0-9a-f]{32}$/); // hex, not base64
      expect(span.spanId).toMatch(/^[0-9a-f]{16}$/);
      expect(span.kind).toBe(3); // integer enum
      expect(span.startTimeUnixNano).toMatch(/^\d{19}$/); // int64 as a decimal string
      expect(span.endTimeUnixNano).toMatch(/^\d{19}$/);
      for (const { value } of span.attributes) {
        if ('intValue' in value) expect(typeof value.intValue).toBe('string');
      }
    }
    // Read back: each span is a stored run (its trace id is the run's id), and exporting again gives the same spans.
    expect(spans.map((s) => s.traceId).sort()).toEqual(storedIds.map((id) => id.replace(/-/g, '')).sort());
    const again = join(dir, 'traces2.jsonl');
    await cli(['export', '--store', store, '--format', 'otlp-json', '--out', again]);
    const ids = (file: string) => readFileSync(file, 'utf8').trim().split('\n').map((l) => JSON.parse(l).resourceSpans[0].scopeSpans[0].spans[0].spanId);
    expect(ids(again)).toEqual(ids(out));
    // No prompt or answer text without the opt-in.
    expect(readFileSync(out, 'utf8')).not.toContain('gen_ai.output.messages');
  }, 60_000);
});
