/**
 * Production beside the dev estimate, through the real language server over stdio: a real git repo,
 * real OTLP JSON Lines trace files (one gzip, one a link out of the workspace), a loopback server with
 * Prometheus's HTTP API; trusted and Restricted Mode.
 */
import { mkdirSync, mkdtempSync, symlinkSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CodeLensRequest, DidOpenTextDocumentNotification, HoverRequest, type CodeLens, type MarkupContent } from 'vscode-languageserver-protocol/node';
import { TestRepo } from '../fixtures/gitRepo';
import { otlpSpan, tracesLine } from '../fixtures/otlpTraces';
import { productionAlertRequest, productionViewRequest } from '../../src/protocol/productionRequest';
import { LspHarness } from './lspHarness';

const TEXT_A = '---\nmodel: gpt-test\n---\nSay hello to the user.\n';
const TEXT_B = '---\nmodel: gpt-test\n---\nSay hello to the user, briefly and warmly, in their language.\n';
const TEXT_C = '---\nmodel: gpt-test\n---\nSay hello to the user in one word.\n';
const HOUR = 3_600_000;
const now = Date.now();

let repo: TestRepo;
let b: string;
const servers: LspHarness[] = [];
let prometheus: Server;
let prometheusUrl: string;
const prometheusQueries: string[] = [];

async function startServer(settings: unknown, trusted: boolean): Promise<LspHarness> {
  const server = new LspHarness();
  servers.push(server);
  await server.initialize({ settings, workspaceFolders: [repo.root], ...(trusted ? { workspaceTrusted: true } : {}) }, 'as-given');
  return server;
}

async function open(server: LspHarness, text: string): Promise<string> {
  const uri = pathToFileURL(join(repo.root, 'greet.prompt')).toString();
  await server.connection.sendNotification(DidOpenTextDocumentNotification.type, { textDocument: { uri, languageId: 'dotprompt', version: 1, text } });
  return uri;
}

const lensTitles = async (server: LspHarness, uri: string) => ((await server.connection.sendRequest(CodeLensRequest.type, { textDocument: { uri } })) as CodeLens[]).map((l) => l.command!.title);

/** The production lens once the background read is done (the lens says "reading…" until then). */
/** The production lens once the read is done; the test's own timeout bounds the wait (a busy machine reads slower, not wrongly). */
async function productionLens(server: LspHarness, uri: string): Promise<string | undefined> {
  for (;;) {
    const prod = (await lensTitles(server, uri)).find((t) => t.startsWith('prod'));
    if (prod !== 'prod: reading…') return prod;
    await new Promise((r) => setTimeout(r, 50));
  }
}

async function hoverText(server: LspHarness, uri: string): Promise<string> {
  const hover = await server.connection.sendRequest(HoverRequest.type, { textDocument: { uri }, position: { line: 3, character: 2 } });
  return (hover!.contents as MarkupContent).value;
}

beforeAll(async () => {
  repo = new TestRepo();
  repo.commit('First greeting', { 'greet.prompt': TEXT_A });
  b = repo.commit('Longer greeting', { 'greet.prompt': TEXT_B });
  // Version B (commit prefix): 40 successes, TTFT 200…239 ms, 30 min ago; a hand-set version not in history.
  const spansB = Array.from({ length: 40 }, (_, i) => otlpSpan({ promptName: 'greet', version: b.slice(0, 7), startMs: now - HOUR / 2 + i * 1000, ttftMs: 200 + i, e2eMs: 600 + i }));
  const hotfix = Array.from({ length: 3 }, (_, i) => otlpSpan({ promptName: 'greet', version: 'v-hotfix', startMs: now - 2 * HOUR + i, ttftMs: 150, e2eMs: 400 }));
  // Version A by commit prefix, two days ago: outside the 24 h window.
  const old = Array.from({ length: 5 }, (_, i) => otlpSpan({ promptName: 'greet', version: 'deadbeef', startMs: now - 48 * HOUR + i, ttftMs: 90, e2eMs: 300 }));
  repo.write('traces/app.jsonl', `${tracesLine(spansB)}\n{broken\n`);
  repo.write('traces/older.jsonl.gz', gzipSync(`${tracesLine([...hotfix, ...old])}\n`));
  // A link to a trace file outside the workspace: refused and said, the other files still read.
  const outside = mkdtempSync(join(tmpdir(), 'pi-outside-'));
  writeFileSync(join(outside, 'secret.jsonl'), `${tracesLine(Array.from({ length: 500 }, (_, i) => otlpSpan({ promptName: 'greet', version: b.slice(0, 7), startMs: now - HOUR + i, ttftMs: 9000, e2eMs: 9500 })))}\n`);
  symlinkSync(join(outside, 'secret.jsonl'), join(repo.root, 'traces', 'link.jsonl'));
  mkdirSync(join(repo.root, 'empty'), { recursive: true });

  prometheus = createServer((request, response) => {
    const url = new URL(request.url!, 'http://x');
    const query = url.searchParams.get('query') ?? '';
    prometheusQueries.push(`${url.pathname} ${query}`);
    const labels = { gen_ai_prompt_name: 'greet', gen_ai_prompt_version: b.slice(0, 7) };
    let result: unknown[] = [];
    if (url.pathname === '/api/v1/query') {
      const at = Number(url.searchParams.get('time') ?? now / 1000);
      const value = (v: string) => [{ metric: labels, value: [at, v] }];
      if (query.includes('time_to_first_chunk') && query.startsWith('histogram_quantile(0.5,')) result = value('0.42');
      else if (query.includes('time_to_first_chunk') && query.startsWith('histogram_quantile(0.99,')) result = value('2.1');
      else if (query.includes('time_to_first_chunk') && query.startsWith('histogram_quantile(0.9,')) result = value('1.2');
      // The requests: increase() for series older than the window, the counter itself for new ones (its first scrape kept).
      else if (/^sum by \(gen_ai_prompt_name, gen_ai_prompt_version\) \(+increase\(/.test(query)) result = value('12345');
      response.end(JSON.stringify({ status: 'success', data: { resultType: 'vector', result } }));
      return;
    }
    response.end(JSON.stringify({ status: 'success', data: { resultType: 'matrix', result: [] } }));
  });
  await new Promise<void>((r) => prometheus.listen(0, '127.0.0.1', r));
  prometheusUrl = `http://127.0.0.1:${(prometheus.address() as AddressInfo).port}`;
});

afterAll(async () => {
  for (const s of servers) await s.dispose();
  await new Promise((r) => prometheus?.close(r));
});

describe('production in the hover and lens', () => {
  it('trace files: the version of the text in the editor, with its numbers, beside the dev estimate; a version not in git history said; a link out of the workspace refused', async () => {
    const server = await startServer({ production: { sources: [{ traces: 'traces/*.jsonl*' }] } }, true);
    const uri = await open(server, TEXT_B);
    // 40 requests of B: TTFT p50 = 219.5 ms → "220 ms"; p99 needs 100 requests. The link's 500 slow spans are not read.
    expect(await productionLens(server, uri)).toBe(`prod TTFT p50 220 ms · p99 n/a · 40 req/24 h · v ${b.slice(0, 7)}`);
    const hover = await hoverText(server, uri);
    expect(hover).toContain('**Production** · traces traces/\\*.jsonl\\* · last 24 h');
    expect(hover).toContain(`prod TTFT p50 220 ms · p99 n/a · 40 req/24 h · v ${b.slice(0, 7)} — this text (${b.slice(0, 7)} "Longer greeting")`);
    expect(hover).toContain('E2E latency p50 620 ms · p99 n/a · errors 0.0% · p99 needs 100 requests (has 40) — [production view](command:promptInsight.showProduction?');
    expect(hover).toContain("⚠ version v-hotfix seen in production is not in this file's git history (3 req)");
    expect(hover).not.toContain('deadbeef'); // two days old: outside the window
    expect(hover).toMatch(/link\.jsonl' leads outside the workspace/);
    // The token table stays first: production is an extra section.
    expect(hover.indexOf('| whole prompt')).toBeLessThan(hover.indexOf('**Production**'));
    // Show Production asks the same server (same cache) for the panel's view.
    const result = await server.connection.sendRequest(productionViewRequest, { uri, promptIndex: 0 });
    const view = result && 'view' in result ? result.view : undefined;
    expect(view?.sources[0]!.versions.map((v) => [v.version, v.requests, v.thisText, v.inGitHistory])).toEqual([[b.slice(0, 7), 40, true, true], ['v-hotfix', 3, false, false]]);
    expect(view?.sources[0]!.timeline!.versions.map((v) => v.points.reduce((n, p) => n + p.requests, 0)).sort()).toEqual([3, 40]);
  });

  it('text production has not seen: the latest version, said so', async () => {
    const server = await startServer({ production: { sources: [{ traces: 'traces/app.jsonl', since: '2h' }] } }, true);
    const uri = await open(server, TEXT_C);
    expect(await productionLens(server, uri)).toBe(`prod TTFT p50 220 ms · p99 n/a · 40 req/2 h · v ${b.slice(0, 7)} (latest)`);
    expect(await hoverText(server, uri)).toContain('— latest in production; this text was not seen there');
  });

  it('a missing file or a path out of the workspace: a message, no crash, nothing else read', async () => {
    const server = await startServer({ production: { sources: [{ traces: 'traces/none.jsonl' }, { traces: '../../etc/passwd' }, { traces: 'empty' }] } }, true);
    const uri = await open(server, TEXT_B);
    expect(await productionLens(server, uri)).toBe('prod: source unreadable (see hover)');
    const hover = await hoverText(server, uri);
    expect(hover).toContain("'traces/none.jsonl' was not found");
    expect(hover).toContain("climbs out of the workspace \\('..'\\)");
    expect(hover).toContain("'empty' is a folder, not a regular file");
  });

  it('Prometheus: percentiles from the histograms, counts as 12.3k, cached so a second hover asks nothing', async () => {
    const server = await startServer({ production: { sources: [{ prometheus: prometheusUrl }] } }, true);
    const uri = await open(server, TEXT_B);
    expect(await productionLens(server, uri)).toBe(`prod TTFT p50 420 ms · p99 2.10 s · 12.3k req/24 h · v ${b.slice(0, 7)}`);
    const asked = prometheusQueries.length;
    expect(prometheusQueries.some((q) => q.startsWith('/api/v1/query_range'))).toBe(true);
    const hover = await hoverText(server, uri);
    expect(hover).toContain(`prod TTFT p50 420 ms · p99 2.10 s · 12.3k req/24 h · v ${b.slice(0, 7)} — this text`);
    expect(hover).toContain('_percentiles interpolated within histogram buckets (no intervals)');
    await hoverText(server, uri);
    await lensTitles(server, uri);
    expect(prometheusQueries.length).toBe(asked);
  });

  it('production strings are text in the hover: Markdown links, HTML and entities, autolinks and control characters in a version or an error type are escaped', async () => {
    const version = '[x](command:e)<i>&lt;';
    const hostile = Array.from({ length: 5 }, (_, i) => otlpSpan({ promptName: 'greet', version, startMs: now - HOUR / 4 + i * 1000, ttftMs: 300, e2eMs: 700, ...(i === 0 ? { errorType: '<img src=x onerror=alert(1)>https://evil.example\u202e' } : {}) }));
    repo.write('hostile/app.jsonl', `${tracesLine(hostile)}\n`);
    const server = await startServer({ production: { sources: [{ traces: 'hostile/app.jsonl' }] } }, true);
    const uri = await open(server, TEXT_C);
    expect(await productionLens(server, uri)).toBe(`prod TTFT p50 300 ms · p99 n/a · 5 req/24 h · v ${version} (latest)`);
    const hover = await hoverText(server, uri);
    expect(hover).toContain('· v \\[x\\]\\(command\\:e\\)\\<i\\>\\&lt; — latest in production');
    expect(hover).toContain('\\<img src=x onerror=alert\\(1\\)\\>https\\://evil.example\uFFFD 1');
    // Nothing a Markdown or HTML renderer would act on is left unescaped.
    expect(hover).not.toMatch(/(?<!\\)\[x(?<!\\)\]|(?<!\\)<i|(?<!\\)&lt;|(?<!\\)<img|https(?<!\\):|\u202e/);
  });

  it('a large trace file (a 14 MiB line of nested arrays, then some 200 MB of spans) is read off the main thread: hovers are answered while it is read, and the numbers come', async () => {
    const { createGzip } = await import('node:zlib');
    const { createWriteStream } = await import('node:fs');
    mkdirSync(join(repo.root, 'big'), { recursive: true });
    const gzip = createGzip({ level: 1 });
    const out = createWriteStream(join(repo.root, 'big', 'traces.jsonl.gz'));
    gzip.pipe(out);
    gzip.write(`${'['.repeat(7 * 1024 * 1024)}${']'.repeat(7 * 1024 * 1024)}\n`);
    const line = `${tracesLine(Array.from({ length: 400 }, (_, i) => otlpSpan({ promptName: 'greet', version: b.slice(0, 7), startMs: now - HOUR / 2 + i, ttftMs: 250, e2eMs: 650 })))}\n`;
    const lines = Math.ceil((200 * 1024 * 1024) / line.length);
    for (let i = 0; i < lines; i++) if (!gzip.write(line)) await new Promise<void>((r) => gzip.once('drain', () => r()));
    gzip.end();
    await new Promise<void>((r) => out.on('close', () => r()));
    const server = await startServer({ production: { sources: [{ traces: 'big/traces.jsonl.gz' }] } }, true);
    const uri = await open(server, TEXT_B);
    void hoverText(server, uri); // starts the read
    while (!server.logs.some((l) => l.startsWith('Production: reading 1 source'))) await new Promise((r) => setTimeout(r, 20));
    // Each hover is answered while the file is still being read.
    for (let i = 0; i < 5; i++) expect(await hoverText(server, uri)).toContain('**Production**: reading 1 source…');
    expect(await productionLens(server, uri)).toBe(`prod TTFT p50 250 ms · p99 250 ms · ${(lines * 400 / 1000).toFixed(0)}k req/24 h · v ${b.slice(0, 7)}`);
  }, 300_000);

  it('Restricted Mode: nothing read, the hover says why', async () => {
    const before = prometheusQueries.length;
    const server = await startServer({ production: { sources: [{ prometheus: prometheusUrl }, { traces: 'traces/*.jsonl' }] } }, false);
    const uri = await open(server, TEXT_B);
    expect((await lensTitles(server, uri)).some((t) => t.startsWith('prod'))).toBe(false);
    expect(await hoverText(server, uri)).toContain('**Production**: sources are configured but not read in Restricted Mode.');
    expect(prometheusQueries.length).toBe(before);
    expect(await server.connection.sendRequest(productionViewRequest, { uri, promptIndex: 0 })).toEqual({ problem: 'Production sources are not read in Restricted Mode: trust the workspace first.' });
  });

  it('production adherence: each version\'s captured answers scored with the tests file\'s judge-free checks, in the hover and the Production view; a judge rubric left out and said', async () => {
    // 30 answers of version B, 24 of them JSON; the tests file holds every answer to is-json (and to a rubric, which needs a judge).
    const answers = Array.from({ length: 30 }, (_, i) => otlpSpan({ promptName: 'greet', version: b.slice(0, 7), startMs: now - HOUR / 2 + i * 1000, ttftMs: 200, e2eMs: 600, extra: { 'gen_ai.output.messages': JSON.stringify([{ role: 'assistant', parts: [{ type: 'text', content: i % 5 === 0 ? 'Hello!' : '{"greeting": "hello"}' }] }]) } }));
    repo.write('answers/app.jsonl', `${tracesLine(answers)}\n`);
    // A tests file of defaultTest alone: its checks hold for every answer, no case needed.
    repo.write('greet.tests.yaml', 'defaultTest:\n  assert:\n    - type: is-json\n    - type: llm-rubric\n      value: is friendly\n');
    try {
      const server = await startServer({ production: { sources: [{ traces: 'answers/*.jsonl' }] } }, true);
      const uri = await open(server, TEXT_B);
      expect(await productionLens(server, uri)).toMatch(/^prod TTFT p50 200 ms/);
      const result = await server.connection.sendRequest(productionViewRequest, { uri, promptIndex: 0 });
      const source = result && 'view' in result ? result.view.sources[0]! : undefined;
      const adherence = source?.versions[0]?.adherence;
      expect(adherence).toMatchObject({ passed: 24, scored: 30, withAnswer: 30, rate: 0.8 });
      expect(adherence!.low).toBeLessThan(0.8);
      expect(adherence!.high).toBeGreaterThan(0.8);
      expect(source!.notes.join(' ')).toMatch(/production adherence leaves out .*rubric.*prod --judge-endpoint scores these/);
      const pct = (x: number) => `${Math.round(x * 100)}%`;
      expect(await hoverText(server, uri)).toContain(`adherence 80% [${pct(adherence!.low)}, ${pct(adherence!.high)}] · 24 of 30 sampled answers pass · checks: `);
    } finally {
      repo.remove('greet.tests.yaml');
    }
  });

  it('anomalies against the dynamic baseline (as watch finds them): the Production view for a window lists them, the status bar\'s question finds the one going on', async () => {
    // Two weeks of 20 requests an hour at TTFT 780…819 ms of v-base; then version B, slow (1.9 s) since it went live 5.5 h ago.
    const deployMs = now - 5.5 * HOUR;
    const spans = [];
    for (let hour = Math.floor((now - 15 * 24 * HOUR) / HOUR) * HOUR; hour < now - HOUR; hour += HOUR) {
      for (let i = 0; i < 20; i++) {
        const startMs = hour + i * 90_000;
        const after = startMs >= deployMs;
        spans.push(otlpSpan({ promptName: 'greet', version: after ? b.slice(0, 7) : 'v-base', startMs, ttftMs: after ? 1900 : 780 + ((i * 7) % 40), e2eMs: after ? 2500 : 1300 }));
      }
    }
    repo.write('watch/app.jsonl', `${tracesLine(spans)}\n`);
    const server = await startServer({ production: { sources: [{ traces: 'watch/*.jsonl' }] } }, true);
    const uri = await open(server, TEXT_B);
    await productionLens(server, uri);
    const result = await server.connection.sendRequest(productionViewRequest, { uri, promptIndex: 0, window: '7d' });
    const view = result && 'view' in result ? result.view : undefined;
    expect(view?.window).toBe('7d');
    expect(view!.sources[0]!.timeline!.untilMs - view!.sources[0]!.timeline!.sinceMs).toBe(7 * 24 * HOUR);
    const ttft = view!.sources[0]!.anomalies!.find((a) => a.metric === 'ttft.p99');
    expect(ttft).toMatchObject({ ongoing: true, causeVersion: b.slice(0, 7) });
    expect(ttft!.sentence).toMatch(new RegExp(`^Since .* UTC \\(ongoing\\): TTFT p99 1\\.90 s over the usual 8\\d\\d ms, while version ${b.slice(0, 7)} was live — likely cause: the new version ${b.slice(0, 7)}`));
    // A window outside what the webview may ask is refused (no view).
    expect(await server.connection.sendRequest(productionViewRequest, { uri, promptIndex: 0, window: '1y' } as never)).toBeNull();
    const alert = await server.connection.sendRequest(productionAlertRequest, { uri });
    expect(alert).toMatchObject({ promptIndex: 0, prompt: 'greet', title: 'TTFT p99 over baseline' });
    expect(alert!.detail).toMatch(/^Since .*\(ongoing\): TTFT p99 1\.90 s/);
  });
});
