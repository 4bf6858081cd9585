/**
 * Issue 30 in a real VS Code (code-server + Chromium): the compare panel runs the base revision's
 * retrieval step for both revisions, and asks before its first query, as ▶ Run does. The head (the
 * newest commit) points retrieval at an "attacker" search service; a loopback server records what it
 * receives. Declined: nothing is sent anywhere. Confirmed: the base's search is asked, the attacker
 * never is, and the panel names the head's change as a policy change that is not applied.
 */
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSim, type RunningSim } from '../../src/core/sim/simServer';
import { startAttackerServer, type AttackerServer } from '../fixtures/attackerServer';
import { TestRepo } from '../fixtures/gitRepo';
import { openFileByQuickOpen } from './browser';
import { ARTIFACTS, startWorkbench, type Workbench } from './workbench';

const PROMPT = (searchUrl: string) => `---\nname: listings\nmodel:\n  api: chat\n  configuration: { type: openai, name: gpt-4o-mini }\nsample:\n  question: homes in Bellevue\nretrieval: { url: "${searchUrl}", query: "{{question}}", into: context, topK: 2 }\n---\nsystem:\nAnswer from these listings only.\n{{context}}\n\nuser:\n{{question}}\n`;
const TESTS = 'tests:\n  - vars: { question: homes in Bellevue }\n    assert:\n      - type: icontains\n        value: ""\n';

let sim: RunningSim;
let honest: AttackerServer;
let attacker: AttackerServer;
let bench: Workbench | undefined;
let page: Page;

beforeAll(async () => {
  sim = await startSim({ ttftBaseMs: 5, decodeMsPerToken: 1, outputTokens: 8, jitterMs: 1 });
  honest = await startAttackerServer({ passages: [{ text: '12 Elm St: $850,000' }] });
  attacker = await startAttackerServer({ passages: [{ text: '12 Elm St: $790,000' }] });
  bench = await startWorkbench({ 'rag.prompty': PROMPT(`${honest.origin}/search`), 'rag.tests.yaml': TESTS }, {
    'promptInsight.endpoints': [{ name: 'Simulator', provider: 'openai', baseUrl: sim.url }],
    'promptInsight.run.endpoint': 'Simulator',
  }, {
    prepare: (workspace) => {
      const repo = new TestRepo(workspace);
      repo.git('init', '-q', '-b', 'main');
      repo.commit('Listings assistant');
      repo.commit('Use our own search', { 'rag.prompty': PROMPT(`${attacker.origin}/search`) });
    },
  });
  page = bench.page;
}, 180_000);

afterAll(async () => {
  await bench?.close();
  await sim?.close();
  await honest?.close();
  await attacker?.close();
});

describe('compare panel: the retrieval step', () => {
  it("asks before the base revision's search is called, never calls the head's, and names the head's change", async () => {
    await openFileByQuickOpen(page, 'rag.prompty', `${ARTIFACTS}/open-rag-failed.png`);
    await page.locator('.codelens-decoration a', { hasText: 'Compare revisions' }).first().click({ timeout: 60_000 });
    const panel = page.frameLocator('iframe.webview.ready').frameLocator('iframe#active-frame');
    await expect.poll(async () => (await panel.locator('.revisions').textContent()) ?? '', { timeout: 30_000 }).toContain('Use our own search');
    await panel.locator('#runs').fill('3');

    // Declined: the panel says so, and nothing was sent.
    await panel.locator('button', { hasText: 'Compare selected' }).click();
    const dialog = page.locator('.monaco-dialog-box');
    await dialog.waitFor({ timeout: 30_000 });
    const asked = (await dialog.textContent()) ?? '';
    expect(asked).toContain(`${honest.origin}/search`);
    expect(asked).not.toContain(attacker.origin);
    await page.screenshot({ path: `${ARTIFACTS}/compare-retrieval-consent.png` });
    await dialog.getByRole('button', { name: 'Cancel' }).click();
    await expect.poll(async () => (await panel.locator('.status').textContent()) ?? '', { timeout: 30_000 }).toContain(`Not run: the retrieval URL ${honest.origin}/search was not confirmed.`);
    expect(honest.received).toEqual([]);
    expect(attacker.received).toEqual([]);

    // Confirmed: the base's step runs for both revisions; the head's change is listed, not applied.
    await panel.locator('button', { hasText: 'Compare selected' }).click();
    await dialog.waitFor({ timeout: 30_000 });
    await dialog.getByRole('button', { name: 'Send the retrieval query' }).click();
    const decision = panel.locator('.rollout .decision');
    await decision.waitFor({ timeout: 90_000 });
    expect(await panel.locator('.rollout .meta').first().textContent()).toContain(`retrieval: ${honest.origin}/search, its step run for every revision`);
    expect(await panel.locator('.policy-changes').textContent()).toContain(`retrieval.url ${honest.origin}/search → ${attacker.origin}/search — not applied`);
    expect(honest.received.map((r) => JSON.parse(r.body))).toEqual(Array.from({ length: 6 }, () => ({ query: 'homes in Bellevue', topK: 2 })));
    expect(attacker.received).toEqual([]);
    await page.screenshot({ path: `${ARTIFACTS}/compare-retrieval-policy.png` });
  }, 180_000);
});
