/**
 * `prompt-insight compare` on a knowledge prompt (issue 25), end to end: a real git repo with two
 * revisions, a model server and a scripted judge on 127.0.0.1, the built CLI. The head revision
 * invents a listing's price: the CLI shows each revision's hallucination rate with its Wilson interval,
 * the claim and the passage, and --fail-on-regression holds the change on hallucination.
 */
import { resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startAnsweringModel, type AnsweringModel } from '../fixtures/answeringModel';
import { TestRepo } from '../fixtures/gitRepo';
import { answerListings, LISTING, LISTINGS_JUDGE, listingsTests } from '../fixtures/listingsCase';
import { startScriptedJudge, type ScriptedJudge } from './adherence/scriptedJudge';
import { runCli } from '../fixtures/cli';

const cli = (args: string[], cwd: string) => runCli(args, cwd, { maxBuffer: 64 * 1024 * 1024 });

const prompt = (extra: string) => `---\nname: listings\nmodel:\n  configuration:\n    name: homes-model\n---\nsystem:\nAnswer from these listings only.${extra}\n{{context}}\n\nuser:\n{{query}}\n`;
const TESTS = listingsTests(['    vars: { query: "What does 12 Elm St cost?" }', '    context: "${file:listings.json}"']);

let model: AnsweringModel;
let modelUrl: string;
let judge: ScriptedJudge;
let repo: TestRepo;
let base: string;
beforeAll(async () => {
  model = await startAnsweringModel(answerListings);
  modelUrl = model.url;
  judge = await startScriptedJudge(LISTINGS_JUDGE);
  repo = new TestRepo();
  base = repo.commit('Listings assistant', { 'listings.prompty': prompt(''), 'listings.tests.yaml': TESTS, 'listings.json': JSON.stringify({ passages: [{ text: LISTING, id: 'elm-12' }] }) });
  repo.commit('Make prices attractive', { 'listings.prompty': prompt(' Round prices to sound attractive.') });
});
afterAll(async () => {
  await model.close();
  await judge.close();
});

describe('prompt-insight compare with a hallucination assertion', () => {
  it('shows the hallucination rate per revision and holds the change that invents a price', async () => {
    const args = ['compare', 'listings.prompty', '--base', base.slice(0, 8), '--head', 'HEAD', '--runs', '20', '--endpoint', modelUrl, '--judge-endpoint', judge.url, '--judge-model', 'judge-model', '--no-store', '--fail-on-regression'];
    const { code, stdout, stderr } = await cli(args, repo.root);
    expect(code).toBe(1);
    expect(stdout).toMatch(/^\s+hallucination 0\/20 runs 0\.0% \[0\.0%–16\.1%\]$/m);
    expect(stdout).toMatch(/^\s+hallucination 20\/20 runs 100\.0% \[83\.9%–100\.0%\]$/m);
    expect(stdout).toContain('✗ hallucination: hallucinates: claim 1 "12 Elm St is listed at $790,000." contradicted by passage 1 "12 Elm St, Bellevue: 3 bedrooms, single-family, listed at $850,000.": the listing says $850,000');
    expect(stdout).toMatch(/^HOLD: /m);
    expect(stdout).toMatch(/- hallucination \+100 pts \([0-9a-f]{7} 0\/20, [0-9a-f]{7} 20\/20 runs\), p < 0\.001 — significantly more hallucination/);
    expect(stderr).toMatch(/--fail-on-regression: HOLD: hallucination \+100 pts/);
    const json = JSON.parse((await cli([...args, '--json'], repo.root)).stdout);
    expect(json.revisions.map((r: { hallucination: unknown }) => r.hallucination)).toEqual([
      { hallucinated: 0, judged: 20, undetermined: 0, rate: 0, ci95: [0, expect.closeTo(0.1611, 3)] },
      { hallucinated: 20, judged: 20, undetermined: 0, rate: 1, ci95: [expect.closeTo(0.8389, 3), 1] },
    ]);
    expect(json.rollout.decision).toBe('hold');
  }, 60_000);

  it('the homes demo\'s knowledge case: the simulator (model and judge) and the example files; the revision that rounds prices invents one and is held', async () => {
    const { readFileSync } = await import('node:fs');
    const { startSimProcess } = await import('../fixtures/simProcess');
    const sim = await startSimProcess(['--scenario', resolve('examples/homes/homes.sim.yaml'), '--ttft-ms', '5', '--decode-ms-per-token', '0.2']);
    try {
      const files = Object.fromEntries(['listings.prompty', 'listings.tests.yaml', 'listings.json'].map((f) => [f, readFileSync(resolve('examples/homes', f), 'utf8')]));
      const demo = new TestRepo();
      const first = demo.commit('Listings assistant', files);
      // The demo's third revision (test/e2e/demo.ts): "round prices" makes the assistant invent a price.
      demo.commit('Round prices to sound attractive', { 'listings.prompty': files['listings.prompty']!.replace('quote prices exactly.', 'round prices to sound attractive.') });
      const args = ['compare', 'listings.prompty', '--base', first.slice(0, 8), '--head', 'HEAD', '--runs', '10', '--endpoint', sim.url, '--judge-endpoint', sim.url, '--judge-model', 'sim', '--no-store', '--fail-on-regression'];
      const { code, stdout } = await cli(args, demo.root);
      expect(code).toBe(1);
      expect(stdout).toMatch(/^\s+hallucination 0\/10 runs 0\.0% \[0\.0%–27\.8%\]$/m);
      expect(stdout).toMatch(/^\s+hallucination 10\/10 runs 100\.0% \[72\.2%–100\.0%\]$/m);
      expect(stdout).toContain('✗ hallucination: hallucinates: claim 1 "14820 NE 8th St is listed at $1,099,000." contradicted by passage 1 "Bellevue homes for sale — 14820 NE 8th St: single-family house, 4 bedrooms, 2,640 sq ft, listed at …": the listing gives $1,150,000, not $1,099,000');
      expect(stdout).toMatch(/^HOLD: /m);
      expect(stdout).toMatch(/- hallucination \+100 pts \([0-9a-f]{7} 0\/10, [0-9a-f]{7} 10\/10 runs\), p < 0\.001 — significantly more hallucination/);
      // The listings name the relevant passage: context precision is scored too (weight 0: it does not move adherence).
      const json = JSON.parse((await cli([...args, '--json'], demo.root)).stdout);
      expect(json.rollout.decision).toBe('hold');
      const precision = json.revisions[0].perCase[0].runs[0].assertions.find((a: { label: string }) => a.label === 'context-precision');
      expect(precision).toMatchObject({ outcome: 'pass', reason: 'relevant passages at rank 1 of 3: context precision@3 1.000 (pass at 0.5)' });
    } finally {
      sim.child.kill('SIGINT');
    }
  }, 60_000);

  it('with people\'s labels of the hallucination check, its judge is carded and the ceiling is judged on the corrected rate', async () => {
    const { readFileSync } = await import('node:fs');
    const { startSimProcess } = await import('../fixtures/simProcess');
    const { loadTestSuite } = await import('../../src/core/adherence/testCases');
    const { parsePromptFile } = await import('../../src/core/formats/detect');
    const sim = await startSimProcess(['--scenario', resolve('examples/homes/homes.sim.yaml'), '--ttft-ms', '5', '--decode-ms-per-token', '0.2']);
    try {
      const files = Object.fromEntries(['listings.prompty', 'listings.tests.yaml', 'listings.json'].map((f) => [f, readFileSync(resolve('examples/homes', f), 'utf8')]));
      const doc = parsePromptFile('listings.prompty', files['listings.prompty']!);
      const suite = loadTestSuite(resolve('examples/homes/listings.prompty'), files['listings.prompty']!, doc.format, doc.prompts[0]!, (p) => readFileSync(p, 'utf8'));
      const vars = suite.cases[0]!.vars;
      const label = (answer: string, verdict: string, i: number) => JSON.stringify({ check: 'hallucination', vars, answer: `${answer} (${i})`, label: verdict, source: 'HUMAN', author: 'Ada <ada@example.com>', time: '2026-12-07T06:00:00Z' });
      const labels = [...Array.from({ length: 31 }, (_, i) => label('14820 NE 8th St is listed at $1,150,000.', 'pass', i)), ...Array.from({ length: 31 }, (_, i) => label('14820 NE 8th St is listed at $1,099,000.', 'fail', i))];
      const demo = new TestRepo();
      const first = demo.commit('Listings assistant', { ...files, 'listings.labels.jsonl': `${labels.join('\n')}\n` });
      demo.commit('Round prices to sound attractive', { 'listings.prompty': files['listings.prompty']!.replace('quote prices exactly.', 'round prices to sound attractive.') });
      const { code, stdout } = await cli(['compare', 'listings.prompty', '--base', first.slice(0, 8), '--head', 'HEAD', '--runs', '10', '--endpoint', sim.url, '--judge-endpoint', sim.url, '--judge-model', 'sim', '--no-store', '--slo', 'hallucination<=0.05', '--json'], demo.root);
      expect(code).toBe(0);
      const json = JSON.parse(stdout);
      expect(json.judgeTrust.find((o: { check: string }) => o.check === 'hallucination')).toMatchObject({ trusted: true });
      const ceiling = json.rollout.slo.find((o: { label: string }) => /hallucination/.test(o.label));
      // The judge agreed with all 62 labels: corrected, the base's 0 of 10 is ~0% and the head's 10 of 10 ~100%.
      expect(ceiling.base).toMatchObject({ corrected: true, status: 'unclear' });
      expect(ceiling.base.text).toMatch(/^0 of 10 judged runs hallucinate, 0(\.0)?% corrected for the judge's measured error/);
      expect(ceiling.head).toMatchObject({ corrected: true, status: 'broken' });
      expect(json.rollout.decision).toBe('hold');
    } finally {
      sim.child.kill('SIGINT');
    }
  }, 60_000);
});
