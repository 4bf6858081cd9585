/** `prompt-insight run | sim | export` as child processes against real loopback endpoints. */
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { delta, DONE, scriptedServer, usage } from '../fixtures/scriptedServer';
import { startSimProcess, type SimProcess } from '../fixtures/simProcess';

const CLI = resolve('dist/cli.js');

function cli(args: string[], env: Record<string, string> = {}): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((done) => {
    execFile(process.execPath, [CLI, ...args], { env: { ...process.env, ...env } }, (error, stdout, stderr) => done({ code: error ? (error as { code: number }).code : 0, stdout, stderr }));
  });
}

let sim: SimProcess;
let dir: string;
beforeAll(async () => {
  sim = await startSimProcess(['--ttft-ms', '40', '--decode-ms-per-token', '2', '--output-tokens', '20']);
  dir = mkdtempSync(join(tmpdir(), 'pi-run-'));
});
afterAll(() => {
  sim.child.kill('SIGINT');
});

describe('prompt-insight run', () => {
  it('prints the documented JSON: runs and a summary with honest percentiles', async () => {
    const store = join(dir, 'a.jsonl');
    const { code, stdout } = await cli(['run', 'examples/homes/homes.prompty', '--endpoint', sim.url, '--runs', '12', '--concurrency', '3', '--warmup', '1', '--json', '--store', store]);
    expect(code).toBe(0);
    const json = JSON.parse(stdout);
    expect(json.simulated).toBe(true);
    expect(json.runs).toHaveLength(12);
    for (const run of json.runs) {
      expect(Object.keys(run)).toEqual(expect.arrayContaining(['ok', 'status', 'error', 'ttftMs', 'firstAnswerMs', 'e2eMs', 'streamEndMs', 'outputTokens', 'outputTokensSource', 'inputTokens', 'tpotMs', 'itlMs', 'finishReason']));
      expect(run).toMatchObject({ ok: true, status: 200, error: null, outputTokensSource: 'usage' });
      expect(run.ttftMs).toBeGreaterThanOrEqual(40);
    }
    expect(json.summary.ttftMs).toMatchObject({ n: 12, p99: null, p999: null });
    expect(json.summary.ttftMs.p90).toBeGreaterThanOrEqual(json.summary.ttftMs.p50);
    expect(Object.keys(json.summary)).toEqual(expect.arrayContaining(['ttftMs', 'e2eMs', 'tpotMs', 'outputTokensPerSec', 'errors']));
    // Every kept run is in the store (warm-up runs are not).
    const lines = readFileSync(store, 'utf8').trim().split('\n');
    expect(lines).toHaveLength(12);
  });

  it('prints a readable table and exits 1 when runs fail', async () => {
    const failing = await startSimProcess(['--fault', '500']);
    try {
      const { code, stdout, stderr } = await cli(['run', 'examples/homes/homes.prompt.md', '--endpoint', failing.url, '--runs', '2', '--no-store']);
      expect(code).toBe(1);
      expect(stdout).toContain('0/2 runs ok · SIMULATED endpoint');
      expect(stdout).toContain('errors: http_5xx ×2');
      expect(stderr).toContain('Simulated internal error');
    } finally {
      failing.child.kill('SIGINT');
    }
  });

  it('sends the key from --api-key-env and never writes it to output or the store', async () => {
    const secret = 'sk-live-DO-NOT-LEAK-4242';
    const server = await scriptedServer(() => ({ steps: [{ write: delta({ content: 'ok' }, 'stop') }, { write: usage(3, 1) }, { write: DONE }] }));
    const store = join(dir, 'secret.jsonl');
    try {
      const { code, stdout, stderr } = await cli(['run', 'examples/homes/homes.prompt.txt', '--endpoint', server.url, '--model', 'gpt-4o', '--api-key-env', 'PI_TEST_KEY', '--store', store, '--json'], { PI_TEST_KEY: secret });
      expect(code).toBe(0);
      const chat = server.requests.find((r) => r.method === 'POST')!;
      expect(chat.headers.authorization).toBe(`Bearer ${secret}`);
      expect(JSON.parse(chat.body).model).toBe('gpt-4o');
      // The server-kind probes (GET /props, /api/version, /info, /get_model_info, /version) never carry the key.
      const probes = server.requests.filter((r) => r.method === 'GET');
      expect(probes.map((r) => r.url).sort()).toEqual(['/api/version', '/get_model_info', '/info', '/props', '/version']);
      for (const probe of probes) expect(JSON.stringify(probe.headers)).not.toContain(secret);
      for (const text of [stdout, stderr, readFileSync(store, 'utf8')]) expect(text).not.toContain(secret);
    } finally {
      await server.close();
    }
  });

  it('usage errors exit 2 with a clear message', async () => {
    expect(await cli(['run', 'examples/homes/homes.prompty'])).toMatchObject({ code: 2, stderr: expect.stringContaining('--endpoint URL is required') });
    expect(await cli(['run', 'examples/homes/homes.prompty', '--endpoint', sim.url, '--runs', '0'])).toMatchObject({ code: 2, stderr: expect.stringContaining('--runs must be an integer ≥ 1') });
    expect(await cli(['run', 'examples/homes/homes.prompty', '--endpoint', sim.url, '--api-key-env', 'PI_UNSET_VAR_X'])).toMatchObject({ code: 2, stderr: expect.stringContaining('not set') });
    expect(await cli(['run', 'nope.prompty', '--endpoint', sim.url])).toMatchObject({ code: 1, stderr: expect.stringContaining('no such file') });
    // A file without a model and no --model: the error says the three ways to name one.
    const noModel = join(dir, 'no-model.prompt.txt');
    writeFileSync(noModel, 'Say hello.\n');
    const result = await cli(['run', noModel, '--endpoint', sim.url, '--no-store']);
    expect(result.code).not.toBe(0);
    expect(result.stderr).toMatch(/No model for prompt .*front matter \(model:\), pass --model, or set a model on the endpoint/);
  });

  it('export writes the store as CSV and JSON', async () => {
    const store = join(dir, 'a.jsonl');
    const csv = await cli(['export', '--store', store, '--format', 'csv']);
    expect(csv.code).toBe(0);
    const rows = csv.stdout.trim().split('\r\n');
    expect(rows).toHaveLength(13);
    expect(rows[0]).toMatch(/^at,file,prompt,revision,endpoint,simulated,model,promptHash,ok,/);
    const json = await cli(['export', '--store', store]);
    expect(JSON.parse(json.stdout)).toHaveLength(12);
  });
});
