/**
 * `compare` as a CI job runs it (issue 33): a one-commit-deep clone whose base is not there, --fetch,
 * the job summary appended to $GITHUB_STEP_SUMMARY, --format markdown on stdout, --junit. The built
 * CLI as a child process, the simulator on loopback, a real origin cloned over file://.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { XMLParser } from 'fast-xml-parser';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseScenario } from '../../src/core/sim/scenario';
import { startSim, type RunningSim } from '../../src/core/sim/simServer';
import { runCli } from './../fixtures/cli';
import { HOMES_WITH_RULE, HOMES_WITHOUT_RULE } from '../fixtures/homesRepo';
import { shallowCheckout } from '../fixtures/shallowCheckout';

let sim: RunningSim;
beforeAll(async () => {
  sim = await startSim({ ttftBaseMs: 20, decodeMsPerToken: 0.2, jitterMs: 1, scenario: parseScenario(readFileSync('examples/homes/homes.sim.yaml', 'utf8')) });
});
afterAll(async () => sim.close());

describe('compare in a CI job', () => {
  it('on a one-commit checkout: --fetch brings the base; the job summary, Markdown on stdout and JUnit are written', async () => {
    const tests = readFileSync('examples/homes/homes.tests.yaml', 'utf8');
    const { clone, baseSha } = shallowCheckout({ base: { 'homes.prompty': HOMES_WITHOUT_RULE, 'homes.tests.yaml': tests }, head: { 'homes.prompty': HOMES_WITH_RULE } });
    const summaryFile = join(clone, '..', 'summary.md');
    writeFileSync(summaryFile, '## Earlier step\n');
    const env = { ...process.env, GITHUB_STEP_SUMMARY: summaryFile };
    const args = ['compare', 'homes.prompty', '--base', baseSha, '--head', 'HEAD', '--runs', '8', '--endpoint', sim.url, '--no-store'];

    const refused = await runCli(args, clone, { env });
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain(`Fetch it with \`git fetch --depth=1 origin ${baseSha}\`, or let compare fetch it (--fetch).`);

    const junit = join(clone, '..', 'gate.junit.xml');
    const { code, stdout, stderr } = await runCli([...args, '--fetch', '--format', 'markdown', '--junit', junit], clone, { env });
    expect(stderr).toContain('Summary appended to $GITHUB_STEP_SUMMARY');
    expect(code).toBe(0);
    expect(stdout).toMatch(/^### Prompt gate: (✅ SHIP|⚠️ INSUFFICIENT EVIDENCE|❌ HOLD) — `homes\.prompty` \(homes-assistant\)\n/);
    expect(stdout).toMatch(new RegExp(`\\| \`${baseSha.slice(0, 7)}\` base — base \\| \\d+/8 `));
    const summary = readFileSync(summaryFile, 'utf8');
    expect(summary).toBe(`## Earlier step\n${stdout}\n`);
    const parsed = new XMLParser({ ignoreAttributes: false }).parse(readFileSync(junit, 'utf8'));
    expect(parsed.testsuites.testsuite['@_name']).toBe(`homes.prompty › homes-assistant: ${baseSha.slice(0, 7)} → ${stdout.match(/^`([0-9a-f]{7})` vs/m)![1]}`);
  });

  it('--format rejects other formats; --remote needs --fetch', async () => {
    const bad = await runCli(['compare', 'x.prompty', '--base', 'HEAD', '--head', 'working', '--endpoint', sim.url, '--format', 'html'], process.cwd());
    expect(bad).toMatchObject({ code: 2, stderr: expect.stringContaining('--format must be one of text, json, markdown') });
    const remote = await runCli(['compare', 'x.prompty', '--base', 'HEAD', '--head', 'working', '--endpoint', sim.url, '--remote', 'upstream'], process.cwd());
    expect(remote).toMatchObject({ code: 2, stderr: expect.stringContaining('--remote names where --fetch fetches a missing revision from: give it with --fetch') });
  });
});
