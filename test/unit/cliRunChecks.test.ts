/**
 * `prompt-insight run` checks its answers against the test cases written for the sample values it
 * sends: pass, fail with the reason, or unscored with the reason (no judge, the endpoint down) —
 * never counted as a failure. The CLI as a child process against the simulator on 127.0.0.1.
 */
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseScenario } from '../../src/core/sim/scenario';
import { startSim, type RunningSim } from '../../src/core/sim/simServer';
import { freePort } from '../fixtures/localServers';

const CLI = resolve('dist/cli.js');

function cli(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((done) => {
    execFile(process.execPath, [CLI, ...args], (error, stdout, stderr) => done({ code: error ? (error as { code: number }).code : 0, stdout, stderr }));
  });
}

let sim: RunningSim;
beforeAll(async () => {
  sim = await startSim({ ttftBaseMs: 5, decodeMsPerToken: 0.2, tokensPerChunk: 8, jitterMs: 0, seed: 1, scenario: parseScenario(readFileSync('examples/homes/homes.sim.yaml', 'utf8')) });
});
afterAll(() => sim.close());

describe('prompt-insight run: answers checked against their test case', () => {
  it('homes.prompty: pass or fail per run, a failed run names what the answer had; adherence over the scored runs', async () => {
    const text = await cli(['run', 'examples/homes/homes.prompty', '--endpoint', sim.url, '--runs', '12', '--no-store']);
    expect(text.code).toBe(0);
    const line = /adherence \(test case "#1 city=Bellevue, WA · request=Find homes nearby with at least…"\): (\d+)\/12 pass — \d+% of scored runs pass/.exec(text.stdout);
    expect(line, text.stdout).not.toBeNull();
    const failed = text.stdout.split('\n').filter((l) => /^ {2}run \d+: fail/.test(l));
    expect(Number(line![1])).toBe(12 - failed.length);
    for (const l of failed) expect(l).toMatch(/not-icontains-any \["apartment","condo","townhouse"\]: the answer has "(Apartment|Condo|Townhouse)"/);

    const json = JSON.parse((await cli(['run', 'examples/homes/homes.prompty', '--endpoint', sim.url, '--runs', '6', '--no-store', '--json'])).stdout);
    expect(json.adherence).toMatchObject({ against: expect.stringContaining('#1 city=Bellevue'), scored: 6, unscored: 0 });
    expect(json.runs.map((r: { check: { status: string } }) => r.check.status).every((s: string) => s === 'pass' || s === 'fail')).toBe(true);
    expect(json.adherence.passed).toBe(json.runs.filter((r: { check: { status: string } }) => r.check.status === 'pass').length);
  });

  it('homes.prompt.yml: without a judge every run is unscored with the reason; with the simulator as judge they are scored', async () => {
    const text = await cli(['run', 'examples/homes/homes.prompt.yml', '--endpoint', sim.url, '--runs', '4', '--no-store']);
    expect(text.code).toBe(0);
    expect(text.stdout).toContain('0/0 pass, 4 unscored (not counted) — no run could be scored');
    expect(text.stdout).toContain('4 runs (1–4): unscored — Lists only single-family houses: no judge configured');
    const judged = JSON.parse((await cli(['run', 'examples/homes/homes.prompt.yml', '--endpoint', sim.url, '--runs', '4', '--no-store', '--json', '--judge-endpoint', sim.url, '--judge-model', 'sim'])).stdout);
    expect(judged.adherence).toMatchObject({ scored: 4, unscored: 0 });
  });

  it('an endpoint that refuses the connection: the runs are unscored with the failure, not failed answers', async () => {
    const port = await freePort(); // nothing listens there once it is returned
    const { code, stdout } = await cli(['run', 'examples/homes/homes.prompty', '--endpoint', `http://127.0.0.1:${port}/v1`, '--runs', '2', '--no-store', '--json']);
    expect(code).toBe(1);
    const json = JSON.parse(stdout);
    expect(json.adherence).toMatchObject({ passed: 0, scored: 0, unscored: 2, rate: null, unscoredReasons: [{ reason: expect.stringMatching(/^the request failed: connection_failed: .*ECONNREFUSED/), runs: 2 }] });
  });

  it('--judge-endpoint without --judge-model is a usage error', async () => {
    expect(await cli(['run', 'examples/homes/homes.prompty', '--endpoint', sim.url, '--judge-endpoint', sim.url])).toMatchObject({ code: 2, stderr: expect.stringContaining('--judge-endpoint needs --judge-model') });
  });
});
