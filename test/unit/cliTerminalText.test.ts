/**
 * Terminal text is inert in every command: a repository's front matter, commit subjects and an endpoint's
 * errors carrying OSC 52 (clipboard write), clear-screen, conceal, an 8-bit CSI and U+202E reach the
 * terminal as visible U+FFFD, never as sequences it obeys. The built CLI as a child process, a real git
 * repo, the bundled simulator and a scripted endpoint on 127.0.0.1.
 */
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseScenario } from '../../src/core/sim/scenario';
import { startSim, type RunningSim } from '../../src/core/sim/simServer';
import { TestRepo } from '../fixtures/gitRepo';
import { HOMES_WITH_RULE, HOMES_WITHOUT_RULE } from '../fixtures/homesRepo';
import { runCli } from '../fixtures/cli';
import { scriptedServer, type ScriptedServer } from '../fixtures/scriptedServer';
import { terminalSafeIO } from '../../src/cli/terminalText';

/** OSC 52 writing the clipboard, clear-screen, conceal, right-to-left override, an 8-bit CSI. */
const HOSTILE = 'x\u001b]52;c;cm0gLXJmIH4K\u0007\u001b[2J\u001b[8mhidden\u202etxt.exe\u009b31m';
/** What a terminal may act on: C0 but line break and tab, DEL, C1, line/paragraph separators, bidi overrides and isolates. */
const OBEYED = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]/;
/** The same string as YAML escapes it in a double-quoted scalar. */
const yamlQuoted = (text: string) => `"${text.replace(/[^\x20-\x7e]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`)}"`;

/** homes.prompty whose prompt name and model name are the attack. */
const hostileHomes = (text: string) => text.replace('name: homes-assistant', `name: ${yamlQuoted(`homes${HOSTILE}`)}`).replace('name: gpt-4o-mini', `name: ${yamlQuoted(`gpt-4o-mini${HOSTILE}`)}`);

function expectInert(text: string): void {
  expect(text).not.toMatch(OBEYED);
  expect(text).toContain('\ufffd');
}

let sim: RunningSim;
let failing: ScriptedServer;
let repo: TestRepo;
let a: string;
const cli = (args: string[]) => runCli(args, repo.root, { maxBuffer: 64 * 1024 * 1024 });

beforeAll(async () => {
  sim = await startSim({ ttftBaseMs: 5, decodeMsPerToken: 0, jitterMs: 0, scenario: parseScenario(readFileSync('examples/homes/homes.sim.yaml', 'utf8')) });
  // An endpoint whose error names the attack (a proxy echoing the model it was asked for).
  failing = await scriptedServer(() => ({ status: 400, headers: { 'content-type': 'application/json' }, steps: [{ write: JSON.stringify({ error: { message: `unknown model ${HOSTILE}` } }) }] }));
  repo = new TestRepo();
  a = repo.commit('Homes assistant: first version', { 'homes.prompty': hostileHomes(HOMES_WITHOUT_RULE), 'homes.tests.yaml': readFileSync('examples/homes/homes.tests.yaml', 'utf8') });
  repo.commit(`Define "homes"${HOSTILE}`, { 'homes.prompty': hostileHomes(HOMES_WITH_RULE) });
});
afterAll(async () => {
  await sim.close();
  await failing.close();
});

describe('the commands a repository or endpoint attacks print it inert', () => {
  it('tokens: the prompt and model names in the table are replaced visibly; --json keeps them exact as \\u escapes', async () => {
    const text = await cli(['tokens', 'homes.prompty']);
    expect(text.code).toBe(0);
    expect(text.stdout).toContain('gpt-4o-mini');
    expectInert(text.stdout);
    const json = await cli(['tokens', 'homes.prompty', '--json']);
    expect(json.stdout).not.toMatch(OBEYED);
    expect(JSON.parse(json.stdout).files[0].prompts[0].model).toBe(`gpt-4o-mini${HOSTILE}`);
  });

  it('run: the model named on stderr and the endpoint\'s error are replaced; --json keeps them exact', async () => {
    const ok = await cli(['run', 'homes.prompty', '--endpoint', sim.url, '--runs', '1', '--no-store']);
    expect(ok.code).toBe(0);
    expectInert(ok.stderr);
    expect(ok.stdout).not.toMatch(OBEYED);
    const bad = await cli(['run', 'homes.prompty', '--endpoint', failing.url, '--runs', '1', '--no-store']);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toContain('unknown model x');
    expectInert(bad.stderr);
    const json = await cli(['run', 'homes.prompty', '--endpoint', failing.url, '--runs', '1', '--no-store', '--json']);
    expect(json.stdout).not.toMatch(OBEYED);
    expect(JSON.parse(json.stdout).model).toBe(`gpt-4o-mini${HOSTILE}`);
  });

  it('compare: the text table and its stderr show the names replaced; --json keeps them exact', async () => {
    const text = await cli(['compare', 'homes.prompty', '--base', a, '--head', 'HEAD', '--runs', '2', '--endpoint', sim.url, '--no-store']);
    expect(text.stdout).toContain('homes');
    for (const stream of [text.stdout, text.stderr]) expect(stream).not.toMatch(OBEYED);
    expectInert(text.stdout + text.stderr);
    const json = await cli(['compare', 'homes.prompty', '--base', a, '--head', 'HEAD', '--runs', '2', '--endpoint', sim.url, '--no-store', '--json']);
    expect(json.stdout).not.toMatch(OBEYED);
    expect(json.stdout).toContain('\\u202e');
    JSON.parse(json.stdout);
  });

  it.each([
    ['history (a commit subject)', ['history', 'homes.prompty']],
    ['alerts (the prompt name on stderr)', ['alerts', 'homes.prompty', '--prometheus-rules', 'rules.yaml']],
    ['tokens over --budget (the prompt name on stderr)', ['tokens', 'homes.prompty', '--budget', '1']],
  ])('%s', async (_name, args) => {
    const result = await cli(args);
    for (const stream of [result.stdout, result.stderr]) expect(stream).not.toMatch(OBEYED);
    expectInert(result.stdout + result.stderr);
  });
});

describe('the one sanitizer every command writes through', () => {
  it('keeps the CLI\'s own progress redraw (a write that begins with a carriage return) and CRLF row ends, replaces any other carriage return', () => {
    const written: string[] = [];
    const io = terminalSafeIO({ stdout: (t) => written.push(t), stderr: (t) => written.push(t), interrupted: () => new AbortController().signal });
    io.stderr('\r  3/10 runs');
    io.stdout('PASS\rFAIL\tok\r\n');
    expect(written).toEqual(['\r  3/10 runs', 'PASS\ufffdFAIL\tok\r\n']);
  });
});
