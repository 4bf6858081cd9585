/**
 * Stores a repository can bring: links to files outside it, forged records, wrong types, a
 * directory where the file should be, a store larger than a string can hold.
 */
import { execFile } from 'node:child_process';
import { closeSync, existsSync, rmSync, mkdirSync, mkdtempSync, openSync, readFileSync, symlinkSync, writeFileSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { ResultsStore, type NewRun } from '../../../src/core/store/resultsStore';
import { forgetMachineKey } from '../../../src/core/store/runSeal';
import { runKeyOf } from '../../../src/core/store/runKey';
import { MAX_RECORD_LINE_BYTES } from '../../../src/core/store/storeFile';
import { scriptedServer, type ScriptedServer } from '../../fixtures/scriptedServer';
import { parseScenario } from '../../../src/core/sim/scenario';
import { startSim, type RunningSim } from '../../../src/core/sim/simServer';
import { homesRepo } from '../../fixtures/homesRepo';

const CLI = resolve('dist/cli.js');
function cli(args: string[], cwd: string, env: Record<string, string> = {}): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((done) =>
    execFile(process.execPath, [CLI, ...args], { cwd, env: { ...process.env, ...env }, maxBuffer: 64 * 1024 * 1024 }, (error, stdout, stderr) => done({ code: error ? Number((error as { code: number }).code) : 0, stdout, stderr })),
  );
}

function newRun(answer = 'Detached houses only.'): NewRun {
  return {
    key: runKeyOf({ name: 'sim', provider: 'openai', baseUrl: 'http://127.0.0.1:1/v1' }, { model: 'm', messages: [{ role: 'user', content: 'homes' }], params: {} }),
    file: 'homes.prompty', prompt: 'homes', endpointName: 'sim', simulated: true,
    run: { ok: true, status: 200, error: null, ttftMs: 1, firstAnswerMs: 1, e2eMs: 2, streamEndMs: 3, outputTokens: 4, outputTokensSource: 'usage', inputTokens: 5, inputTokensSource: 'usage', tpotMs: 0.3, itlMs: [1], finishReason: 'stop', streamed: true, retries: 0 },
    answer,
  };
}

const temp = (prefix: string) => mkdtempSync(join(tmpdir(), prefix));
let sim: RunningSim;
beforeAll(async () => {
  sim = await startSim({ ttftBaseMs: 5, decodeMsPerToken: 0, jitterMs: 1, scenario: parseScenario(readFileSync('examples/homes/homes.sim.yaml', 'utf8')) });
});
afterAll(() => sim.close());
afterEach(() => {
  delete process.env.PROMPT_INSIGHT_STATE_DIR;
  forgetMachineKey();
});

describe('the results store against hostile repositories', () => {
  it('a committed runs.jsonl that links outside: run refuses before running, the target is untouched', async () => {
    const dir = temp('pi-link-');
    const victim = join(temp('pi-victim-'), '.bashrc');
    writeFileSync(victim, 'echo hello\n');
    mkdirSync(join(dir, '.prompt-insight'));
    symlinkSync(victim, join(dir, '.prompt-insight', 'runs.jsonl'));
    writeFileSync(join(dir, 'p.prompt.txt'), 'Say hi.\n');
    const served = sim.served();
    const out = await cli(['run', 'p.prompt.txt', '--endpoint', sim.url], dir);
    expect(out.code).toBe(1);
    expect(out.stderr).toContain('symbolic link');
    expect(readFileSync(victim, 'utf8')).toBe('echo hello\n');
    expect(sim.served()).toBe(served);
    expect(() => new ResultsStore(join(dir, '.prompt-insight', 'runs.jsonl')).append([newRun()])).toThrow(/symbolic link/);
    expect(readFileSync(victim, 'utf8')).toBe('echo hello\n');
  });

  it('a committed .prompt-insight folder that links outside is refused too', async () => {
    const dir = temp('pi-linkdir-');
    const elsewhere = temp('pi-elsewhere-');
    symlinkSync(elsewhere, join(dir, '.prompt-insight'));
    writeFileSync(join(dir, 'p.prompt.txt'), 'Say hi.\n');
    const out = await cli(['run', 'p.prompt.txt', '--endpoint', sim.url], dir);
    expect(out.code).toBe(1);
    expect(out.stderr).toMatch(/folder .* is a symbolic link/);
    expect(existsSync(join(elsewhere, 'runs.jsonl'))).toBe(false);
  });

  it('a store path that is a directory: refused with a clear message before any run', async () => {
    const dir = temp('pi-dirstore-');
    mkdirSync(join(dir, '.prompt-insight', 'runs.jsonl'), { recursive: true });
    writeFileSync(join(dir, 'p.prompt.txt'), 'Say hi.\n');
    const served = sim.served();
    const out = await cli(['run', 'p.prompt.txt', '--endpoint', sim.url], dir);
    expect(out.code).toBe(1);
    expect(out.stderr).toContain('is a directory, not a file');
    expect(out.stderr).not.toContain('EISDIR');
    expect(sim.served()).toBe(served);
  });

  it('records with wrong types or impossible values are skipped and counted, never summarised', () => {
    const store = new ResultsStore(join(temp('pi-types-'), 'runs.jsonl'));
    store.append([newRun('good')]);
    const text = readFileSync(store.path, 'utf8');
    const wrong = [
      text.replace('"ttftMs":1', '"ttftMs":"abc"'),
      text.replace('"e2eMs":2', '"e2eMs":-1e308'),
      text.replace('"itlMs":[1]', '"itlMs":["x"]'),
      text.replace('"ok":true', '"ok":"yes"'),
    ];
    writeFileSync(store.path, [text.trim(), ...wrong.map((l) => l.trim())].join('\n') + '\n');
    const contents = store.read();
    expect(contents.records.map((r) => r.answer)).toEqual(['good']);
    expect(contents.skippedLines).toBe(4);
  });

  it('records not sealed by this machine are never reused; the reader says how many it ignored', () => {
    process.env.PROMPT_INSIGHT_STATE_DIR = temp('pi-machine-a-');
    forgetMachineKey();
    const store = new ResultsStore(join(temp('pi-forged-'), 'runs.jsonl'));
    store.append([newRun('from machine A')]);
    // A line written by hand without a seal, and one with a forged seal.
    const line = readFileSync(store.path, 'utf8').trim();
    const unsealed = line.replace(/,"seal":"[0-9a-f]{64}"}$/, '}');
    const forged = line.replace(/"seal":"[0-9a-f]{64}"/, `"seal":"${'ab'.repeat(32)}"`);
    writeFileSync(store.path, `${line}\n${unsealed}\n${forged}\n`);
    expect(store.read()).toMatchObject({ records: [{ answer: 'from machine A' }], foreignRecords: 2, skippedLines: 0 });
    // Machine B (another key) trusts none of them.
    process.env.PROMPT_INSIGHT_STATE_DIR = temp('pi-machine-b-');
    forgetMachineKey();
    expect(store.read()).toMatchObject({ records: [], foreignRecords: 3 });
  });

  it('compare: a committed store with forged passing records cannot hide a regression', async () => {
    const { repo, a, b } = homesRepo();
    const args = ['compare', 'homes.prompty', '--base', b, '--head', a, '--runs', '24', '--endpoint', sim.url, '--store', '.prompt-insight/runs.jsonl'];
    // The attacker runs the comparison on their machine, then gives A's records B's passing answers.
    const attacker = { PROMPT_INSIGHT_STATE_DIR: temp('pi-attacker-') };
    expect((await cli([...args, '--json'], repo.root, attacker)).code).toBe(0);
    const storePath = join(repo.root, '.prompt-insight', 'runs.jsonl');
    const lines = readFileSync(storePath, 'utf8').trim().split('\n').map((l) => JSON.parse(l) as { revision: string; answer: string; seal?: string });
    const passing = lines.filter((r) => r.revision === b).map((r) => r.answer);
    const forged = lines.map((r, i) => (r.revision === a ? { ...r, answer: passing[i % passing.length]! } : r));
    writeFileSync(storePath, forged.map((r) => JSON.stringify(r)).join('\n') + '\n');
    repo.git('add', '-f', '.prompt-insight/runs.jsonl');
    repo.commit('commit the store');
    // On the victim's machine, told to reuse stored runs, none of the forged ones is: fresh runs find the regression.
    const served = sim.served();
    const out = await cli([...args, '--fail-on-regression', '--reuse-stored', '--json'], repo.root, { PROMPT_INSIGHT_STATE_DIR: temp('pi-victim-') });
    const json = JSON.parse(out.stdout);
    expect(json.revisions.map((r: { runsReused: number }) => r.runsReused)).toEqual([0, 0]);
    expect(sim.served() - served).toBeGreaterThanOrEqual(48);
    expect(json.problems.join(' ')).toMatch(/ignored \d+ record\(s\) not written on this machine/);
    expect(json.noRegression).toBe(false);
    expect(out.code).toBe(1);
  });

  it('a store larger than the longest string V8 can make is read line by line', () => {
    const store = new ResultsStore(join(temp('pi-huge-'), 'runs.jsonl'));
    store.append([newRun('first')]);
    const fd = openSync(store.path, 'a');
    const junk = Buffer.alloc(MAX_RECORD_LINE_BYTES - 1024, 0x78);
    junk[junk.length - 1] = 0x0a;
    for (let written = 0; written < 600 * 1024 * 1024; written += junk.length) writeSync(fd, junk);
    const overlong = Buffer.alloc(MAX_RECORD_LINE_BYTES + 10, 0x79);
    writeSync(fd, overlong);
    writeSync(fd, '\n');
    closeSync(fd);
    store.append([newRun('last')]);
    const contents = store.read();
    expect(contents.records.map((r) => r.answer)).toEqual(['first', 'last']);
    expect(contents.skippedLines).toBeGreaterThan(37);
    rmSync(store.path);
  }, 120_000);
});

describe('the regression gate fails closed', () => {
  let server: ScriptedServer;
  beforeAll(async () => {
    server = await scriptedServer(() => ({ status: 401, headers: { 'content-type': 'application/json' }, steps: [{ write: '{"error":{"message":"Invalid API key"}}' }, { end: true }] }));
  });
  afterAll(() => server.close());

  it('every run failing (401) is no evidence: exit 1 with the reason, not "No regression"', async () => {
    const { repo, a, b } = homesRepo();
    const out = await cli(['compare', 'homes.prompty', '--base', a, '--head', b, '--runs', '6', '--endpoint', server.url, '--no-store', '--fail-on-regression'], repo.root);
    expect(out.code).toBe(1);
    expect(out.stdout).not.toContain('No regression');
    expect(out.stdout).toContain('INSUFFICIENT EVIDENCE');
    expect(out.stderr).toMatch(/0 of \d+ runs succeeded.*401|Invalid API key/);
    const json = JSON.parse((await cli(['compare', 'homes.prompty', '--base', a, '--head', b, '--runs', '6', '--endpoint', server.url, '--no-store', '--json'], repo.root)).stdout);
    expect(json.evidence.sufficient).toBe(false);
  });
});
