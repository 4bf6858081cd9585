/** `prompt-insight prod FILE --traces …`: a real git repo, generated OTLP JSON Lines, the CLI as a child process. */
import { writeFileSync } from 'node:fs';
import { createServer, type AddressInfo } from 'node:net';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { beforeAll, describe, expect, it } from 'vitest';
import { parsePromptFile } from '../../src/core/formats/detect';
import { renderWithReferences } from '../../src/core/render/renderWithReferences';
import { requestOf } from '../../src/core/run/promptRequest';
import { promptContentHash } from '../../src/core/store/runKey';
import { TestRepo } from '../fixtures/gitRepo';
import { otlpSpan, tracesLine } from '../fixtures/otlpTraces';
import { runCli } from '../fixtures/cli';

const cli = (args: string[], cwd: string) => runCli(args, cwd, { maxBuffer: 64 * 1024 * 1024 });

const TEXT_A = '---\nmodel: gpt-test\n---\nSay hello to the user.\n';
const TEXT_B = '---\nmodel: gpt-test\n---\nSay hello to the user, briefly and warmly, in their language.\n';

/** The content hash `run` keys a run with (and the exporter puts in gen_ai.prompt.version for uncommitted text). */
async function contentHash(text: string): Promise<string> {
  const prompt = parsePromptFile('greet.prompt', text).prompts[0]!;
  const { rendering } = await renderWithReferences(text, prompt, {}, {});
  return promptContentHash(requestOf(prompt, rendering.messages, { endpointDefault: 'any' }));
}

let repo: TestRepo;
let a: string;
let b: string;
let hashA: string;
const now = Date.now();
const HOUR = 3_600_000;

beforeAll(async () => {
  repo = new TestRepo();
  a = repo.commit('First greeting', { 'greet.prompt': TEXT_A });
  b = repo.commit('Longer greeting', { 'greet.prompt': TEXT_B });
  hashA = await contentHash(TEXT_A);
  // Version A (by content hash, as an uncommitted run would be labelled): 30 fast requests, no errors, 3 h ago.
  const spansA = Array.from({ length: 30 }, (_, i) => otlpSpan({ promptName: 'greet', version: `sha256:${hashA.slice(0, 16)}`, startMs: now - 3 * HOUR + i * 1000, ttftMs: 100 + i, e2eMs: 300 + i, inputTokens: 40, outputTokens: 21, cacheRead: 0 }));
  // Version B (by commit id prefix, base64 ids): 30 slower successes and 10 rate-limit errors, 30 min ago.
  const spansB = [
    ...Array.from({ length: 30 }, (_, i) => otlpSpan({ promptName: 'greet', version: b.slice(0, 7), startMs: now - HOUR / 2 + i * 1000, ttftMs: 200 + i, e2eMs: 600 + 2 * i, inputTokens: 60, outputTokens: 21, cacheRead: 30, ids: 'base64' })),
    ...Array.from({ length: 10 }, (_, i) => otlpSpan({ promptName: 'greet', version: b.slice(0, 7), startMs: now - HOUR / 2 + i * 500, e2eMs: 50, errorType: 'rate_limit', ids: 'base64' })),
  ];
  const hotfix = Array.from({ length: 3 }, (_, i) => otlpSpan({ promptName: 'greet', version: 'v-hotfix', startMs: now - 4 * HOUR + i, e2eMs: 400, ttftMs: 150 }));
  const other = [otlpSpan({ promptName: 'summarize', version: 'v9', startMs: now - HOUR, e2eMs: 100 }), otlpSpan({ promptName: 'evil\u001b[2J\u001b]0;pwned\u0007', version: 'v1', startMs: now - HOUR, e2eMs: 100 })];
  writeFileSync(join(repo.root, 'a.jsonl'), `${tracesLine(spansA)}\n{broken\n${tracesLine([...hotfix, ...other])}\n`);
  writeFileSync(join(repo.root, 'b.jsonl.gz'), gzipSync(`${tracesLine(spansB)}\n`));
});

describe('prompt-insight prod --traces', () => {
  it('maps versions to git revisions (commit prefix and content hash), says the unknown one, compares latest with previous only over matched hours', async () => {
    const { code, stdout, stderr } = await cli(['prod', 'greet.prompt', '--traces', 'a.jsonl', 'b.jsonl.gz', '--json'], repo.root);
    expect(stderr).toBe('');
    expect(code).toBe(0);
    const report = JSON.parse(stdout);
    expect(report.versions.map((v: { version: string }) => v.version)).toEqual([b.slice(0, 7), `sha256:${hashA.slice(0, 16)}`, 'v-hotfix']);
    const [vb, va, vh] = report.versions;
    expect(vb).toMatchObject({ revision: b, matchedBy: 'commit', inGitHistory: true, revisionSubject: 'Longer greeting', requests: 40, errors: 10, errorsByType: { rate_limit: 10 } });
    expect(va).toMatchObject({ revision: a, matchedBy: 'content-hash', inGitHistory: true, requests: 30, errors: 0 });
    expect(vh).toMatchObject({ revision: null, inGitHistory: false, requests: 3 });
    expect(vb.errorRate).toBeCloseTo(0.25, 9);
    expect(vb.ttftMs.p50.value).toBeCloseTo(214.5, 3);
    expect(va.ttftMs.p50.value).toBeCloseTo(114.5, 3);
    expect(va.e2eMs.p90.value).toBeCloseTo(326.1, 3);
    // TPOT = (E2E − TTFT) / 20 per request: A's are all (300 + i − 100 − i) / 20 = 10 ms
    expect(va.tpotMs.p50.value).toBeCloseTo(10, 3);
    expect(va.tpotMs.p50.ci95).toEqual([10, 10]);
    // the 10 failed calls reported no usage
    expect(vb.tokens).toEqual({ input: 30 * 60, output: 30 * 21, cacheRead: 30 * 30, requestsWithUsage: 30 });
    expect(vb.cacheReadShare).toBeCloseTo(0.5, 9);
    expect(report.comparison.head).toBe(b.slice(0, 7));
    expect(report.comparison.base).toBe(`sha256:${hashA.slice(0, 16)}`);
    const verdict = Object.fromEntries(report.comparison.verdicts.map((v: { metric: string; verdict: string }) => [v.metric, v.verdict]));
    // A served 3 h ago, B in the last hour: different hours, nothing to match them on — no verdict (traffic differs by the hour).
    expect(verdict).toEqual({ ttftMs: 'insufficient', e2eMs: 'insufficient', errorRate: 'insufficient' });
    expect(report.comparison.matching).toMatchObject({ method: 'unmatched', hours: 0 });
    expect(report.skipped).toEqual({ lines: 1, spans: 0, reasons: { 'malformed-json': 1 } });
    expect(report.otherPrompts).toEqual({ summarize: 1, 'evil\u001b[2J\u001b]0;pwned\u0007': 1 });
    expect(report.notes.join('\n')).toMatch(/version v-hotfix is seen in production \(3 requests\) but is not in greet\.prompt's git history/);
  });

  it('prints the same as text, and --since leaves older traffic out', async () => {
    const text = await cli(['prod', 'greet.prompt', '--traces', 'a.jsonl', '--traces', 'b.jsonl.gz'], repo.root);
    expect(text.code).toBe(0);
    expect(text.stdout).toContain(`version ${b.slice(0, 7)} (greet) · ${b.slice(0, 10)} "Longer greeting"`);
    expect(text.stdout).toContain('40 requests · 10 errors (25.0%) · rate_limit 10');
    expect(text.stdout).toMatch(/insufficient\s+TTFT: no verdict: the two versions served different hours/);
    expect(text.stdout).toContain('not in git history');
    expect(text.stdout).toContain('skipped: 1 lines, 0 spans (malformed-json 1)');
    // A prompt name from a trace file is anyone's text: no terminal escape reaches the terminal.
    expect(text.stdout).not.toMatch(/[\u001b\u0007]/);
    expect(text.stdout).toContain('evil\ufffd[2J\ufffd]0;pwned\ufffd 1');
    const recent = JSON.parse((await cli(['prod', 'greet.prompt', '--traces', 'a.jsonl', 'b.jsonl.gz', '--since', '1h', '--json'], repo.root)).stdout);
    expect(recent.versions.map((v: { version: string }) => v.version)).toEqual([b.slice(0, 7)]);
    expect(recent.comparison).toBeNull();
  });

  it('refuses a missing source, two sources, a bad --since; says which trace file is missing', async () => {
    expect((await cli(['prod', 'greet.prompt'], repo.root)).code).toBe(2);
    expect((await cli(['prod', 'greet.prompt', '--traces', 'a.jsonl', '--prometheus', 'http://127.0.0.1:9'], repo.root)).code).toBe(2);
    const since = await cli(['prod', 'greet.prompt', '--traces', 'a.jsonl', '--since', 'yesterday'], repo.root);
    expect(since.code).toBe(2);
    expect(since.stderr).toContain('--since takes a duration');
    const ages = await cli(['prod', 'greet.prompt', '--traces', 'a.jsonl', '--since', '100000000w'], repo.root);
    expect(ages.code, ages.stderr).toBe(2);
    expect(ages.stderr).toContain('--since 100000000w reaches before any date a time can hold');
    const missing = await cli(['prod', 'greet.prompt', '--traces', 'nope.jsonl'], repo.root);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain("'nope.jsonl' was not found");
  });

  it('states an unreachable Prometheus instead of crashing', async () => {
    const closed = createServer();
    await new Promise<void>((done) => closed.listen(0, '127.0.0.1', done));
    const port = (closed.address() as AddressInfo).port;
    await new Promise((done) => closed.close(done));
    const down = await cli(['prod', 'greet.prompt', '--prometheus', `http://127.0.0.1:${port}`, '--timeout-ms', '2000'], repo.root);
    expect(down.code).toBe(1);
    expect(down.stderr).toMatch(/prompt-insight prod: Prometheus query failed: cannot read it \(ECONNREFUSED\)/);
  });

  it('--now reads as of an earlier moment: spans that ended later are left out and said; a malformed --now is a usage error', async () => {
    // Between A (3 h ago) and B (30 min ago): only A and the hotfix had happened (B's 40 and two other prompts' spans came later).
    const at = new Date(now - 2 * HOUR).toISOString();
    const { code, stdout } = await cli(['prod', 'greet.prompt', '--traces', 'a.jsonl', 'b.jsonl.gz', '--now', at, '--json'], repo.root);
    expect(code).toBe(0);
    const report = JSON.parse(stdout);
    expect(report.versions.map((v: { version: string }) => v.version)).toEqual([`sha256:${hashA.slice(0, 16)}`, 'v-hotfix']);
    expect(report.notes.join('\n')).toMatch(/42 inference spans ended outside the window \(before --since or after --now\)/);
    expect(await cli(['prod', 'greet.prompt', '--traces', 'a.jsonl', '--now', 'tomorrow'], repo.root)).toMatchObject({ code: 2, stderr: expect.stringContaining('--now takes an ISO date') });
  });

});
