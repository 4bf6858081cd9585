/**
 * `sample` aimed at an anomaly, on a real git repository with a gray release: version 1 (an older
 * system text) then version 2 (the current one), named by a NAME.versions.yaml registry and, for some
 * calls, by the deploy commit. `--version` picks a version's calls however production named it,
 * `--since`/`--until` a range of end times, `slowest` passes over 30 s timeouts and 429s (counted),
 * and a case sampled from version 1 keeps only production's user turn: run by `compare` against a
 * model server on 127.0.0.1 that records what it is sent, the head sends the current system text with
 * that turn. The built CLI as a child process.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { startAnsweringModel, type AnsweringModel } from '../fixtures/answeringModel';
import { runCli } from '../fixtures/cli';
import { TestRepo } from '../fixtures/gitRepo';
import { otlpSpan, tracesLine } from '../fixtures/otlpTraces';
import { PROMPT } from '../fixtures/sampledPrompt';

const OLD_SYSTEM = 'Suggest condos and townhouses too.';
const OLD_PROMPT = PROMPT.replace('List single-family homes only.', OLD_SYSTEM);
const CURRENT_SYSTEM = 'List single-family homes only.';
const DAY = 86_400_000;
const T0 = Date.UTC(2026, 10, 20, 12);
const NOW = '2026-11-30T00:00:00Z';
const hex = (n: number, bytes: number) => n.toString(16).padStart(bytes * 2, '0');

interface Call {
  id: number;
  version: string;
  day: number;
  e2eMs: number;
  old?: boolean;
  errorType?: string;
}

let repo: TestRepo;
let oldRev: string;
let newRev: string;
let model: AnsweringModel;
const sent: string[] = [];

/** Version 1's calls (three days, some labelled by the deploy commit), then version 2's with a timeout and a 429. */
function calls(): Call[] {
  return [
    { id: 1, version: '1', day: 0, e2eMs: 2000, old: true },
    { id: 2, version: '1', day: 1, e2eMs: 6000, old: true },
    { id: 3, version: oldRev.slice(0, 12), day: 2, e2eMs: 4000, old: true },
    { id: 4, version: '2', day: 3, e2eMs: 3000 },
    { id: 5, version: '2', day: 4, e2eMs: 30_000, errorType: 'timeout' },
    { id: 6, version: '2', day: 4, e2eMs: 2500 },
    { id: 7, version: '2', day: 5, e2eMs: 9000, errorType: '429' },
  ];
}

const requestOf = (id: number) => `Call ${id}: three bedrooms near a park.`;

function traceFile(only: (c: Call) => boolean = () => true): string {
  const spans = calls().filter(only).map((c) => {
    const system = `You are a real-estate assistant for Tulsa, OK. ${c.old ? OLD_SYSTEM : CURRENT_SYSTEM}`;
    const messages = [
      { role: 'system', parts: [{ type: 'text', content: system }] },
      { role: 'user', parts: [{ type: 'text', content: requestOf(c.id) }] },
    ];
    const span = otlpSpan({ promptName: 'homes-assistant', version: c.version, startMs: T0 + c.day * DAY, e2eMs: c.e2eMs, ttftMs: 100, outputTokens: c.errorType ? 0 : 40, ...(c.errorType ? { errorType: c.errorType } : {}), extra: { 'gen_ai.input.messages': JSON.stringify(messages) } });
    return { ...span, traceId: hex(c.id, 16), spanId: hex(c.id, 8) };
  });
  return `${tracesLine(spans)}\n`;
}

beforeAll(async () => {
  repo = new TestRepo();
  oldRev = repo.commit('version 1', { 'homes.prompty': OLD_PROMPT });
  newRev = repo.commit('version 2: single-family homes only', { 'homes.prompty': PROMPT, 'homes.versions.yaml': `"1": ${oldRev}\n"2": HEAD\n` });
  writeFileSync(join(repo.root, 'traces.jsonl'), traceFile());
  writeFileSync(join(repo.root, 'version1.jsonl'), traceFile((c) => c.old === true));
  model = await startAnsweringModel((messages) => {
    sent.push(messages);
    return 'Three single-family homes near Woodward Park.';
  });
});
afterAll(async () => {
  await model?.close();
  rmSync(repo.root, { recursive: true, force: true });
});

const sample = async (args: string[], traces = 'traces.jsonl') => {
  const r = await runCli(['sample', 'homes.prompty', '--traces', traces, ...args], repo.root);
  return { ...r, json: r.stdout.startsWith('{') ? JSON.parse(r.stdout) : null };
};
const ids = (json: { added: { traceId: string }[] }) => json.added.map((a) => Number.parseInt(a.traceId, 16)).sort((a, b) => a - b);

describe('sample --version, --since, --until', () => {
  it('--version names a version as prod does: a registry label or a commit picks the calls of that revision, however they were labelled', async () => {
    const byLabel = await sample(['--version', '1', '--n', '10', '--dry-run', '--json']);
    expect(byLabel.stderr).not.toMatch(/error|unknown option/i);
    expect(byLabel.code).toBe(0);
    expect(ids(byLabel.json)).toEqual([1, 2, 3]); // call 3 named the deploy commit, not the label
    expect(byLabel.json).toMatchObject({ requests: 3, otherVersions: 4, version: { asked: '1', revision: oldRev } });
    const byCommit = await sample(['--version', oldRev.slice(0, 8), '--n', '10', '--dry-run', '--json']);
    expect(ids(byCommit.json)).toEqual([1, 2, 3]);
    expect(ids((await sample(['--version', '2', '--n', '10', '--dry-run', '--json'])).json)).toEqual([4, 5, 6, 7]);
  });

  it('an unknown version is a usage error listing the versions seen', async () => {
    const r = await sample(['--version', '9', '--dry-run']);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('--version 9 is not a version of homes-assistant');
    expect(r.stderr).toMatch(/versions seen: 2 \(4 calls\), 1 \(2 calls\), [0-9a-f]{12} \(1 call\)/);
  });

  it('--since and --until keep the calls that ended in the range (ISO dates or durations before --now)', async () => {
    const iso = await sample(['--since', new Date(T0 + DAY).toISOString(), '--until', new Date(T0 + 3 * DAY + 60_000).toISOString(), '--now', NOW, '--n', '10', '--dry-run', '--json']);
    expect(iso.code).toBe(0);
    expect(ids(iso.json)).toEqual([2, 3, 4]);
    expect(iso.json).toMatchObject({ requests: 3, outsideRange: 4 });
    // NOW is 9.5 days after T0: 7d ago is day 2.5, 5d ago day 4.5.
    const ages = await sample(['--since', '7d', '--until', '5d', '--now', NOW, '--n', '10', '--dry-run', '--json']);
    expect(ids(ages.json)).toEqual([4, 5, 6]);
    const text = await sample(['--since', '7d', '--until', '5d', '--now', NOW, '--version', '2', '--n', '10', '--dry-run']);
    expect(text.stdout).toContain('3 production requests of homes-assistant of version 2');
    expect(text.stdout).toContain('Left out: 4 outside the range.');
    // A version that exists but served nothing in the range: said, not an error.
    const none = await sample(['--version', '2', '--until', new Date(T0 + DAY).toISOString(), '--dry-run']);
    expect(none.code).toBe(0);
    expect(none.stdout).toContain('No call of version 2 in these traces in that range; versions seen: 1 (1).');
    expect((await sample(['--until', 'tomorrow'])).stderr).toContain("--until takes a duration (30m, 24h, 7d, 2w) before now or an ISO date (got 'tomorrow')");
    expect((await sample(['--since', '2d', '--until', '5d'])).stderr).toContain('--until 5d is before --since 2d');
  });

  it('slowest is the slowest calls that answered: the 30 s timeout and the 429 are skipped and counted; errors samples them with their error type', async () => {
    const slowest = await sample(['--strategy', 'slowest', '--n', '1', '--dry-run']);
    expect(slowest.stdout).toContain(`trace ${hex(2, 16)}`); // 6 s; not the 30 s timeout nor the 9 s 429
    expect(slowest.stdout).toContain('slowest takes calls that answered: 2 failed calls (timeouts, rate limits, server errors, empty answers) skipped; --strategy errors samples them.');
    const errors = await sample(['--strategy', 'errors', '--n', '5', '--out', 'failures.tests.yaml']);
    expect(errors.code).toBe(0);
    const written = parse(readFileSync(join(repo.root, 'failures.tests.yaml'), 'utf8')).tests as { description: string; metadata: { errorType: string } }[];
    expect(written.map((t) => t.metadata.errorType).sort()).toEqual(['429', 'timeout']);
    expect(written.find((t) => t.metadata.errorType === '429')!.description).toContain('failed (429)');
  });
});

describe('a case sampled from an older version runs with the current prompt', () => {
  it("keeps production's user turn, never the old system text; compare sends the head's system text with that turn", async () => {
    const r = await sample(['--strategy', 'slowest', '--n', '2'], 'version1.jsonl');
    expect(r.code).toBe(0);
    const text = readFileSync(join(repo.root, 'homes.tests.yaml'), 'utf8');
    expect(text).not.toContain(OLD_SYSTEM);
    const cases = parse(text).tests as { turns?: { role: string; content: string }[]; metadata: { traceId: string } }[];
    expect(cases.map((c) => c.turns)).toEqual([[{ role: 'user', content: requestOf(2) }], [{ role: 'user', content: requestOf(3) }]]);
    const head = repo.commit('sampled version 1 cases', { 'homes.tests.yaml': text });
    const compare = await runCli(['compare', 'homes.prompty', '--base', newRev, '--head', head, '--runs', '1', '--endpoint', model.url, '--model', 'gpt-test', '--no-store', '--json'], repo.root);
    expect(compare.code, compare.stderr).toBe(0);
    const requests = sent.map((s) => JSON.parse(s) as { role: string; content: string }[]);
    for (const id of [2, 3]) {
      const withTurn = requests.filter((messages) => messages.some((m) => m.role === 'user' && m.content === requestOf(id)));
      expect(withTurn.length).toBeGreaterThan(0);
      for (const messages of withTurn) {
        expect(messages).toEqual([
          { role: 'system', content: `You are a real-estate assistant for Bellevue, WA. ${CURRENT_SYSTEM}` },
          { role: 'user', content: requestOf(id) },
        ]);
      }
    }
    expect(sent.join('\n')).not.toContain(OLD_SYSTEM);
  });
});

describe('a prompt whose system text has no variables', () => {
  it("a call of an older system text keeps the variables its user turn gives, so it runs as any case; an older sampled case's `messages:` runs as its turns", async () => {
    const dir = mkdtempSync(join(tmpdir(), 'pi-sample-static-'));
    try {
      const prompt = PROMPT.replace('You are a real-estate assistant for {{city}}. List single-family homes only.', 'You are a real-estate assistant. List single-family homes only.');
      writeFileSync(join(dir, 'static.prompty'), prompt);
      const messages = [
        { role: 'system', parts: [{ type: 'text', content: 'You are a real-estate assistant. Suggest condos too.' }] },
        { role: 'user', parts: [{ type: 'text', content: 'A yard for a dog.' }] },
      ];
      const span = otlpSpan({ promptName: 'homes-assistant', version: 'v1', startMs: T0, e2eMs: 1500, ttftMs: 100, outputTokens: 30, extra: { 'gen_ai.input.messages': JSON.stringify(messages) } });
      writeFileSync(join(dir, 'traces.jsonl'), `${tracesLine([span])}\n`);
      // A case an older `sample` wrote, with the old system text in `messages:`.
      writeFileSync(join(dir, 'static.tests.yaml'), 'tests:\n  - description: older sampled case\n    vars: {}\n    messages:\n      - {role: system, content: An older system text.}\n      - {role: user, content: Homes in Tacoma?}\n    assert:\n      - {type: latency, threshold: 60000}\n');
      const r = await runCli(['sample', 'static.prompty', '--traces', 'traces.jsonl'], dir);
      expect(r.code, r.stderr).toBe(0);
      const cases = parse(readFileSync(join(dir, 'static.tests.yaml'), 'utf8')).tests as { vars?: unknown; turns?: unknown; metadata?: { inputs: string } }[];
      expect(cases[1]).toMatchObject({ vars: { request: 'A yard for a dog.' }, metadata: { inputs: 'template-variables' } });
      expect(cases[1]!.turns).toBeUndefined();
      const load = await runCli(['load', 'static.prompty', '--inputs', 'tests', '--endpoint', model.url, '--model', 'gpt-test', '--requests', '4', '--concurrency', '1', '--slo', 'e2eMs.p90<=60000', '--no-store', '--json'], dir);
      expect(load.code, load.stderr).toBe(0);
      const bodies = sent.slice(-4).map((s) => JSON.parse(s) as { role: string; content: string }[]);
      const system = { role: 'system', content: 'You are a real-estate assistant. List single-family homes only.' };
      expect(bodies).toContainEqual([system, { role: 'user', content: 'Homes in Tacoma?' }]);
      expect(bodies).toContainEqual([system, { role: 'user', content: 'A yard for a dog.' }]);
      expect(sent.join('\n')).not.toMatch(/An older system text|Suggest condos too/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
