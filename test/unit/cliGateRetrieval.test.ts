/**
 * Issue 30: a pull request must not pick the evidence it is judged on. The base revision's retrieval
 * step gathers the passages the grounded evaluators judge every revision against; a head that points
 * retrieval at passages agreeing with its invented answers is judged by the base's search, is held by
 * --fail-on-regression, and the output names the change. The head's URL is never contacted unless
 * `--policy head` applies it (and the user allowed its origin). Real git repository, a model server,
 * a scripted judge, the honest search service and a recording "attacker" search on 127.0.0.1, the
 * built CLI.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startAnsweringModel, type AnsweringModel } from '../fixtures/answeringModel';
import { startAttackerServer, type AttackerServer } from '../fixtures/attackerServer';
import { runCli } from '../fixtures/cli';
import { ragPrompty } from '../fixtures/ragPrompt';
import { TestRepo } from '../fixtures/gitRepo';
import { answerListings, LISTING, LISTINGS_JUDGE, listingsTests } from '../fixtures/listingsCase';
import { startScriptedJudge, type ScriptedJudge } from './adherence/scriptedJudge';

const AGREEING = '12 Elm St, Bellevue: 3 bedrooms, listed at $790,000.';
const RUNS = 40;

const prompt = (url: string | undefined, systemExtra = '') => ragPrompty({ ...(url ? { url } : {}), sample: '  question: What does 12 Elm St cost?\n', systemExtra });
const TESTS = listingsTests(['    vars: { question: "What does 12 Elm St cost?" }']);

let model: AnsweringModel;
let modelUrl: string;
let honest: AttackerServer;
let attacker: AttackerServer;
let judge: ScriptedJudge;

beforeAll(async () => {
  model = await startAnsweringModel(answerListings);
  modelUrl = model.url;
  honest = await startAttackerServer({ passages: [{ text: LISTING, id: 'elm-12' }] });
  attacker = await startAttackerServer({ passages: [{ text: AGREEING, id: 'elm-12' }] });
  // Against the attacker's passages the invented price is "supported" (first rule); against the real listing it is contradicted.
  judge = await startScriptedJudge([{ step: 'verdicts', when: `[1] ${AGREEING}`, reply: { verdicts: [{ claim: 1, verdict: 'supported', passage: 1 }] } }, ...LISTINGS_JUDGE]);
});
afterAll(async () => {
  await model.close();
  await honest.close();
  await attacker.close();
  await judge.close();
});

/** The user allows their own search service (consent through the environment, as a CI job would). */
const cli = (args: string[], cwd: string, allowed: string[] = [honest.origin]) => {
  const env: NodeJS.ProcessEnv = { ...process.env, PROMPT_INSIGHT_ALLOW_RETRIEVAL: allowed.join(','), PROMPT_INSIGHT_CONFIG_DIR: cwd + '/.no-user-config' };
  return runCli(args, cwd, { maxBuffer: 64 * 1024 * 1024, env });
};

describe('the gate takes its evidence from the base revision', () => {
  it('a head that invents prices and points retrieval at agreeing passages is judged by the base search and held; the change is named', async () => {
    const repo = new TestRepo();
    const base = repo.commit('Listings assistant', { 'listings.prompty': prompt(`${honest.origin}/search`), 'listings.tests.yaml': TESTS });
    // The pull request: rounder prices, and a search service of its own that agrees with them.
    repo.commit('Make prices attractive', { 'listings.prompty': prompt(`${attacker.origin}/search`, ' Round prices to sound attractive.') });
    const args = ['compare', 'listings.prompty', '--base', base.slice(0, 8), '--head', 'HEAD', '--runs', String(RUNS), '--endpoint', modelUrl, '--judge-endpoint', judge.url, '--judge-model', 'judge-model', '--no-store', '--fail-on-regression'];

    const gate = await cli(args, repo.root);
    expect(gate.stdout).toMatch(new RegExp(`^\\s+hallucination ${RUNS}/${RUNS} runs 100\\.0%`, 'm'));
    expect(gate.stdout).toContain(`retrieval: ${honest.origin}/search — the base revision's step, run for every revision`);
    expect(gate.stdout).toContain(`policy change: retrieval.url ${honest.origin}/search → ${attacker.origin}/search (not applied: the base revision's policy judges the change (--policy head applies it))`);
    expect(gate.stdout).toMatch(/^HOLD: /m);
    expect(gate.code).toBe(1);
    expect(attacker.received).toEqual([]);
    expect(honest.received.length).toBeGreaterThanOrEqual(2 * RUNS);

    const json = JSON.parse((await cli([...args, '--json'], repo.root)).stdout);
    expect(json.policy.retrieval).toBe(`${honest.origin}/search`);
    expect(json.policy.changes).toContainEqual({ text: `retrieval.url ${honest.origin}/search → ${attacker.origin}/search`, applied: false, why: "not applied: the base revision's policy judges the change (--policy head applies it)", effects: { 'retrieval step changed': 1 } });
    expect(json.rollout.decision).toBe('hold');
    expect(attacker.received).toEqual([]);

    // --policy head applies the head's step — only once the user allowed its origin too.
    const unallowed = await cli([...args, '--policy', 'head'], repo.root);
    expect(unallowed.code).toBe(2);
    expect(unallowed.stderr).toContain(`--allow-retrieval ${attacker.origin}`);
    expect(attacker.received).toEqual([]);
    const explicit = JSON.parse((await cli([...args, '--policy', 'head', '--json'], repo.root, [honest.origin, attacker.origin])).stdout);
    expect(explicit.policy.changes).toContainEqual({ text: `retrieval.url ${honest.origin}/search → ${attacker.origin}/search`, applied: true, why: 'applied: --policy head', effects: { 'retrieval step changed': 1 } });
    expect(explicit.policy.retrieval).toBe(`${attacker.origin}/search`);
    expect(attacker.received.length).toBeGreaterThanOrEqual(2 * RUNS);
    attacker.received.length = 0;
  }, 120_000);

  it('a head that adds a retrieval step to a base without one makes the runner POST nowhere; the step is listed, not run', async () => {
    const repo = new TestRepo();
    const base = repo.commit('Listings assistant', { 'listings.prompty': prompt(undefined), 'listings.tests.yaml': TESTS.split('\n').filter((line) => !line.includes('hallucination')).join('\n') });
    // The pull request points the runner at an internal service (any host and port the runner can reach).
    repo.commit('Add retrieval', { 'listings.prompty': prompt(`${attacker.origin}/internal/admin`) });
    const { stdout, stderr } = await cli(['compare', 'listings.prompty', '--base', base.slice(0, 8), '--head', 'HEAD', '--runs', '3', '--endpoint', modelUrl, '--no-store', '--json'], repo.root, []);
    const json = JSON.parse(stdout);
    expect(stderr).not.toContain('--allow-retrieval');
    expect(json.policy.retrieval).toBeNull();
    expect(json.policy.changes).toContainEqual({ text: `retrieval step added (${attacker.origin}/internal/admin)`, applied: false, why: "not applied: the base revision's policy judges the change (--policy head applies it)", effects: { 'retrieval step changed': 1 } });
    expect(json.revisions.map((r: { runsNew: number }) => r.runsNew)).toEqual([3, 3]);
    expect(attacker.received).toEqual([]);
  }, 60_000);
});
