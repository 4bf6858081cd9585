/**
 * The compare panel's "capacity under SLO" in a real VS Code (code-server + Chromium): the user ticks
 * it, and after the runs the panel searches base's and head's capacity on the chosen endpoint under
 * the base revision's policy (batch, TTFT p90 ≤ 160 ms), shows them side by side, and the batch
 * decision holds on the head's lower capacity — as `compare --capacity` does. The endpoint is the
 * simulator with 2 slots where prompt tokens cost prefill time, so the head's padded prompt serves
 * fewer concurrent requests for real (same set-up as test/unit/cliCompareCapacity.test.ts).
 * Then "Judge with: head's tests": the head's added test case judges too, and the result says so.
 */
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSim, type RunningSim } from '../../src/core/sim/simServer';
import { TestRepo } from '../fixtures/gitRepo';
import { openFileByQuickOpen } from './browser';
import { ARTIFACTS, startWorkbench, type Workbench } from './workbench';

const PROMPT = (text: string) => `---\nname: ask\nmodel:\n  api: chat\n  configuration: { type: openai, name: gpt-4o-mini }\n---\n${text}user:\nSay something short.\n`;
/** The base revision's policy judges the change: batch, with a TTFT SLO capacity is searched under. */
const TESTS = 'scenario: batch\nslo: { ttftMs: { p90: 160 } }\ntests:\n  - vars: {}\n    assert:\n      - type: icontains\n        value: simulated\n';
/** The head also adds a test case (as sampling production does): not applied unless the head's tests judge. */
const HEAD_TESTS = `${TESTS}  - description: names the simulator\n    vars: {}\n    assert:\n      - type: icontains\n        value: simulated\n`;
/** ~360 more prompt tokens: ~115 ms more prefill at 0.32 ms a token. */
const PADDING = Array.from({ length: 24 }, (_, i) => `- Background note ${i + 1}: the reader prefers plain words and short sentences.`).join('\n') + '\n\n';

let sim: RunningSim;
let bench: Workbench | undefined;
let page: Page;

beforeAll(async () => {
  // Two slots; the short prompt holds one ~90 ms (TTFT ~9 ms), the padded one ~205 ms (TTFT ~125 ms):
  // from 3 in flight most padded requests wait past 160 ms, while 4 short ones still meet it.
  sim = await startSim({ slots: 2, ttftBaseMs: 5, prefillMsPerInputToken: 0.32, decodeMsPerToken: 4, outputTokens: 20, jitterMs: 1 });
  bench = await startWorkbench({ 'ask.prompty': PROMPT(''), 'ask.tests.yaml': TESTS }, {
    'promptInsight.endpoints': [{ name: 'Two-slot simulator', provider: 'openai', baseUrl: sim.url }],
    'promptInsight.run.endpoint': 'Two-slot simulator',
    'promptInsight.run.concurrency': 2,
    'promptInsight.capacity.requestsPerLevel': 24,
    'promptInsight.capacity.limit': 4,
    'promptInsight.capacity.attainment': 0.8,
  }, {
    prepare: (workspace) => {
      const repo = new TestRepo(workspace);
      repo.git('init', '-q', '-b', 'main');
      repo.commit('Ask briefly');
      repo.commit('Add background notes', { 'ask.prompty': PROMPT(PADDING), 'ask.tests.yaml': HEAD_TESTS });
    },
  });
  page = bench.page;
}, 180_000);

afterAll(async () => {
  await bench?.close();
  await sim?.close();
});

describe('compare panel: capacity under SLO', () => {
  it("ticked, the panel shows base's and head's capacity side by side and the batch decision holds on the head's lower capacity", async () => {
    await openFileByQuickOpen(page, 'ask.prompty', `${ARTIFACTS}/open-ask-failed.png`);
    await page.locator('.codelens-decoration a', { hasText: 'Compare revisions' }).first().click({ timeout: 60_000 });
    const panel = page.frameLocator('iframe.webview.ready').frameLocator('iframe#active-frame');
    await panel.locator('.revisions li').first().waitFor({ timeout: 30_000 });
    await expect.poll(async () => (await panel.locator('.revisions').textContent()) ?? '').toContain('Add background notes');
    await panel.locator('#runs').fill('20');
    await panel.locator('#capacity').check();
    // Record every status line the panel shows, to see the search's levels go by.
    await panel.locator('body').evaluate(() => {
      const seen: string[] = [];
      (window as unknown as { statusSeen: string[] }).statusSeen = seen;
      const status = document.querySelector('.status')!;
      new MutationObserver(() => seen.push(status.textContent ?? '')).observe(status, { childList: true, characterData: true, subtree: true });
    });
    await panel.locator('button', { hasText: 'Compare selected' }).click();
    const decision = panel.locator('.rollout .decision');
    await decision.waitFor({ timeout: 110_000 });
    const section = panel.locator('.capacity-compare li');
    expect(await section.first().textContent()).toBe('capacity under SLO: base ≥ 4 → head 2 (resolved both)');
    expect(await section.nth(1).textContent()).toBe('largest concurrency meeting TTFT ≤ 160 ms, ≥ 80% of requests meeting every SLO (--attainment); 24 requests per level, limit 4');
    expect(await decision.textContent()).toMatch(/^✗ Hold [0-9a-f]{7,}/);
    expect(await panel.locator('.rollout .reasons').textContent()).toContain("head's max concurrency under SLO 2 is below base's ≥ 4 (TTFT ≤ 160 ms, ≥ 80% of requests meeting every SLO (--attainment)) — the batch scenario gates on capacity");
    const seen = await panel.locator('body').evaluate(() => (window as unknown as { statusSeen: string[] }).statusSeen);
    expect(seen.some((s) => /^capacity of [0-9a-f]{7}: concurrency 4, 24 requests…$/.test(s))).toBe(true);
    // The bar, indeterminate during the search, is full again.
    expect(await panel.locator('progress').evaluate((p: HTMLProgressElement) => p.position)).toBe(1);
    await page.screenshot({ path: `${ARTIFACTS}/compare-panel-capacity.png` });
  }, 150_000);

  it("\"Judge with: head's tests\" re-runs the comparison with the head's added test case, and the result says so", async () => {
    const panel = page.frameLocator('iframe.webview.ready').frameLocator('iframe#active-frame');
    // The base's tests judged: the head's new case is listed in plain words, not applied.
    expect(await panel.locator('.judged-with').textContent()).toBe("Judged with the base's tests; not applied: 1 case added");
    expect(await panel.locator('.policy-changes').textContent()).toContain(`test cases: 1 added — not applied: the base's tests judge this change (choose "Judge with: head's tests" to apply it)`);
    expect(await panel.locator('button.judge-with-head').count()).toBe(1);
    await panel.locator('#capacity').uncheck();
    await panel.locator('#judge-with').selectOption('head');
    await panel.locator('button', { hasText: 'Compare selected' }).click();
    await expect.poll(async () => (await panel.locator('.judged-with').textContent()) ?? '', { timeout: 110_000 }).toBe("Judged with the head's tests: 1 case added");
    expect(await panel.locator('.matrix tbody th').allTextContents()).toEqual([expect.any(String), 'names the simulator']);
    expect(await panel.locator('.policy-changes').textContent()).toBe("test cases: 1 added — applied: judged with the head's tests");
    expect(await panel.locator('button.judge-with-head').count()).toBe(0);
    await page.screenshot({ path: `${ARTIFACTS}/compare-judge-with.png` });
  }, 150_000);
});
