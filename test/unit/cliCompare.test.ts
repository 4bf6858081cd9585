/** `prompt-insight history | compare` on the homes case: a real git repo, the simulator, the CLI as a child process. */
import { execFile } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseScenario } from '../../src/core/sim/scenario';
import { startSim, type RunningSim } from '../../src/core/sim/simServer';
import { homesRepo } from '../fixtures/homesRepo';
import type { TestRepo } from '../fixtures/gitRepo';

const CLI = resolve('dist/cli.js');
function cli(args: string[], cwd: string): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((done) => execFile(process.execPath, [CLI, ...args], { cwd, maxBuffer: 64 * 1024 * 1024 }, (error, stdout, stderr) => done({ code: error ? (error as { code: number }).code : 0, stdout, stderr })));
}

let sim: RunningSim;
let repo: TestRepo;
let a: string;
let b: string;
beforeAll(async () => {
  sim = await startSim({ ttftBaseMs: 150, decodeMsPerToken: 1, jitterMs: 3, scenario: parseScenario(readFileSync('examples/homes/homes.sim.yaml', 'utf8')) });
  ({ repo, a, b } = homesRepo());
});
afterAll(async () => sim.close());

describe('prompt-insight history', () => {
  it('lists the revisions as JSON', async () => {
    const { code, stdout } = await cli(['history', 'homes.prompty', '--json'], repo.root);
    expect(code).toBe(0);
    const rows = JSON.parse(stdout);
    expect(rows.map((r: { rev: string }) => r.rev)).toEqual([b, a]);
    expect(rows[0]).toEqual({ rev: b, date: expect.any(String), author: 'Test Author', subject: 'Define "homes" as single-family houses', path: 'homes.prompty' });
  });
});

describe('prompt-insight compare', () => {
  it('the homes case: adherence rises significantly, latency barely moves, no regression; runs are reused', async () => {
    const args = ['compare', 'homes.prompty', '--base', a.slice(0, 8), '--head', 'HEAD', '--runs', '24', '--endpoint', sim.url, '--json', '--store', 'runs.jsonl', '--report', 'report.html', '--fail-on-regression'];
    const { code, stdout, stderr } = await cli(args, repo.root);
    expect(stderr).toBe('');
    expect(code).toBe(0);
    const json = JSON.parse(stdout);
    const [revA, revB] = json.revisions;
    expect(revA).toMatchObject({ rev: a, path: 'homes.prompty', adherence: { total: 24 } });
    expect(revB).toMatchObject({ rev: b, adherence: { total: 24 } });
    expect(revB.adherence.rate).toBeGreaterThan(revA.adherence.rate);
    expect(revB.tokens).toBeGreaterThan(revA.tokens);
    expect(revA.adherence.ci95[0]).toBeLessThan(revA.adherence.rate);
    expect(revA.ttftMs).toMatchObject({ n: 24, p99: null });
    const byMetric = Object.fromEntries(json.verdicts.map((v: { metric: string }) => [v.metric, v]));
    expect(byMetric.adherence).toMatchObject({ base: a, head: b, verdict: 'better', test: 'fisher-exact' });
    expect(byMetric.adherence.pValue).toBeLessThan(0.05);
    expect(byMetric.ttftMs.verdict).toBe('no-difference');
    expect(json.noRegression).toBe(true);
    expect(json.simulated).toBe(true);
    expect(existsSync(join(repo.root, 'report.html'))).toBe(true);
    const report = readFileSync(join(repo.root, 'report.html'), 'utf8');
    expect(report).toContain("default-src 'none'");
    expect(report).toContain('"noRegression":true');
    // Same key (content, endpoint, model, parameters): told to, the second comparison reuses every run.
    const served = sim.served();
    const again = JSON.parse((await cli([...args, '--reuse-stored'], repo.root)).stdout);
    expect(sim.served()).toBe(served);
    expect(again.revisions[0].runsReused).toBe(24);
    // A gate (--fail-on-regression) decides on fresh runs unless told otherwise.
    const gate = JSON.parse((await cli(args, repo.root)).stdout);
    expect(gate.revisions[0]).toMatchObject({ runsNew: 24, runsReused: 0 });
    const withoutGate = args.filter((a) => a !== '--fail-on-regression');
    expect(JSON.parse((await cli(withoutGate, repo.root)).stdout).revisions[0].runsReused).toBe(24);
  });

  it('--fail-on-regression exits 1 when head is significantly worse', async () => {
    const { code, stdout } = await cli(['compare', 'homes.prompty', '--base', b, '--head', a, '--runs', '16', '--endpoint', sim.url, '--no-store', '--fail-on-regression'], repo.root);
    expect(stdout).toMatch(/WORSE\s+adherence -\d+ pts, p [=<] /);
    expect(stdout).toContain('REGRESSION');
    expect(code).toBe(1);
  });

  it('clear errors for bad revisions and missing tests', async () => {
    expect(await cli(['compare', 'homes.prompty', '--base', 'nope', '--head', 'HEAD', '--endpoint', sim.url], repo.root)).toMatchObject({ code: 1, stderr: expect.stringContaining("'nope' is not a commit") });
    expect(await cli(['compare', 'homes.prompty', '--base', '--output=x', '--head', 'HEAD', '--endpoint', sim.url], repo.root)).toMatchObject({ code: 2 });
    expect(await cli(['compare', 'homes.prompty', '--head', 'HEAD', '--endpoint', sim.url], repo.root)).toMatchObject({ code: 2, stderr: expect.stringContaining('--base and --head are required') });
  });
});
