/**
 * `prompt-insight sample` on generated OTLP trace files whose spans carry `gen_ai.input.messages`
 * with known inputs — secrets and personal data among them, a duplicate, an input already in the
 * tests file, messages that do not match the template, spans without input, malformed spans and one
 * that ends in the future. Each strategy's choice is checked, nothing secret reaches the file, the
 * existing case and comment stay, and `compare` then runs the sampled cases on the simulator. The CLI
 * as a child process.
 */
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { parseScenario } from '../../src/core/sim/scenario';
import { startSim, type RunningSim } from '../../src/core/sim/simServer';
import { TestRepo } from '../fixtures/gitRepo';
import { otlpSpan, tracesLine } from '../fixtures/otlpTraces';
import { runCli } from '../fixtures/cli';
import { PROMPT } from '../fixtures/sampledPrompt';

const cli = (args: string[], cwd: string) => runCli(args, cwd);


const EXISTING = `# Hand-written cases: keep this comment.
tests:
  - description: Bellevue three bedrooms
    vars:
      city: Bellevue, WA
      request: Find homes with three bedrooms.
    assert:
      - type: icontains
        value: home
`;

const T = Date.UTC(2026, 10, 30, 12);
const SECRETS = ['jane.doe@example.com', '+1 425-555-0199', '4111 1111 1111 1111', 'sk-proj-abcdefghijklmnopqrstuvwx', '10.0.0.12', 'ACCT-998877'];

interface Spec {
  id: number;
  city?: string;
  request?: string;
  messages?: unknown;
  e2eMs: number;
  version?: string;
  errorType?: string;
  startMs?: number;
}

const messagesOf = (city: string, request: string) => [
  { role: 'system', parts: [{ type: 'text', content: `You are a real-estate assistant for ${city}. List single-family homes only.` }] },
  { role: 'user', parts: [{ type: 'text', content: request }] },
];

const SPANS: Spec[] = [
  { id: 1, city: 'Austin, TX', request: 'Homes under $500k. Email me at jane.doe@example.com or call +1 425-555-0199.', e2eMs: 1200 },
  { id: 2, city: 'Denver, CO', request: 'Pay with card 4111 1111 1111 1111, order 1234567812345678.', e2eMs: 5200 },
  { id: 3, city: 'Boise, ID', request: 'Use key sk-proj-abcdefghijklmnopqrstuvwx from 10.0.0.12, account ACCT-998877.', e2eMs: 800, errorType: 'timeout' },
  { id: 4, city: 'Reno, NV', request: 'Three bedrooms near a school.', e2eMs: 4100 },
  { id: 5, city: 'Austin, TX', request: 'Homes under $500k. Email me at jane.doe@example.com or call +1 425-555-0199.', e2eMs: 9000 }, // duplicate of 1 (slowest!)
  { id: 6, city: 'Bellevue, WA', request: 'Find homes with three bedrooms.', e2eMs: 7000 }, // already in the file
  { id: 7, messages: [{ role: 'system', parts: [{ type: 'text', content: 'An older system prompt.' }] }, { role: 'user', parts: [{ type: 'text', content: 'Homes in Tacoma?' }] }], e2eMs: 3000 },
  { id: 8, city: 'Tulsa, OK', request: 'A yard for a dog.', e2eMs: 2500, version: 'b7e1c2d' },
  { id: 9, city: 'Omaha, NE', request: 'Near a park.', e2eMs: 1500, version: 'b7e1c2d', errorType: 'rate_limit' },
];

const hex = (n: number, bytes: number) => n.toString(16).padStart(bytes * 2, '0');

function traceFile(): string {
  const spans = SPANS.map((s) => {
    const messages = s.messages ?? messagesOf(s.city!, s.request!);
    const span = otlpSpan({ promptName: 'homes-assistant', version: s.version ?? 'a1b2c3d', startMs: s.startMs ?? T + s.id * 60_000, e2eMs: s.e2eMs, ttftMs: 100, ...(s.errorType ? { errorType: s.errorType } : {}), extra: { 'gen_ai.input.messages': JSON.stringify(messages) } });
    return { ...span, traceId: hex(s.id, 16), spanId: hex(s.id, 8) };
  });
  const noInput = otlpSpan({ promptName: 'homes-assistant', version: 'a1b2c3d', startMs: T, e2eMs: 99_000 });
  const future = { ...otlpSpan({ promptName: 'homes-assistant', version: 'a1b2c3d', startMs: Date.now() + 3 * 3_600_000, e2eMs: 50_000, extra: { 'gen_ai.input.messages': JSON.stringify(messagesOf('Future, FU', 'From tomorrow.')) } }) };
  const badTimes = { ...otlpSpan({ promptName: 'homes-assistant', version: 'a1b2c3d', startMs: T, e2eMs: 10 }), startTimeUnixNano: 'soon' };
  const badId = { ...otlpSpan({ promptName: 'homes-assistant', version: 'a1b2c3d', startMs: T, e2eMs: 10 }), traceId: 'xyz' };
  return `${tracesLine([...spans, noInput, future, badTimes, badId])}\n{"resourceSpans": [\n`;
}

let dir: string;
let sim: RunningSim;
beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'pi-sample-'));
  writeFileSync(join(dir, 'homes.prompty'), PROMPT);
  writeFileSync(join(dir, 'traces.jsonl'), traceFile());
  sim = await startSim({ ttftBaseMs: 5, decodeMsPerToken: 0.2, tokensPerChunk: 8, jitterMs: 0, seed: 1, scenario: parseScenario(readFileSync('examples/homes/homes.sim.yaml', 'utf8')) });
});
afterAll(() => sim?.close());

const sample = async (args: string[], cwd = dir) => {
  const r = await cli(['sample', 'homes.prompty', '--traces', 'traces.jsonl', ...args], cwd);
  return { ...r, json: r.stdout.startsWith('{') ? JSON.parse(r.stdout) : null };
};
const traceIds = (json: { added: { traceId: string }[] }) => json.added.map((a) => Number.parseInt(a.traceId, 16));

describe('prompt-insight sample: each strategy chooses what it says', () => {
  it('slowest: the slowest distinct inputs not in the file (9 s is a duplicate of 1.2 s, 7 s is already a case), of the calls that answered', async () => {
    writeFileSync(join(dir, 'homes.tests.yaml'), EXISTING);
    const { json, code } = await sample(['--strategy', 'slowest', '--n', '3', '--dry-run', '--json']);
    expect(code).toBe(0);
    expect(traceIds(json)).toEqual([5, 2, 4]);
    // The timeout (3) and the rate-limited call (9) are failures, not slow answers: skipped and counted.
    expect(json).toMatchObject({ written: false, duplicates: 1, alreadyInFile: 1, withoutCapturedInput: 1, requests: 10, eligible: 5, failedNotSlowest: 2, skipped: { 'future-end': 1, 'bad-timestamps': 1, 'bad-id': 1, 'malformed-json': 1 } });
    expect(readFileSync(join(dir, 'homes.tests.yaml'), 'utf8')).toBe(EXISTING); // dry run: nothing written
  });

  it('errors: only failed requests, newest first; stratified: every version gets its share; random: the seed decides', async () => {
    expect(traceIds((await sample(['--strategy', 'errors', '--n', '5', '--dry-run', '--json'])).json)).toEqual([9, 3]);
    const stratified = (await sample(['--strategy', 'stratified', '--n', '2', '--dry-run', '--json'])).json;
    expect(stratified.added.map((a: { version: string }) => a.version).sort()).toEqual(['a1b2c3d', 'b7e1c2d']);
    const random = async (seed: string) => traceIds((await sample(['--strategy', 'random', '--n', '3', '--seed', seed, '--dry-run', '--json'])).json);
    const first = await random('7');
    expect(await random('7')).toEqual(first);
    expect(new Set(first).size).toBe(3);
    for (const id of first) expect([1, 2, 3, 4, 5, 7, 8, 9]).toContain(id);
    const seeds = await Promise.all(['1', '2', '3', '4'].map(random));
    expect(new Set(seeds.map((s) => s.join())).size).toBeGreaterThan(1);
  });
});

describe('prompt-insight sample: what is written', () => {
  it('appends redacted cases with provenance; the comment and the existing case stay; nothing secret in the file', async () => {
    writeFileSync(join(dir, 'homes.tests.yaml'), EXISTING);
    const { code, stdout } = await sample(['--strategy', 'random', '--n', '20', '--redact', 'ACCT-\\d+']);
    expect(code).toBe(0);
    expect(stdout).toContain('Appended 7 cases (strategy random, seed 1) to');
    expect(stdout).toMatch(/Inputs: 6 mapped to the template's variables, 1 kept as production's turns/);
    expect(stdout).toContain('Redacted before writing: 1 card, 1 custom:1, 1 email, 1 ipv4, 1 phone, 1 token.');
    expect(stdout).toMatch(/Not sampled: 1 duplicate inputs, 1 already in the file, 1 without captured input, .*1 ending in the future \(clock skew\)/);
    const text = readFileSync(join(dir, 'homes.tests.yaml'), 'utf8');
    for (const secret of SECRETS) expect(text).not.toContain(secret);
    expect(text).toContain('1234567812345678'); // not a card number (fails the Luhn check): kept
    expect(text.startsWith('# Hand-written cases: keep this comment.\ntests:\n  - description: Bellevue three bedrooms\n')).toBe(true);
    const doc = parse(text);
    expect(doc.tests).toHaveLength(8);
    expect(doc.tests[0]).toEqual(parse(EXISTING).tests[0]);
    const denver = doc.tests.find((t: { metadata?: { traceId: string } }) => t.metadata?.traceId === hex(2, 16));
    expect(denver).toMatchObject({
      vars: { city: 'Denver, CO', request: 'Pay with card [REDACTED:card], order 1234567812345678.' },
      assert: [{ type: 'latency', threshold: 7800 }],
      metadata: { source: 'production', traceId: hex(2, 16), spanId: hex(2, 8), endTime: new Date(T + 2 * 60_000 + 5200).toISOString(), version: 'a1b2c3d', strategy: 'random', inputs: 'template-variables' },
    });
    const older = doc.tests.find((t: { metadata?: { traceId: string } }) => t.metadata?.traceId === hex(7, 16));
    // An older system text is never kept: production's user turn, run after the current prompt's system text.
    expect(older).toMatchObject({ turns: [{ role: 'user', content: 'Homes in Tacoma?' }], metadata: { inputs: 'turns' } });
    expect(older.vars).toBeUndefined();
    expect(text).not.toContain('An older system prompt.');

    // Sampling again adds nothing: every input is a case now (dedupe against the file).
    const again = await sample(['--strategy', 'random', '--n', '20', '--redact', 'ACCT-\\d+', '--json']);
    expect(again.json).toMatchObject({ added: [], written: false, alreadyInFile: 9 }); // the nine with captured input (1 and 5 alike)
    expect(readFileSync(join(dir, 'homes.tests.yaml'), 'utf8')).toBe(text);
  });

  it('compare reads the sampled cases and runs them on the simulator', async () => {
    const repo = new TestRepo();
    const base = repo.commit('prompt', { 'homes.prompty': PROMPT });
    writeFileSync(join(repo.root, 'traces.jsonl'), traceFile());
    const sampled = await sample(['--strategy', 'slowest', '--n', '3'], repo.root);
    expect(sampled.code).toBe(0);
    const head = repo.commit('sampled production cases', { 'homes.tests.yaml': readFileSync(join(repo.root, 'homes.tests.yaml'), 'utf8') });
    const { code, stdout, stderr } = await cli(['compare', 'homes.prompty', '--base', base, '--head', head, '--runs', '1', '--endpoint', sim.url, '--no-store', '--json'], repo.root);
    expect(stderr).toBe('');
    expect(code).toBe(0);
    const descriptions = JSON.stringify(JSON.parse(stdout));
    for (const id of [5, 2, 4]) expect(descriptions).toContain(`trace ${hex(id, 16).slice(0, 12)}`);
  });

  it('clear errors: an unknown strategy, a pattern RE2 refuses, a tests file that is not YAML, a .prompt.yml without --out', async () => {
    expect(await sample(['--strategy', 'fastest'])).toMatchObject({ code: 2, stderr: expect.stringContaining('--strategy is one of random, slowest, errors, stratified') });
    expect(await sample(['--redact', '(a)\\1'])).toMatchObject({ code: 2, stderr: expect.stringContaining('is not a pattern RE2 accepts') });
    writeFileSync(join(dir, 'broken.tests.yaml'), 'tests: [\n');
    expect(await sample(['--out', 'broken.tests.yaml'])).toMatchObject({ code: 1, stderr: expect.stringContaining('is not valid YAML') });
    writeFileSync(join(dir, 'homes.prompt.yml'), 'name: x\nmessages:\n  - role: user\n    content: hi\n');
    expect(await cli(['sample', 'homes.prompt.yml', '--traces', 'traces.jsonl'], dir)).toMatchObject({ code: 2, stderr: expect.stringContaining('give --out') });
  });
});
