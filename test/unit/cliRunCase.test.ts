/**
 * `prompt-insight run --case`: one test case of the prompt's tests file, sent with that case's inputs
 * and checked against it alone — by its place in `tests:` or its description. The CLI as a child
 * process against the simulator on 127.0.0.1, whose scenario answers by the city the prompt names.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseScenario } from '../../src/core/sim/scenario';
import { startSim, type RunningSim } from '../../src/core/sim/simServer';

const CLI = resolve('dist/cli.js');

let sim: RunningSim;
let dir: string;

function cli(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((done) => {
    execFile(process.execPath, [CLI, ...args], { cwd: dir }, (error, stdout, stderr) => done({ code: error ? (error as { code: number }).code : 0, stdout, stderr }));
  });
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'pi-run-case-'));
  writeFileSync(join(dir, 'greet.prompty'), '---\nname: greet\nmodel:\n  api: chat\n  configuration:\n    type: openai\n    name: gpt-4o-mini\nsample:\n  city: Paris\n---\nsystem:\nGreet the user in the language of {{city}}.\n\nuser:\nHello from {{city}}!\n');
  writeFileSync(
    join(dir, 'greet.tests.yaml'),
    [
      'tests:',
      '  - vars: { city: Paris }',
      '    assert: [{ type: contains, value: Bonjour }]',
      '  - description: no assertion yet',
      '    vars: { city: Rome }',
      '    assert: []',
      '  - description: Oslo in Norwegian',
      '    vars: { city: Oslo }',
      '    assert: [{ type: contains, value: Hei }]',
      '',
    ].join('\n'),
  );
  const scenario = parseScenario('rules:\n  - whenPromptContains: ["Hello from Oslo"]\n    answers: ["Hei fra Oslo!"]\n  - whenPromptContains: ["Hello from Paris"]\n    answers: ["Bonjour de Paris !"]\nanswers: ["Hello."]\n');
  sim = await startSim({ ttftBaseMs: 2, decodeMsPerToken: 0.1, tokensPerChunk: 8, jitterMs: 0, seed: 1, scenario });
});
afterAll(() => sim.close());

describe('prompt-insight run --case', () => {
  it('by place in tests: sends that case’s inputs and checks the answers against that case alone', async () => {
    const { code, stdout } = await cli(['run', 'greet.prompty', '--case', '3', '--endpoint', sim.url, '--runs', '2', '--no-store', '--json']);
    expect(code).toBe(0);
    const json = JSON.parse(stdout);
    expect(json.testCase).toEqual({ number: 3, description: 'Oslo in Norwegian' });
    expect(json.adherence).toMatchObject({ passed: 2, scored: 2 });
    expect(json.runs.map((r: { check: { status: string; caseName: string } }) => r.check)).toEqual([expect.objectContaining({ status: 'pass', caseName: 'Oslo in Norwegian' }), expect.objectContaining({ status: 'pass', caseName: 'Oslo in Norwegian' })]);
  });

  it('by description, in the text output too', async () => {
    const { code, stdout, stderr } = await cli(['run', 'greet.prompty', '--case', 'Oslo in Norwegian', '--endpoint', sim.url, '--no-store']);
    expect(code).toBe(0);
    expect(stderr).toContain('test case #3 “Oslo in Norwegian”');
    expect(stdout).toMatch(/adherence \(test case "Oslo in Norwegian"\): 1\/1 pass/);
  });

  it('without --case the sample inputs are sent, as before (the Paris case is the one that fits)', async () => {
    const json = JSON.parse((await cli(['run', 'greet.prompty', '--endpoint', sim.url, '--no-store', '--json'])).stdout);
    expect(json.testCase).toBeUndefined();
    expect(json.runs[0].check).toMatchObject({ status: 'pass', caseName: '#1 city=Paris' });
  });

  it('a case that cannot run is a usage error that says why, and nothing is sent', async () => {
    const skipped = await cli(['run', 'greet.prompty', '--case', '2', '--endpoint', sim.url, '--no-store']);
    expect(skipped.code).toBe(2);
    expect(skipped.stderr).toMatch(/--case 2: .*tests\[1\] has no usable assertion/);
    const missing = await cli(['run', 'greet.prompty', '--case', '9', '--endpoint', sim.url, '--no-store']);
    expect(missing).toMatchObject({ code: 2, stderr: expect.stringContaining('has no test case #9 (it has #1, #3)') });
    const unknown = await cli(['run', 'greet.prompty', '--case', 'Lisbon', '--endpoint', sim.url, '--no-store']);
    expect(unknown).toMatchObject({ code: 2, stderr: expect.stringContaining('no test case described “Lisbon”') });
  });
});
