/**
 * Issue 38.7: stored runs are keyed by the retrieval step that filled their passages. The prompt is
 * keyed before the passages are in it, so without the step in the key a comparison told to reuse
 * stored runs took runs made with another search service, another query or another topK for its own.
 * A real git repository, a model server and two search services on 127.0.0.1, the built CLI.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startAnsweringModel, type AnsweringModel } from '../fixtures/answeringModel';
import { startAttackerServer, type AttackerServer } from '../fixtures/attackerServer';
import { runCli } from '../fixtures/cli';
import { TestRepo } from '../fixtures/gitRepo';
import { ragPrompty } from '../fixtures/ragPrompt';

let model: AnsweringModel;
let searchA: AttackerServer;
let searchB: AttackerServer;

beforeAll(async () => {
  model = await startAnsweringModel(() => '12 Elm St is listed at $850,000.');
  searchA = await startAttackerServer({ passages: [{ text: '12 Elm St, Bellevue: listed at $850,000.' }] });
  searchB = await startAttackerServer({ passages: [{ text: '12 Elm St, Bellevue: listed at $790,000.' }] });
});
afterAll(async () => {
  await model.close();
  await searchA.close();
  await searchB.close();
});

describe('the run key includes the retrieval step', () => {
  it('a comparison reuses the runs of its own retrieval step, never those of another URL, query or topK', async () => {
    const repo = new TestRepo();
    const prompt = (url: string, query?: string) => ragPrompty({ url, ...(query ? { query } : {}) });
    const head = (base: string) => base.replace('Answer from these listings only.', 'Answer from these listings only. Be brief.');
    const onA = `${searchA.origin}/search`;
    // Each base differs from the first only in its retrieval step: the messages it renders are the same.
    const tests = 'tests:\n  - vars: { question: "What does 12 Elm St cost?" }\n    assert:\n      - { type: icontains, value: "elm st" }\n';
    const baseA = repo.commit('search A', { 'listings.prompty': prompt(onA), 'listings.tests.yaml': tests });
    const headA = repo.commit('be brief', { 'listings.prompty': head(prompt(onA)) });
    const baseB = repo.commit('search B', { 'listings.prompty': prompt(`${searchB.origin}/search`) });
    const baseQuery = repo.commit('another query', { 'listings.prompty': prompt(onA, 'listings: {{question}}') });
    const baseTopK = repo.commit('another topK', { 'listings.prompty': prompt(onA).replace('topK: 3', 'topK: 2') });
    const env = { ...process.env, PROMPT_INSIGHT_ALLOW_RETRIEVAL: `${searchA.origin},${searchB.origin}`, PROMPT_INSIGHT_CONFIG_DIR: `${repo.root}/.no-user-config` };
    const compare = async (base: string) => {
      const result = await runCli(['compare', 'listings.prompty', '--base', base, '--head', headA, '--runs', '2', '--endpoint', model.url, '--store', 'runs.jsonl', '--reuse-stored', '--json'], repo.root, { env });
      expect(result.stderr).toBe('');
      return (JSON.parse(result.stdout).revisions as { runsReused: number; runsNew: number }[]).map((r) => [r.runsReused, r.runsNew]);
    };

    expect(await compare(baseA)).toEqual([[0, 2], [0, 2]]);
    const askedA = searchA.received.length;
    // The same step: every run reused, the search service not asked again.
    expect(await compare(baseA)).toEqual([[2, 0], [2, 0]]);
    expect(searchA.received.length).toBe(askedA);
    // Another search service (the base's step judges both revisions): measured again with its passages.
    expect(await compare(baseB)).toEqual([[0, 2], [0, 2]]);
    expect(searchB.received.length).toBeGreaterThanOrEqual(4);
    // Another query template, another topK: measured again.
    expect(await compare(baseQuery)).toEqual([[0, 2], [0, 2]]);
    expect(await compare(baseTopK)).toEqual([[0, 2], [0, 2]]);
    // And each of those, asked again, reuses its own.
    const askedB = searchB.received.length;
    expect(await compare(baseB)).toEqual([[2, 0], [2, 0]]);
    expect(searchB.received.length).toBe(askedB);
    expect(await compare(baseTopK)).toEqual([[2, 0], [2, 0]]);
  });
});
