/**
 * Production in a real VS Code (code-server + Chromium, the packaged extension): with
 * `promptInsight.production.sources` naming a trace file in the workspace, the prompt's lens shows what
 * production measured for the committed version, and clicking it opens the Production view: the planted
 * anomaly (a night of 1.9 s TTFT after a version went live) listed in words and shaded on the chart, the
 * window picker asking for 7 days and the chart redrawn.
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
      // The baseline: eight days of v-base, 12 requests an hour at TTFT 300…392 ms (about the committed version’s level);
      // v-night goes live 22 h ago and its first six hours run at 1.9 s, then as usual until 3 h ago. One line per day.
      const HOUR = 3_600_000;
      const night = Math.floor((now - 22 * HOUR) / HOUR) * HOUR;
      const days: Record<string, unknown>[][] = [];
      for (let hour = Math.floor((now - 8 * 24 * HOUR) / HOUR) * HOUR; hour < now - 3 * HOUR; hour += HOUR) {
        const spans = (days[Math.floor((hour - now) / (24 * HOUR)) + 9] ??= []);
        for (let i = 0; i < 12; i++) {
          const slow = hour >= night && hour < night + 6 * HOUR;
          const ttftMs = slow ? 1900 : 300 + ((i * 23) % 115);
          spans.push(otlpSpan({ promptName: 'greet', version: hour >= night ? 'v-night' : 'v-base', startMs: hour + i * 5 * 60_000, ttftMs, e2eMs: ttftMs + 600 }));
        }
      }
      repo.write('telemetry/history.jsonl', `${days.filter(Boolean).map((spans) => tracesLine(spans)).join('\n')}\n`);
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

  it('the planted slow night is listed in words under the chart; the window picker asks for 7 days and the chart is redrawn', async () => {
    const panel = page.frameLocator('iframe.webview.ready').frameLocator('iframe#active-frame');
    // The default covers the last version change (the committed one, 2 h ago) and at least 24 h: the night 22 h ago is in it.
    expect(await panel.locator('#production-window').inputValue()).toBe('since-change');
    const anomaly = panel.locator('.anomaly-list li').first();
    expect(await anomaly.innerText()).toMatch(/ UTC: TTFT p99 1\.90 s over the usual \d{3} ms, while version v-night was live — likely cause: the new version v-night, live from /);
    await anomaly.click();
    expect(await anomaly.getAttribute('aria-pressed')).toBe('true');
    await panel.locator('#production-window').selectOption('7d');
    await expect.poll(async () => Number(await panel.locator('body').getAttribute('data-charts-drawn')), { timeout: 60_000 }).toBe(2);
    expect(await panel.locator('#production-window').inputValue()).toBe('7d');
    expect(await panel.locator('.production-source h3').first().innerText()).toMatch(/ · last 7d: /);
    expect(await panel.locator('.anomaly-list li').first().innerText()).toMatch(/TTFT p99 1\.90 s .* v-night/);
    await page.screenshot({ path: `${ARTIFACTS}/production-anomaly.png` });
  });
});
