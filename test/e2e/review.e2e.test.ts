/**
 * The review queue in a real VS Code (code-server + Chromium, the packaged extension): 100 of the 101
 * answers of a Run ×101 on a simulated endpoint are labelled keyboard-only — P and F, a comment typed
 * after C — in two sittings; the second resumes where the first stopped. Every label is a line of the labels file
 * beside the prompt, valid against its schema and signed with the repository's git user. The labels an
 * hour are measured from the first key to the last label on disk and printed.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { FrameLocator, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseLabels } from '../../src/core/adherence/labelsFile';
import { parseScenario } from '../../src/core/sim/scenario';
import { startSim, type RunningSim } from '../../src/core/sim/simServer';
import { TestRepo } from '../fixtures/gitRepo';
import { focusFirstGroup, openFileByQuickOpen, readRenderedTab, runCommandByPalette } from './browser';
import { ARTIFACTS, startWorkbench, type Workbench } from './workbench';

const PROMPT = `---
name: listings
model: gpt-test
inputs:
  city: Bellevue, WA
---
system:
List single-family houses for sale in {{city}}.
`;
const TESTS = `defaultTest:
  assert:
    - type: llm-rubric
      value: Lists only single-family houses
      metric: single-family only
`;
// 101 answers: 100 labelled and one skipped.
const RUNS = 101;

let sim: RunningSim;
/** The judge: a second simulator whose scenario fails an answer when it says "honest", else passes it. */
let judgeSim: RunningSim;
const JUDGE_SCENARIO = `rules:
  - whenPromptContains: ["grade an AI answer against a rubric", "honest"]
    answers: ['{"pass": false, "score": 0, "reason": "the answer talks about honesty"}']
answers: ['{"pass": true, "score": 1, "reason": "lists houses only"}']
`;
let bench: Workbench | undefined;
let page: Page;
let workspace: string;

beforeAll(async () => {
  // Short random answers ("Simulated …" and filler words): every run's answer differs.
  sim = await startSim({ ttftBaseMs: 5, decodeMsPerToken: 0, jitterMs: 0, outputTokens: 12, seed: 40 } as Parameters<typeof startSim>[0]);
  judgeSim = await startSim({ ttftBaseMs: 1, decodeMsPerToken: 0, jitterMs: 0, scenario: parseScenario(JUDGE_SCENARIO) } as Parameters<typeof startSim>[0]);
  bench = await startWorkbench({ 'listings.prompty': PROMPT, 'listings.tests.yaml': TESTS }, {
    'promptInsight.endpoints': [{ name: 'E2E simulator', provider: 'openai', baseUrl: sim.url }, { name: 'E2E judge', provider: 'openai', baseUrl: judgeSim.url, model: 'judge' }],
    'promptInsight.judge.endpoint': 'E2E judge',
    'promptInsight.run.endpoint': 'E2E simulator',
    'promptInsight.run.repeats': RUNS,
    'promptInsight.run.warmup': 0,
    'promptInsight.run.concurrency': 8,
  }, {
    prepare: (dir) => {
      workspace = dir;
      const repo = new TestRepo(dir);
      repo.git('init', '-q', '-b', 'main');
      repo.git('config', 'user.name', 'Ada Reviewer');
      repo.git('config', 'user.email', 'ada@example.com');
    },
  });
  page = bench.page;
}, 180_000);

afterAll(async () => {
  await bench?.close();
  await sim?.close();
  await judgeSim?.close();
});

/** The review page (the newest visible webview's inner frame). */
const reviewFrame = (): FrameLocator => page.frameLocator('iframe.webview.ready >> visible=true').last().frameLocator('iframe#active-frame');
const labelsFile = () => join(workspace, 'listings.labels.jsonl');
const labelsOnDisk = () => (existsSync(labelsFile()) ? parseLabels(readFileSync(labelsFile(), 'utf8'), 'listings.labels.jsonl') : { labels: [], problems: [] });

async function openReview(): Promise<FrameLocator> {
  await focusFirstGroup(page).catch(() => undefined);
  await openFileByQuickOpen(page, 'listings.prompty', `${ARTIFACTS}/review-open-failed.png`);
  await runCommandByPalette(page, 'Prompt Insight: Review Answers', 'Review Answers', `${ARTIFACTS}/review-palette-failed.png`);
  // Judged checks: in order, or balanced by the judge. In order is offered first.
  await page.locator('.quick-input-widget .quick-input-title', { hasText: 'Review answers of listings' }).waitFor({ timeout: 60_000 });
  await page.locator('.quick-input-widget input').press('Enter');
  const frame = reviewFrame();
  await frame.locator('.review-item h3', { hasText: 'Check: single-family only' }).waitFor({ timeout: 60_000 });
  // Keys go to the page once it has the focus, as after a click on it.
  await frame.locator('h2').click();
  return frame;
}

/** Presses `key` and waits until the page shows the next item (or the end): one label per key, no key lost. */
async function label(frame: FrameLocator, key: string, labelledBefore: number): Promise<void> {
  await page.keyboard.press(key);
  await frame.locator('.review-progress', { hasText: new RegExp(`· ${labelledBefore + 1} labelled`) }).waitFor({ timeout: 30_000 });
}

describe('reviewing answers in VS Code', () => {
  it('labels 100 answers of a Run ×101 keyboard-only, in two sittings, into the labels file beside the prompt', async () => {
    await openFileByQuickOpen(page, 'listings.prompty', `${ARTIFACTS}/review-open-failed.png`);
    await runCommandByPalette(page, 'Run Prompt Repeatedly', 'Run Prompt Repeatedly', `${ARTIFACTS}/review-run-failed.png`);
    await page.locator('.notification-toast', { hasText: /listings.*TTFT/ }).waitFor({ timeout: 180_000 });
    // The results open rendered once the batch ends; the review starts after that, so nothing takes the focus from it.
    await page.locator('.tab', { hasText: /Preview.*listings — 101 runs at/ }).waitFor({ timeout: 60_000 });
    expect(sim.served()).toBeGreaterThanOrEqual(RUNS);

    // First sitting: 60 labels, the 7th with a comment typed after C (Escape goes back to the keys).
    let frame = await openReview();
    await expect.poll(async () => (await frame.locator('.review-progress').textContent()) ?? '').toMatch(/^Answer 1 of \d+ · 0 labelled · 0 skipped$/);
    const total = Number(/of (\d+)/.exec((await frame.locator('.review-progress').textContent()) ?? '')![1]);
    expect(total).toBe(RUNS);
    // The input as it was sent: the prompt rendered with its sample inputs.
    await frame.locator('.review-input summary').click();
    expect(await frame.locator('.review-input').textContent()).toBe('Input: 1 message · city = Bellevue, WAsystemList single-family houses for sale in Bellevue, WA.');
    await frame.locator('h2').click();
    const started = performance.now();
    for (let i = 0; i < 60; i++) {
      if (i === 6) {
        await page.keyboard.press('c');
        await page.keyboard.type('names a townhouse');
        await page.keyboard.press('Escape');
      }
      await label(frame, i % 3 === 2 ? 'f' : 'p', i);
    }
    const firstSittingMs = performance.now() - started;
    expect(labelsOnDisk().labels).toHaveLength(60);
    await page.screenshot({ path: `${ARTIFACTS}/review-queue.png` });
    // Closed by its tab's close button (keys would go to the page).
    await page.locator('.tab', { hasText: 'Review: listings' }).locator('.tab-actions .action-label').click();
    await page.locator('.tab', { hasText: 'Review: listings' }).waitFor({ state: 'detached', timeout: 30_000 });

    // Second sitting: the queue resumes with the answers not labelled yet; S skips one, then the rest are labelled.
    frame = await openReview();
    const rest = total - 60;
    await expect.poll(async () => (await frame.locator('.review-progress').textContent()) ?? '').toBe(`Answer 1 of ${rest} · 0 labelled · 0 skipped`);
    const resumed = performance.now();
    await page.keyboard.press('s');
    await frame.locator('.review-progress', { hasText: '· 1 skipped' }).waitFor({ timeout: 30_000 });
    for (let i = 0; i < rest - 1; i++) await label(frame, i % 3 === 2 ? 'f' : 'p', i);
    await frame.locator('.review-done', { hasText: `Done: ${rest - 1} labelled, 1 skipped` }).waitFor({ timeout: 30_000 });
    const secondSittingMs = performance.now() - resumed;

    const { labels, problems } = labelsOnDisk();
    expect(problems).toEqual([]);
    expect(labels).toHaveLength(total - 1);
    expect(new Set(labels.map((l) => l.answer)).size).toBe(total - 1);
    for (const l of labels) {
      expect(l).toMatchObject({ check: 'single-family only', vars: { city: 'Bellevue, WA' }, source: 'HUMAN', author: 'Ada Reviewer <ada@example.com>' });
      expect(l.answer).toMatch(/^Simulated/);
    }
    expect(labels.filter((l) => l.label === 'fail')).toHaveLength(20 + Math.floor((rest - 1) / 3));
    expect(labels.filter((l) => l.comment)).toEqual([expect.objectContaining({ line: 7, comment: 'names a townhouse', label: 'pass' })]);

    const perHour = ((total - 1) / (firstSittingMs + secondSittingMs)) * 3_600_000;
    console.log(`review queue: ${total - 1} labels and 1 skip keyboard-only in ${((firstSittingMs + secondSittingMs) / 1000).toFixed(1)} s of the e2e driver's keys: ${Math.round(perHour).toLocaleString('en-US')} labels an hour (the bar is 300; a person's reading time comes on top)`);
    expect(perHour).toBeGreaterThan(300);
  }, 600_000);

  it("Check Judge Trust sets the judge against those labels: the card's counts and rates are the ones the labels and the judge's rule give", async () => {
    const { labels } = labelsOnDisk();
    const judgeFails = (answer: string) => /honest/i.test(answer);
    const count = (human: string, judge: boolean) => labels.filter((l) => l.label === human && judgeFails(l.answer) === judge).length;
    const caught = count('fail', true);
    const fails = labels.filter((l) => l.label === 'fail').length;
    const passedRight = count('pass', false);
    const passes = labels.length - fails;
    const served = judgeSim.served();
    await focusFirstGroup(page).catch(() => undefined);
    await openFileByQuickOpen(page, 'listings.prompty', `${ARTIFACTS}/judge-trust-open-failed.png`);
    await runCommandByPalette(page, 'Prompt Insight: Check Judge Trust', 'Check Judge Trust', `${ARTIFACTS}/judge-trust-palette-failed.png`);
    await page.locator('.tab', { hasText: /Judge trust — listings/ }).waitFor({ timeout: 60_000 });
    let shown = '';
    await expect.poll(async () => (shown = await readRenderedTab(page, /Judge trust — listings/)), { timeout: 30_000 }).toContain('Catches failures (TPR)');
    await page.screenshot({ path: `${ARTIFACTS}/judge-trust.png` });
    shown = shown.replace(/\s+/g, ' ');
    // Every labelled answer was asked about once (the runs' own checks asked about the same answers, but those verdicts are not kept).
    expect(judgeSim.served() - served).toBe(labels.length);
    expect(shown).toContain('✗ Not trusted: single-family only');
    expect(shown).toContain(`Answers people labelled ${fails + passes} (${fails} fail, ${passes} pass)`);
    expect(shown).toContain(`Catches failures (TPR) ${((caught / fails) * 100).toFixed(1)}%`);
    expect(shown).toContain(`Passes good answers (TNR) ${((passedRight / passes) * 100).toFixed(1)}%`);

    // Checked again: the kept verdicts answer, the judge is not asked.
    const again = judgeSim.served();
    await openFileByQuickOpen(page, 'listings.prompty', `${ARTIFACTS}/judge-trust-open-failed.png`);
    await runCommandByPalette(page, 'Prompt Insight: Check Judge Trust', 'Check Judge Trust', `${ARTIFACTS}/judge-trust-palette-failed.png`);
    await page.locator('.notification-toast', { hasText: 'listings: the judge is not trusted for single-family only' }).last().waitFor({ timeout: 60_000 });
    expect(judgeSim.served()).toBe(again);
  }, 300_000);
});
