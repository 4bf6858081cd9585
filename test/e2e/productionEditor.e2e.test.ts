/**
 * Production in a real VS Code (code-server + Chromium, the packaged extension): with
 * `promptInsight.production.sources` naming a trace file in the workspace, the prompt's lens shows what
 * production measured for the committed version, and clicking it opens the Production view.
 */
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TestRepo } from '../fixtures/gitRepo';
import { otlpSpan, tracesLine } from '../fixtures/otlpTraces';
import { openFileByQuickOpen } from './browser';
import { ARTIFACTS, startWorkbench, type Workbench } from './workbench';

const TEXT = '---\nmodel: gpt-test\n---\nSay hello to the user, briefly and warmly.\n';
let bench: Workbench | undefined;
let page: Page;
let commit: string;

beforeAll(async () => {
  bench = await startWorkbench({ 'greet.prompt': TEXT }, { 'promptInsight.production.sources': [{ traces: 'telemetry/*.jsonl' }] }, {
    prepare: (workspace) => {
      const repo = new TestRepo(workspace);
      repo.git('init', '-q', '-b', 'main');
      commit = repo.commit('Greeting', { 'greet.prompt': TEXT });
      const now = Date.now();
      // 120 requests of the committed version in the last two hours: TTFT 300…419 ms.
      repo.write('telemetry/app.jsonl', `${tracesLine(Array.from({ length: 120 }, (_, i) => otlpSpan({ promptName: 'greet', version: commit.slice(0, 7), startMs: now - 2 * 3_600_000 + i * 60_000, ttftMs: 300 + i, e2eMs: 900 + i })))}\n`);
    },
  });
  page = bench.page;
}, 180_000);

afterAll(async () => {
  await bench?.close();
});

describe('production in VS Code', () => {
  it('the lens shows the committed version’s production TTFT; clicking it opens the Production view', async () => {
    await openFileByQuickOpen(page, 'greet.prompt', `${ARTIFACTS}/production-open-failed.png`);
    const lens = page.locator('.codelens-decoration a', { hasText: /^prod TTFT/ });
    // 120 requests, TTFT 300…419 ms: p50 359.5 → 360 ms; p99 (type 7) 417.81 → 418 ms.
    await expect.poll(async () => (await lens.first().textContent({ timeout: 60_000 }).catch(() => '')) ?? '', { timeout: 90_000 }).toBe(`prod TTFT p50 360 ms · p99 418 ms · 120 req/24 h · v ${commit.slice(0, 7)}`);
    await page.screenshot({ path: `${ARTIFACTS}/production-lens.png` });
    await lens.first().click();
    const panel = page.frameLocator('iframe.webview.ready').frameLocator('iframe#active-frame');
    await expect.poll(async () => (await panel.locator('h2').first().textContent({ timeout: 60_000 }).catch(() => '')) ?? '', { timeout: 60_000 }).toBe('Production of greet — greet.prompt');
    expect(await panel.locator('.production-versions tbody tr').first().innerText()).toMatch(new RegExp(`^${commit.slice(0, 7)} \\(this text\\)\\t${commit.slice(0, 7)} Greeting\\t120\\t0\\.0%\\t360 ms\\t418 ms`));
    await expect.poll(async () => Number(await panel.locator('body').getAttribute('data-charts-drawn')), { timeout: 30_000 }).toBe(1);
    await page.screenshot({ path: `${ARTIFACTS}/production-panel.png` });
  });
});
