/**
 * `prompt-insight sample` against hostile repositories and hostile production traffic, the built CLI as
 * a child process, with canaries that must stay untouched: a file outside the workspace that a
 * committed link points at, a git-ignored `.env` that a loopback judge must never see, a terminal
 * that must never receive an escape sequence. Also its memory on a trace file of huge inputs, and a
 * SIGTERM while it reads.
 */
import { spawn } from 'node:child_process';
import { createWriteStream, existsSync, lstatSync, mkdtempSync, readdirSync, readFileSync, readlinkSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createGzip } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { CLI, runCli } from '../fixtures/cli';
import { TestRepo } from '../fixtures/gitRepo';
import { otlpSpan, tracesLine } from '../fixtures/otlpTraces';
import { startScriptedJudge, type ScriptedJudge } from './adherence/scriptedJudge';

const PROMPT = `---
name: listings
model:
  api: chat
  configuration: { type: openai, name: homes-model }
---
system:
Answer from these listings only.
{{context}}

user:
{{query}}
`;
const T = Date.UTC(2026, 10, 30, 12);
const CANARY = 'CANARY-ENV-7f3a9c';
const ANSWER = 'The house at 12 Elm St has three bedrooms.';

const messages = (context: string, query: string) => [
  { role: 'system', parts: [{ type: 'text', content: `Answer from these listings only.\n${context}` }] },
  { role: 'user', parts: [{ type: 'text', content: query }] },
];
const span = (i: number, context: string, query: string, extra: Partial<Parameters<typeof otlpSpan>[0]> = {}) =>
  otlpSpan({ promptName: 'listings', version: 'a1b2c3d', startMs: T + i * 60_000, e2eMs: 1000 + i, ttftMs: 100, extra: { 'gen_ai.input.messages': JSON.stringify(messages(context, query)) }, ...extra });

function repoWithTraces(lines: string): TestRepo {
  const repo = new TestRepo();
  repo.commit('listings', { 'listings.prompty': PROMPT, '.gitignore': '.env\n' });
  writeFileSync(join(repo.root, '.env'), `OPENAI_API_KEY=${CANARY}\n`);
  writeFileSync(join(repo.root, 'traces.jsonl'), lines);
  return repo;
}

describe('sample writes only where the workspace rules allow, never through a link', () => {
  it('a committed link waiting at the temporary name (the old `${out}.${pid}.tmp`) is not written through', async () => {
    const outside = mkdtempSync(join(tmpdir(), 'pi-canary-'));
    writeFileSync(join(outside, 'bashrc'), 'CANARY: the user\'s own file\n');
    const repo = repoWithTraces(`${tracesLine([span(1, 'Elm St: 3 bedrooms.', 'Bedrooms at Elm St?')])}\n`);
    const child = spawn(process.execPath, [CLI, 'sample', 'listings.prompty', '--traces', 'traces.jsonl'], { cwd: repo.root });
    // Placed as soon as the pid is known, long before the child has read its files.
    symlinkSync(join(outside, 'bashrc'), join(repo.root, `listings.tests.yaml.${child.pid}.tmp`));
    let stdout = '';
    child.stdout.on('data', (c) => (stdout += c));
    const code = await new Promise<number | null>((r) => child.on('exit', r));
    expect(readFileSync(join(outside, 'bashrc'), 'utf8')).toBe('CANARY: the user\'s own file\n');
    expect(code).toBe(0);
    expect(stdout).toContain('Appended 1 case');
    expect(parse(readFileSync(join(repo.root, 'listings.tests.yaml'), 'utf8')).tests[0].vars).toEqual({ context: 'Elm St: 3 bedrooms.', query: 'Bedrooms at Elm St?' });
    expect(readdirSync(repo.root).filter((f) => f.endsWith('.tmp') && !f.includes(String(child.pid)))).toEqual([]); // no temporary left behind
  });

  it('a committed link as the tests file (even to a file inside the workspace) is refused and left as it is', async () => {
    const repo = repoWithTraces(`${tracesLine([span(1, 'Elm St.', 'Bedrooms?')])}\n`);
    writeFileSync(join(repo.root, 'NOTES.md'), '# notes\n');
    symlinkSync('NOTES.md', join(repo.root, 'listings.tests.yaml'));
    const { code, stderr } = await runCli(['sample', 'listings.prompty', '--traces', 'traces.jsonl'], repo.root);
    expect(code).toBe(1);
    expect(stderr).toMatch(/'listings\.tests\.yaml' is a link .*never writes tests files through a link/);
    expect(lstatSync(join(repo.root, 'listings.tests.yaml')).isSymbolicLink()).toBe(true);
    expect(readlinkSync(join(repo.root, 'listings.tests.yaml'))).toBe('NOTES.md');
    expect(readFileSync(join(repo.root, 'NOTES.md'), 'utf8')).toBe('# notes\n');
  });

  it('--out through a committed folder link out of the workspace is refused; nothing is written there', async () => {
    const outside = mkdtempSync(join(tmpdir(), 'pi-canary-'));
    const repo = repoWithTraces(`${tracesLine([span(1, 'Elm St.', 'Bedrooms?')])}\n`);
    symlinkSync(outside, join(repo.root, 'cases'));
    const { code, stderr } = await runCli(['sample', 'listings.prompty', '--traces', 'traces.jsonl', '--out', 'cases/listings.tests.yaml'], repo.root);
    expect(code).toBe(1);
    expect(stderr).toMatch(/outside the workspace/);
    expect(readdirSync(outside)).toEqual([]);
  });
});

describe('production text stays data', () => {
  let judge: ScriptedJudge;
  let model: import('node:http').Server;
  let modelUrl: string;
  const modelBodies: string[] = [];
  beforeAll(async () => {
    const http = await import('node:http');
    model = http.createServer((req, res) => {
      let body = '';
      req.on('data', (c) => (body += c));
      req.on('end', () => {
        if (req.method !== 'POST' || !req.url!.endsWith('/chat/completions')) return void res.writeHead(404).end();
        modelBodies.push(body);
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        res.write(`data: ${JSON.stringify({ choices: [{ index: 0, delta: { content: ANSWER }, finish_reason: null }] })}\n\n`);
        res.write(`data: ${JSON.stringify({ choices: [{ index: 0, delta: {}, finish_reason: 'stop' }], usage: { prompt_tokens: 40, completion_tokens: 9 } })}\n\n`);
        res.end('data: [DONE]\n\n');
      });
    });
    await new Promise<void>((r) => model.listen(0, '127.0.0.1', r));
    modelUrl = `http://127.0.0.1:${(model.address() as import('node:net').AddressInfo).port}/v1`;
    judge = await startScriptedJudge([
      { step: 'claims', when: ANSWER, reply: { claims: [ANSWER] } },
      { step: 'verdicts', when: `1. ${ANSWER}`, reply: { verdicts: [{ claim: 1, verdict: 'not-mentioned' }] } },
    ]);
  });
  afterAll(async () => {
    await new Promise((r) => model.close(r));
    await judge.close();
  });

  it('a captured `${file:.env}` is written inert; compare later judges the case and sends no .env content anywhere', async () => {
    const repo = repoWithTraces(`${tracesLine([span(1, '${file:.env}', 'What does Elm St cost?'), span(2, '  $${env:HOME}', 'And Oak St?')])}\n`);
    writeFileSync(join(repo.root, 'listings.tests.yaml'), 'defaultTest:\n  assert:\n    - { type: hallucination }\ntests: []\n');
    const sampled = await runCli(['sample', 'listings.prompty', '--traces', 'traces.jsonl', '--strategy', 'slowest'], repo.root);
    expect(sampled.code).toBe(0);
    const written = readFileSync(join(repo.root, 'listings.tests.yaml'), 'utf8');
    expect(written).not.toContain(CANARY);
    const base = repo.commit('sampled cases', { 'listings.tests.yaml': written });
    const head = repo.commit('rephrase', { 'listings.prompty': PROMPT.replace('listings only.', 'listings only, please.') });
    const { code, stderr } = await runCli(['compare', 'listings.prompty', '--base', base, '--head', head, '--runs', '1', '--endpoint', modelUrl, '--judge-endpoint', judge.url, '--judge-model', 'judge', '--no-store', '--json'], repo.root);
    expect(stderr).not.toContain(CANARY);
    expect(code).toBe(0);
    const verdicts = judge.requests.filter((r) => r.user.includes(`1. ${ANSWER}`));
    expect(verdicts.length).toBeGreaterThan(0); // the case's context did reach the judge: as the literal text
    expect(verdicts.some((r) => r.user.includes('${file:.env}')), JSON.stringify(verdicts.map((r) => r.user))).toBe(true);
    for (const r of judge.requests) expect(r.user + r.system).not.toContain(CANARY);
    for (const body of modelBodies) expect(body).not.toContain(CANARY);
    expect(modelBodies.some((b) => b.includes('${file:.env}'))).toBe(true);
    // Written one `$` up, read back one `$` down: the literal production text, never a reference.
    expect(parse(written).tests.map((c: { vars: { context: string } }) => c.vars.context).sort()).toEqual(['  $$${env:HOME}', '$${file:.env}']);
  });

  it('terminal escapes in trace attributes (OSC 52 clipboard, clear screen, 8-bit CSI, bidi overrides) never reach the terminal, in text or JSON', async () => {
    const hostile = 'v1\u001b]52;c;ZXZpbA==\u0007\u001b[2J\u009b31m\u202egnp.exe';
    const repo = repoWithTraces(`${tracesLine([span(1, 'Elm St.', 'Bedrooms?', { version: hostile, errorType: 'boom\u001b[8m' })])}\n`);
    for (const extra of [['--dry-run'], ['--dry-run', '--json']]) {
      const { code, stdout, stderr } = await runCli(['sample', 'listings.prompty', '--traces', 'traces.jsonl', ...extra], repo.root);
      expect(code).toBe(0);
      for (const out of [stdout, stderr]) expect(out).not.toMatch(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/);
      if (extra.includes('--json')) expect(JSON.parse(stdout).added[0].version).toBe(hostile);
      else expect(stdout).toContain('version v1\ufffd]52;c;ZXZpbA==');
    }
  });
});

describe('sample on huge and endless input', () => {
  it('60 spans of 10 MiB captured input (a small gzip) are counted, not held: the process stays far below the 1.2 GB it took', async () => {
    const repo = repoWithTraces('');
    const big = 'Find homes near Elm St. '.repeat((10 * 1024 * 1024) / 24);
    const gzip = createGzip();
    const file = createWriteStream(join(repo.root, 'huge.jsonl.gz'));
    gzip.pipe(file);
    for (let i = 0; i < 60; i++) {
      if (!gzip.write(`${tracesLine([span(i, 'Elm St.', big)])}\n`)) await new Promise((r) => gzip.once('drain', () => r(undefined)));
    }
    gzip.end();
    await new Promise<void>((r) => file.on('close', () => r()));
    const { code, stdout, maxRssBytes } = await runCli(['sample', 'listings.prompty', '--traces', 'huge.jsonl.gz', '--dry-run', '--json'], repo.root, { measureRss: true, killAfterMs: 300_000 });
    expect(maxRssBytes).toBeLessThan(400 * 1024 * 1024);
    expect(code).toBe(0);
    expect(JSON.parse(stdout)).toMatchObject({ requests: 60, inputTooLarge: 60, added: [] });
  }, 300_000);

  it('SIGTERM while it reads a stream of 210,000-character inputs that do not fit the template: it stops and says nothing was written', async () => {
    const repo = repoWithTraces('');
    // The system message fits the template (context = the long run); no user message follows, so the case is kept as its messages.
    const input = [{ role: 'system', parts: [{ type: 'text', content: `Answer from these listings only.\n${'a'.repeat(210_000)}` }] }];
    const line = `${tracesLine([otlpSpan({ promptName: 'listings', version: 'v1', startMs: T, e2eMs: 10, extra: { 'gen_ai.input.messages': JSON.stringify(input) } })])}\n`;
    const gzip = createGzip();
    const file = createWriteStream(join(repo.root, 'endless.jsonl.gz'));
    gzip.pipe(file);
    // Some 200 MB once decompressed: far more than it reads before the signal comes.
    for (let i = 0; i < 1000; i++) if (!gzip.write(line)) await new Promise((r) => gzip.once('drain', () => r(undefined)));
    gzip.end();
    await new Promise<void>((r) => file.on('close', () => r()));
    const child = spawn(process.execPath, [CLI, 'sample', 'listings.prompty', '--traces', 'endless.jsonl.gz'], { cwd: repo.root });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c) => (stdout += c));
    const exited = new Promise<number | null>((r) => child.on('exit', (code) => r(code)));
    await new Promise<void>((ready) => child.stderr.on('data', (c) => ((stderr += c), stderr.includes('Reading 1 trace file') && ready())));
    child.kill('SIGTERM');
    expect(await exited).toBe(130);
    expect(stdout).toBe('');
    expect(existsSync(join(repo.root, 'listings.tests.yaml'))).toBe(false);
  }, 120_000);
});
