/**
 * The CI gate under attack and in the cases that made "Ship" untrue: the policy comes from the base
 * revision, so the head (the pull request) cannot relax it; a prompt failing its tests on both
 * revisions is held; runs that could not be scored are unscored, never 0; identical revisions are
 * "no change". Real git repositories, the simulator on loopback, the CLI as a child process.
 */
import { readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseScenario } from '../../src/core/sim/scenario';
import { startSim, type RunningSim } from '../../src/core/sim/simServer';
import { TestRepo } from '../fixtures/gitRepo';
import { HOMES_WITH_RULE, HOMES_WITHOUT_RULE } from '../fixtures/homesRepo';
import { runCli } from '../fixtures/cli';

const cli = (args: string[], cwd: string) => runCli(args, cwd, { maxBuffer: 64 * 1024 * 1024 });

const HOMES_TESTS = readFileSync('examples/homes/homes.tests.yaml', 'utf8');
/** The same tests without a declared scenario: the base is judged as interactive (the default). */
const TESTS_INTERACTIVE = HOMES_TESTS.replace(/^scenario: decision\n/m, '');

let sim: RunningSim;
beforeAll(async () => {
  // Every prompt token costs 1.5 ms of prefill: a longer prompt is slower, for real.
  sim = await startSim({ ttftBaseMs: 100, prefillMsPerInputToken: 1.5, decodeMsPerToken: 1, jitterMs: 2, scenario: parseScenario(readFileSync('examples/homes/homes.sim.yaml', 'utf8')) });
});
afterAll(async () => sim.close());

describe('the gate is judged by the base revision’s policy', () => {
  it("the head's own `scenario: decision` does not turn a latency hold into a ship; --policy head applies it, and says so", async () => {
    expect(TESTS_INTERACTIVE).not.toMatch(/^scenario:/m);
    const repo = new TestRepo();
    repo.commit('Homes assistant', { 'homes.prompty': HOMES_WITH_RULE, 'homes.tests.yaml': TESTS_INTERACTIVE });
    // The pull request: ~460 more prompt tokens (~690 ms of prefill), and a scenario that tolerates latency.
    const padding = Array.from({ length: 60 }, (_, i) => `- Listing note ${i + 1}: mention the school district when it is known.`).join('\n');
    repo.write('homes.prompty', HOMES_WITH_RULE.replace('---\nname:', '---\nscenario: decision\nname:').replace('\nuser:', `\n${padding}\n\nuser:`));
    const args = ['compare', 'homes.prompty', '--base', 'HEAD', '--head', 'working', '--runs', '16', '--endpoint', sim.url, '--no-store', '--fail-on-regression'];

    const gate = await cli(args, repo.root);
    expect(gate.stdout).toContain('Scenario: interactive (default)');
    expect(gate.stdout).toContain('policy change: scenario interactive → decision (not applied: the base revision');
    expect(gate.stdout).toMatch(/HOLD: working copy \(vs [0-9a-f]{7}\)\n {2}- TTFT \+\d+ ms \(median\), p [=<] [\d.]+ — significantly worse beyond the margin; interactive use gates/);
    expect(gate.code).toBe(1);

    const explicit = await cli([...args, '--policy', 'head', '--json'], repo.root);
    const json = JSON.parse(explicit.stdout);
    expect(json.policy).toMatchObject({ scenario: 'decision', from: 'head', changes: [{ text: 'scenario interactive → decision', applied: true, why: 'applied: --policy head' }] });
    expect(json.rollout.reasons.join('\n')).toMatch(/TTFT \+\d+ ms \(median\), p [=<] [\d.]+ — worse, not blocking/);
  });

  it("the head's tests file with `threshold: 0` does not ship adherence 90% → ~17%: the base's test cases judge", async () => {
    const repo = new TestRepo();
    repo.commit('Homes assistant with the rule', { 'homes.prompty': HOMES_WITH_RULE, 'homes.tests.yaml': HOMES_TESTS });
    // The pull request drops the rule and makes every test case pass whatever the answer.
    repo.write('homes.prompty', HOMES_WITHOUT_RULE);
    repo.write('homes.tests.yaml', HOMES_TESTS.replace(/^ {2}- vars:/m, '  - threshold: 0\n    vars:'));
    const { code, stdout } = await cli(['compare', 'homes.prompty', '--base', 'HEAD', '--head', 'working', '--runs', '20', '--endpoint', sim.url, '--no-store', '--fail-on-regression'], repo.root);
    expect(stdout).toMatch(/policy change: test cases: 1 changed \(threshold 1 → 0\) \(not applied: the base revision/);
    // Held on adherence; on a busy machine a latency reason may be listed with it (the runs' timing is the machine's).
    expect(stdout, stdout).toMatch(/HOLD: working copy \(vs [0-9a-f]{7}\)\n(?: {2}- .*\n)*? {2}- adherence -\d+ pts, p [=<] [\d.]+ — significantly worse/);
    expect(code).toBe(1);
  });

  it('a tightening in the head (a stricter SLO) is applied; a loosening is not', async () => {
    const repo = new TestRepo();
    repo.commit('Homes assistant', { 'homes.prompty': HOMES_WITH_RULE.replace('---\nname:', '---\nslo:\n  ttftMs: { p50: 5000 }\nname:'), 'homes.tests.yaml': HOMES_TESTS });
    repo.write('homes.prompty', HOMES_WITH_RULE.replace('---\nname:', '---\nslo:\n  ttftMs: { p50: 1 }\n  e2eMs: { p90: 60000 }\nname:'));
    const { stdout } = await cli(['compare', 'homes.prompty', '--base', 'HEAD', '--head', 'working', '--runs', '6', '--endpoint', sim.url, '--no-store', '--json'], repo.root);
    const json = JSON.parse(stdout);
    expect(json.policy.slo).toEqual(expect.arrayContaining(['ttftMs.p50 ≤ 1', 'e2eMs.p90 ≤ 30000']));
    expect(json.policy.changes).toEqual(expect.arrayContaining([
      { text: 'SLO TTFT p50 ≤ 5 s → TTFT p50 ≤ 1 ms', applied: true, why: 'applied: it makes the gate stricter', effects: { 'SLO tightened': 1 } },
      expect.objectContaining({ text: 'SLO E2E latency p90 ≤ 30 s → E2E latency p90 ≤ 60 s', applied: false, effects: { 'SLO loosened': 1 } }),
    ]));
    expect(json.policy.judgedWith).toBe("Judged with the base's tests, plus the head's 1 SLO tightened; not applied: 1 SLO loosened");
    expect(json.rollout.decision).toBe('no-change'); // only the policy changed: the requests are the same
  });

  it('a committed tests file that is a symbolic link is not followed', async () => {
    const outside = mkdtempSync(join(tmpdir(), 'pi-outside-'));
    writeFileSync(join(outside, 'secret.yaml'), 'tests:\n  - vars: { token: "ghp_secretsecretsecret" }\n');
    const repo = new TestRepo();
    repo.write('homes.prompty', HOMES_WITH_RULE);
    symlinkSync(join(outside, 'secret.yaml'), join(repo.root, 'homes.tests.yaml'));
    repo.commit('Tests as a link');
    const { code, stderr, stdout } = await cli(['compare', 'homes.prompty', '--base', 'HEAD', '--head', 'working', '--runs', '2', '--endpoint', sim.url, '--no-store'], repo.root);
    expect(stderr).toMatch(/homes\.tests\.yaml at [0-9a-f]{8} is a symbolic link, not a regular file; it is not read/);
    expect(stderr + stdout).not.toContain('ghp_secret');
    expect(code).toBe(1);
  });
});

describe('cost parameters in a compared revision', () => {
  it("the head's `n: 64` and `service_tier: priority` are refused before any run (exit 2); allowed by name, they are sent", async () => {
    const repo = new TestRepo();
    repo.commit('Homes', { 'homes.prompty': HOMES_WITH_RULE, 'homes.tests.yaml': HOMES_TESTS });
    repo.write('homes.prompty', HOMES_WITH_RULE.replace('    max_tokens: 400', '    max_tokens: 400\n    n: 64\n    service_tier: priority'));
    const before = sim.served();
    const args = ['compare', 'homes.prompty', '--base', 'HEAD', '--head', 'working', '--runs', '2', '--endpoint', sim.url, '--no-store'];
    const refused = await cli(args, repo.root);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toMatch(/at working copy sets request parameters that change what the endpoint charges or keeps: .*n.*service_tier/s);
    expect(sim.served()).toBe(before);
    const allowed = await cli([...args, '--allow-param', 'n', '--allow-param', 'service_tier'], repo.root);
    expect(allowed.code).toBe(0);
    expect(sim.served()).toBe(before + 4);
  });
});

describe('"Ship" means the head meets its SLOs', () => {
  it('a Chinese support prompt failing its test cases 0/30 on both revisions is held (it shipped before)', async () => {
    const repo = new TestRepo();
    const prompt = (extra: string) => `---\nname: support-zh\nmodel:\n  api: chat\n  configuration: { type: openai, name: gpt-4o-mini }\nsample:\n  question: 我想退货\n---\nsystem:\n你是一家网店的客服。请用中文回答，并说明退款政策。${extra}\n\nuser:\n{{question}}\n`;
    const tests = 'tests:\n  - vars: { question: 我想退货 }\n    assert:\n      - { type: contains, value: 退款政策 }\n  - vars: { question: 运费多少？ }\n    assert:\n      - { type: contains, value: 运费 }\n';
    repo.commit('客服提示词', { 'support.prompty': prompt(''), 'support.tests.yaml': tests });
    repo.write('support.prompty', prompt('语气要礼貌。'));
    const { code, stdout } = await cli(['compare', 'support.prompty', '--base', 'HEAD', '--head', 'working', '--runs', '15', '--endpoint', sim.url, '--no-store', '--fail-on-regression'], repo.root);
    expect(stdout).toMatch(/adherence 0\/30 0%/);
    expect(stdout).toMatch(/HOLD: working copy \(vs [0-9a-f]{7}\)\n {2}- both break SLO adherence ≥ 70% — working copy does not fix it/);
    expect(code).toBe(1);
  });

  it('runs that failed are unscored with their reason, not adherence 0/N', async () => {
    const closed = await new Promise<number>((done) => {
      const server = createServer().listen(0, '127.0.0.1', () => {
        const { port } = server.address() as { port: number };
        server.close(() => done(port));
      });
    });
    const repo = new TestRepo();
    repo.commit('Homes', { 'homes.prompty': HOMES_WITHOUT_RULE, 'homes.tests.yaml': HOMES_TESTS });
    repo.write('homes.prompty', HOMES_WITH_RULE);
    const { code, stdout } = await cli(['compare', 'homes.prompty', '--base', 'HEAD', '--head', 'working', '--runs', '5', '--endpoint', `http://127.0.0.1:${closed}/v1`, '--no-store', '--json', '--timeout-ms', '3000'], repo.root);
    expect(code).toBe(0);
    const json = JSON.parse(stdout);
    for (const r of json.revisions) {
      expect(r.adherence).toMatchObject({ passed: 0, total: 0, unscored: 5, rate: null });
      expect(Object.keys(r.unscoredReasons)[0]).toMatch(/^the run failed \(/);
      expect(r.perCase[0].runs[0]).toMatchObject({ status: 'unscored', reason: expect.stringMatching(/^the run failed/) });
    }
    expect(json.rollout.decision).toBe('insufficient');
    expect(json.verdicts.find((v: { metric: string }) => v.metric === 'adherence').summary).not.toMatch(/p = 1\.00/);
  });

  it('a revision that sends the same requests as its base is "no change", which the gate passes', async () => {
    const repo = new TestRepo();
    repo.commit('Homes', { 'homes.prompty': HOMES_WITH_RULE, 'homes.tests.yaml': HOMES_TESTS });
    repo.write('homes.prompty', HOMES_WITH_RULE.replace('authors:\n  - Prompt Insight examples', 'authors:\n  - Someone else')); // metadata only: the same requests
    const { code, stdout } = await cli(['compare', 'homes.prompty', '--base', 'HEAD', '--head', 'working', '--runs', '6', '--endpoint', sim.url, '--no-store', '--fail-on-regression'], repo.root);
    expect(stdout).toMatch(/NO CHANGE: working copy \(vs [0-9a-f]{7}\)\n {2}- [0-9a-f]{7} and working copy send the same requests for every test case/);
    expect(code).toBe(0);
  });
});
