/**
 * RAG chain latency (issue 25), end to end: the built CLI runs a Prompty whose front matter declares a
 * retrieval step, against the simulator and a search service on 127.0.0.1 with a known delay. Each run
 * keeps retrievalMs (≥ the delay) and the chain retrieval → TTFT → decode, whose total is retrieval + E2E
 * of the same run; a search service that hangs, answers junk or too much is a failed run with its kind.
 * compare shows each revision's chain (a real git repository built by the test).
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSimProcess, type SimProcess } from '../fixtures/simProcess';
import { TestRepo } from '../fixtures/gitRepo';
import { startScriptedJudge } from './adherence/scriptedJudge';
import { runCli } from '../fixtures/cli';
import { ragPrompty } from '../fixtures/ragPrompt';

// The search service is the user's own: its origin allowed as a user would (cliRetrievalConsent.test.ts has the refusals).
const cli = (args: string[], cwd: string) => runCli(args, cwd, { maxBuffer: 64 * 1024 * 1024, env: { ...process.env, PROMPT_INSIGHT_ALLOW_RETRIEVAL: searchUrl } });

const DELAY_MS = 150;
const LISTING = '12 Elm St, Bellevue: 3 bedrooms, listed at $850,000.';
let search: http.Server;
let searchUrl: string;
const queries: unknown[] = [];
const hanging = new Set<http.ServerResponse>();
let sim: SimProcess;
let dir: string;

const prompty = (path: string, stepExtra = '') => ragPrompty({ url: `${searchUrl}${path}`, stepExtra });

beforeAll(async () => {
  search = http.createServer((req, res) => {
    let body = '';
    req.on('data', (c) => (body += c));
    req.on('end', () => {
      if (req.url === '/search') {
        queries.push(JSON.parse(body));
        setTimeout(() => {
          res.writeHead(200, { 'content-type': 'application/json' });
          res.end(JSON.stringify({ passages: [{ text: LISTING, id: 'elm-12', score: 0.9 }, { text: '4 Oak Ave: 2 bedrooms, $620,000', id: 'oak-4' }] }));
        }, DELAY_MS);
      } else if (req.url === '/hang') {
        hanging.add(res);
      } else if (req.url === '/junk') {
        res.writeHead(200).end('<html>search is down</html>');
      } else if (req.url === '/huge') {
        res.writeHead(200).end(JSON.stringify({ passages: Array.from({ length: 3 }, (_, i) => ({ text: `${i} `.repeat(30_000) })) }));
      } else res.writeHead(404).end();
    });
  });
  await new Promise<void>((r) => search.listen(0, '127.0.0.1', r));
  searchUrl = `http://127.0.0.1:${(search.address() as AddressInfo).port}`;
  sim = await startSimProcess(['--ttft-ms', '40', '--decode-ms-per-token', '2', '--output-tokens', '20']);
  dir = mkdtempSync(join(tmpdir(), 'pi-rag-'));
});
afterAll(async () => {
  sim.child.kill('SIGINT');
  for (const res of hanging) res.destroy();
  search.closeAllConnections();
  await new Promise((r) => search.close(r));
});

describe('prompt-insight run with a retrieval step', () => {
  it('times the step in every run and reports the chain retrieval → TTFT → decode', async () => {
    writeFileSync(join(dir, 'rag.prompty'), prompty('/search'));
    writeFileSync(join(dir, 'plain.prompty'), prompty('/search').replace(/^retrieval:.*\n/m, ''));
    const { code, stdout, stderr } = await cli(['run', 'rag.prompty', '--endpoint', sim.url, '--runs', '10', '--json', '--no-store'], dir);
    expect(stderr).not.toContain('no value for');
    expect(code).toBe(0);
    const json = JSON.parse(stdout);
    expect(queries).toContainEqual({ query: 'homes in Bellevue', topK: 3 });
    for (const run of json.runs) {
      expect(run.ok).toBe(true);
      expect(run.retrievalMs).toBeGreaterThanOrEqual(DELAY_MS);
      expect(run.retrievedPassages).toBe(2);
    }
    // The passages reached the model: the same prompt without them is sent with fewer input tokens.
    const plain = JSON.parse((await cli(['run', 'plain.prompty', '--endpoint', sim.url, '--runs', '1', '--json', '--no-store'], dir)).stdout);
    expect(plain.runs[0].retrievalMs).toBeUndefined();
    expect(plain.summary.chain).toBeUndefined();
    expect(json.runs[0].inputTokens).toBeGreaterThan(plain.runs[0].inputTokens + 15);
    const chain = json.summary.chain;
    expect(chain.runs).toBe(10);
    expect(chain.retrievalMs.n).toBe(10);
    expect(chain.retrievalMs.p50).toBeGreaterThanOrEqual(DELAY_MS);
    expect(chain.retrievalMs.p90).not.toBeNull();
    expect(chain.retrievalMs.p99).toBeNull(); // 10 runs cannot support p99
    // The chain is per run retrieval + E2E, not a sum of percentiles.
    const totals = json.runs.map((r: { retrievalMs: number; e2eMs: number }) => r.retrievalMs + r.e2eMs).sort((a: number, b: number) => a - b);
    expect(chain.chainMs.min).toBeCloseTo(totals[0], 6);
    expect(chain.chainMs.max).toBeCloseTo(totals[9], 6);
    expect(chain.decodeMs.p50).toBeCloseTo(chain.chainMs.p50 - chain.retrievalMs.p50 - chain.ttftMs.p50, -2);
    expect(chain.ttftMs.p50).toBeGreaterThanOrEqual(40);

    const text = await cli(['run', 'rag.prompty', '--endpoint', sim.url, '--runs', '3', '--no-store'], dir);
    expect(text.code).toBe(0);
    expect(text.stdout).toMatch(/^RAG chain p50 \d+ ms = retrieval \d+ ms → TTFT \d+ ms → decode \d+ ms \(n 3\)$/m);
  });

  it('is read from Dotprompt front matter and from the top level of a .prompt.yml too', async () => {
    writeFileSync(join(dir, 'rag.prompt'), `---\nmodel: homes-model\ninput:\n  default:\n    question: homes in Bellevue\nretrieval: { url: "${searchUrl}/search", query: "{{question}}", topK: 1 }\n---\n{{role "system"}}\nAnswer from these listings only.\n{{context}}\n{{role "user"}}\n{{question}}\n`);
    writeFileSync(join(dir, 'rag.prompt.yml'), `name: listings\nmodel: homes-model\nretrieval: { url: "${searchUrl}/search", query: "{{question}}", topK: 2 }\nmessages:\n  - role: system\n    content: "Answer from these listings only. {{context}}"\n  - role: user\n    content: "{{question}}"\ntestData:\n  - question: homes in Bellevue\n`);
    for (const [file, passages] of [['rag.prompt', 1], ['rag.prompt.yml', 2]] as const) {
      const { code, stdout, stderr } = await cli(['run', file, '--endpoint', sim.url, '--json', '--no-store'], dir);
      expect(code, stderr).toBe(0);
      const json = JSON.parse(stdout);
      expect(json.runs[0].retrievedPassages).toBe(passages);
      expect(json.runs[0].retrievalMs).toBeGreaterThanOrEqual(DELAY_MS);
      expect(json.summary.chain.runs).toBe(1);
    }
  });

  it('a search service that hangs: the run fails with kind retrieval-timeout within the step timeout', async () => {
    writeFileSync(join(dir, 'hang.prompty'), prompty('/hang', ', timeoutMs: 300'));
    const started = Date.now();
    const { code, stdout } = await cli(['run', 'hang.prompty', '--endpoint', sim.url, '--runs', '2', '--json', '--no-store'], dir);
    expect(Date.now() - started).toBeLessThan(10_000);
    expect(code).toBe(1);
    const json = JSON.parse(stdout);
    for (const run of json.runs) {
      expect(run.ok).toBe(false);
      expect(run.error.kind).toBe('retrieval-timeout');
      expect(run.error.message).toContain('did not answer within 300 ms');
      expect(run.retrievalMs).toBeGreaterThanOrEqual(290);
      expect(run.ttftMs).toBeNull();
    }
    expect(json.summary.errors).toEqual({ 'retrieval-timeout': 2 });
    const text = await cli(['run', 'hang.prompty', '--endpoint', sim.url, '--runs', '1', '--no-store'], dir);
    expect(text.stderr).toContain('run failed (retrieval-timeout): retrieval: the search service');
    expect(text.stdout).toContain('RAG chain: no run got through retrieval and the model (1 retrieval)');
  });

  it('a malformed answer and passages beyond the bound fail the run with their kind, said', async () => {
    writeFileSync(join(dir, 'junk.prompty'), prompty('/junk'));
    const junk = JSON.parse((await cli(['run', 'junk.prompty', '--endpoint', sim.url, '--json', '--no-store'], dir)).stdout);
    expect(junk.runs[0].error).toEqual({ kind: 'retrieval-bad_response', message: expect.stringContaining('did not answer JSON; expected {"passages"') });
    writeFileSync(join(dir, 'huge.prompty'), prompty('/huge'));
    const huge = await cli(['run', 'huge.prompty', '--endpoint', sim.url, '--no-store'], dir);
    expect(huge.code).toBe(1);
    expect(huge.stderr).toContain('run failed (retrieval-too_large): retrieval: the search service returned 180,000 characters of passages; above 100,000 they are not used');
  });

  it('run --otlp-endpoint exports a retrieval span beside each inference span, in its trace, ending where the model call starts', async () => {
    const received: { path: string; body: any }[] = [];
    const receiver = http.createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        received.push({ path: req.url ?? '', body: JSON.parse(Buffer.concat(chunks).toString('utf8')) });
        res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
      });
    });
    await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
    try {
      const url = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`;
      const { code, stderr } = await cli(['run', 'rag.prompty', '--endpoint', sim.url, '--runs', '2', '--store', join(dir, 'runs.jsonl'), '--otlp-endpoint', url], dir);
      expect(stderr).not.toContain('failed');
      expect(code).toBe(0);
      const spans = received.filter((r) => r.path === '/v1/traces').flatMap((t) => t.body.resourceSpans.flatMap((r: any) => r.scopeSpans.flatMap((s: any) => s.spans)));
      const chats = spans.filter((s: any) => s.name === 'chat homes-model');
      const steps = spans.filter((s: any) => s.name === 'retrieval');
      expect(chats).toHaveLength(2);
      expect(steps).toHaveLength(2);
      for (const chat of chats) {
        const step = steps.find((s: any) => s.traceId === chat.traceId);
        expect(step).toBeDefined();
        expect(step.parentSpanId ?? '').toBe('');
        expect(BigInt(step.endTimeUnixNano)).toBeLessThanOrEqual(BigInt(chat.startTimeUnixNano));
        expect(Number(BigInt(step.endTimeUnixNano) - BigInt(step.startTimeUnixNano)) / 1e6).toBeGreaterThanOrEqual(DELAY_MS);
        const attributes = Object.fromEntries(step.attributes.map(({ key, value }: any) => [key, Object.values(value)[0]]));
        expect(attributes).toMatchObject({ 'gen_ai.prompt.name': 'listings', 'prompt_insight.retrieval.passages': 2 });
      }
    } finally {
      receiver.closeAllConnections();
      await new Promise((r) => receiver.close(r));
    }
  });

  it('the retrieved passages are the context the grounded evaluators judge against (the case gives none)', async () => {
    const judge = await startScriptedJudge([
      { step: 'claims', when: 'Text:', reply: { claims: ['12 Elm St is listed at $790,000.'] } },
      // Matches only when the verdict prompt holds the passage the search service returned, as passage 1.
      { step: 'verdicts', when: `[1] ${LISTING}`, reply: { verdicts: [{ claim: 1, verdict: 'contradicted', passage: 1, reason: 'the listing says $850,000' }] } },
    ]);
    try {
      writeFileSync(join(dir, 'judged.prompty'), prompty('/search'));
      writeFileSync(join(dir, 'judged.tests.yaml'), 'tests:\n  - vars: { question: homes in Bellevue }\n    assert: [{ type: hallucination }]\n');
      const { stdout } = await cli(['run', 'judged.prompty', '--endpoint', sim.url, '--judge-endpoint', judge.url, '--judge-model', 'judge', '--json', '--no-store'], dir);
      const check = JSON.parse(stdout).runs[0].check;
      expect(check.status).toBe('fail');
      expect(check.failed[0].reason).toContain(`claim 1 "12 Elm St is listed at $790,000." contradicted by passage 1 "${LISTING}": the listing says $850,000`);
      expect(judge.requests.some((r) => r.user.includes('[2] 4 Oak Ave: 2 bedrooms, $620,000'))).toBe(true);
    } finally {
      await judge.close();
    }
  });

  it('compare shows the chain of each revision under its line, and in --json', async () => {
    const repo = new TestRepo();
    const tests = 'tests:\n  - vars: { question: homes in Bellevue }\n    assert: [{ type: icontains, value: "" }]\n';
    const base = repo.commit('with retrieval', { 'rag.prompty': prompty('/search'), 'rag.tests.yaml': tests });
    repo.commit('fewer passages', { 'rag.prompty': prompty('/search').replace('topK: 3', 'topK: 1') });
    const args = ['compare', 'rag.prompty', '--base', base.slice(0, 8), '--head', 'HEAD', '--runs', '4', '--endpoint', sim.url, '--no-store'];
    const { stdout, stderr } = await cli(args, repo.root);
    expect(stderr).not.toMatch(/error/i);
    const chainLines = stdout.split('\n').filter((l) => /^\s+RAG chain /.test(l));
    expect(chainLines).toHaveLength(2);
    for (const line of chainLines) expect(line).toMatch(/RAG chain p50 \d+ ms = retrieval (\d+) ms → TTFT \d+ ms → decode \d+ ms \(n 4\)$/);
    // Each under its own revision's line.
    const lines = stdout.split('\n');
    for (const line of chainLines) expect(lines[lines.indexOf(line) - 1]).toMatch(/ adherence \d+\/\d+ /);
    const json = JSON.parse((await cli([...args, '--json'], repo.root)).stdout);
    for (const r of json.revisions) {
      expect(r.chain.runs).toBe(4);
      expect(r.chain.retrievalMs.p50).toBeGreaterThanOrEqual(DELAY_MS);
    }
  });

  it('a malformed step or a command is refused before any run', async () => {
    writeFileSync(join(dir, 'cmd.prompty'), prompty('/search').replace(/^retrieval:.*$/m, 'retrieval: { command: "./search.sh", query: "{{question}}" }'));
    const cmd = await cli(['run', 'cmd.prompty', '--endpoint', sim.url, '--no-store'], dir);
    expect(cmd.code).toBe(1);
    expect(cmd.stderr).toContain('cmd.prompty: retrieval: a command is not run; give the search service as url');
  });
});
