/** The standalone HTML report (and so the panel's renderer) in headless Chromium: charts drawn, CSP clean. */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import type { Browser } from 'playwright-core';
import { launchChromium } from './browser';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { renderReportHtml } from '../../src/core/compare/report';
import { syntheticComparison } from '../fixtures/syntheticComparison';

const ARTIFACTS = 'test-artifacts/e2e';
let browser: Browser;
beforeAll(async () => {
  mkdirSync(ARTIFACTS, { recursive: true });
  browser = await launchChromium();
});
afterAll(async () => browser?.close());

describe('comparison report', () => {
  it('renders verdict cards, four charts, the per-test matrix and the diff, offline and without CSP violations', async () => {
    const html = renderReportHtml(syntheticComparison(3, 100), { script: readFileSync('dist/webview.js', 'utf8'), css: readFileSync('media/panel.css', 'utf8') });
    const file = resolve(ARTIFACTS, 'report.html');
    writeFileSync(file, html);
    const page = await browser.newPage({ viewport: { width: 1200, height: 1400 } });
    const problems: string[] = [];
    page.on('console', (m) => m.type() === 'error' && problems.push(m.text()));
    page.on('pageerror', (e) => problems.push(e.message));
    page.on('request', (r) => !r.url().startsWith('file:') && !r.url().startsWith('data:') && problems.push(`network: ${r.url()}`));
    await page.goto(`file://${file}`);
    await page.waitForFunction(() => document.body.dataset.renderMs !== undefined);
    // The rollout decision leads the report as it leads the panel (adherence 30% → 90% over 3 revisions: ship).
    expect(await page.locator('.rollout .decision').textContent()).toBe('✓ Ship rev2 (vs rev0)');
    expect(await page.locator('.rollout .meta').textContent()).toContain('Scenario: decision (--scenario)');
    expect(await page.locator('.card').count()).toBe(2);
    expect(await page.locator('.card').first().textContent()).toMatch(/adherence [+-]\d+ pts/);
    const sizes = await page.locator('canvas').evaluateAll((canvases) => canvases.map((c) => [(c as HTMLCanvasElement).width, (c as HTMLCanvasElement).height]));
    expect(sizes).toHaveLength(4);
    for (const [w, h] of sizes) expect(w! * h!).toBeGreaterThan(10_000);
    // Something was drawn: the adherence chart is not a blank canvas.
    const inked = await page.locator('canvas').first().evaluate((c) => {
      const ctx = (c as HTMLCanvasElement).getContext('2d')!;
      const data = ctx.getImageData(0, 0, (c as HTMLCanvasElement).width, (c as HTMLCanvasElement).height).data;
      let n = 0;
      for (let i = 3; i < data.length; i += 4) if (data[i]! > 0) n++;
      return n;
    });
    expect(inked).toBeGreaterThan(1000);
    expect(await page.locator('.matrix tbody tr').count()).toBe(4);
    expect(await page.locator('.diff .added').count()).toBe(1);
    expect(problems).toEqual([]);
    await page.screenshot({ path: `${ARTIFACTS}/report.png`, fullPage: true });
    await page.close();
  });

  it('bidi overrides and control characters in test names, authors and subjects are shown, not obeyed', async () => {
    const comparison = syntheticComparison(2, 20);
    comparison.cases[0] = 'homes \u202Eliaf\u202C test';
    comparison.revisions[0]!.author = 'mallory\u2066evil\u2069';
    comparison.problems = ['line\u001b[2Jbreak'];
    const html = renderReportHtml(comparison, { script: readFileSync('dist/webview.js', 'utf8'), css: readFileSync('media/panel.css', 'utf8') });
    const file = resolve(ARTIFACTS, 'report-bidi.html');
    writeFileSync(file, html);
    const page = await browser.newPage();
    await page.goto(`file://${file}`);
    await page.waitForFunction(() => document.body.dataset.renderMs !== undefined);
    const text = await page.locator('#app').innerText();
    expect(text).toContain('homes ⟨U+202E⟩liaf⟨U+202C⟩ test');
    expect(text).toContain('line⟨U+001B⟩[2Jbreak');
    expect(text).not.toMatch(/[\u202a-\u202e\u2066-\u2069\u001b]/);
    await page.close();
  });
});
