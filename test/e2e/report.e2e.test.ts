/** The standalone HTML report (and so the panel's renderer) in headless Chromium: charts drawn, CSP clean. */
import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { startSim } from '../../src/core/sim/simServer';
import type { Browser } from 'playwright-core';
import { inkedPixels, launchChromium, openOfflinePage } from './browser';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { renderReportHtml } from '../../src/core/compare/report';
import { syntheticComparison } from '../fixtures/syntheticComparison';

const ARTIFACTS = 'test-artifacts/e2e';
const run = promisify(execFile);
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
    const { page, problems } = await openOfflinePage(browser, file);
    // The rollout decision leads the report as it leads the panel (adherence 30% → 90% over 3 revisions: ship).
    expect(await page.locator('.rollout .decision').textContent()).toBe('✓ Ship rev2 (vs rev0)');
    expect(await page.locator('.rollout .meta').textContent()).toContain('Scenario: decision (--scenario)');
    expect(await page.locator('.card').count()).toBe(2);
    expect(await page.locator('.card').first().textContent()).toMatch(/adherence [+-]\d+ pts/);
    const sizes = await page.locator('canvas').evaluateAll((canvases) => canvases.map((c) => [(c as HTMLCanvasElement).width, (c as HTMLCanvasElement).height]));
    expect(sizes).toHaveLength(4);
    for (const [w, h] of sizes) expect(w! * h!).toBeGreaterThan(10_000);
    // Something was drawn: the adherence chart is not a blank canvas.
    const [inked] = await inkedPixels(page.locator('canvas').first());
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

describe('capacity report', () => {
  it('a real `load --search` on a 2-slot simulator: conclusions, a row per level and four drawn charts (the Pareto chart among them), offline and CSP-clean', async () => {
    const sim = await startSim({ slots: 2, ttftBaseMs: 40, prefillMsPerInputToken: 0, decodeMsPerToken: 3, outputTokens: 50, jitterMs: 1 });
    try {
      const dir = mkdtempSync(join(tmpdir(), 'pi-capacity-'));
      writeFileSync(join(dir, 'ask.prompty'), '---\nname: ask\nmodel:\n  api: chat\n  configuration: { type: openai, name: gpt-4o-mini }\n---\nuser:\nSay something short.\n');
      const file = resolve(ARTIFACTS, 'capacity.html');
      await run(process.execPath, [resolve('dist/cli.js'), 'load', 'ask.prompty', '--endpoint', sim.url, '--search', 'max-concurrency', '--limit', '8', '--requests', '30', '--slo', 'ttftMs.p90<=100', '--attainment', '0.8', '--report', file], { cwd: dir });
      const { page, problems } = await openOfflinePage(browser, file, 'chartsDrawn');
      expect(await page.locator('.capacity .reasons').textContent()).toContain('Capacity: up to 2 concurrent requests within the SLOs');
      expect(await page.locator('.capacity-table tbody tr').allTextContents()).toEqual([expect.stringMatching(/^concurrency 1/), expect.stringMatching(/^concurrency 2/), expect.stringMatching(/^concurrency 3/), expect.stringMatching(/^concurrency 4/)]);
      const inked = await inkedPixels(page.locator('canvas'));
      // Throughput, latency curve, attainment and the Pareto chart (per-user against total output tok/s);
      // the simulator exports no /metrics gauges, so the server's lines are said missing, not drawn empty.
      expect(inked).toHaveLength(4);
      for (const n of inked) expect(n).toBeGreaterThan(1000);
      expect(await page.locator('canvas[aria-label^="output tokens per second per user"]').count()).toBe(1);
      expect(await page.locator('.server-gap').textContent()).toMatch(/exported no such metrics/);
      expect(problems).toEqual([]);
      await page.screenshot({ path: `${ARTIFACTS}/capacity.png`, fullPage: true });
      await page.close();
    } finally {
      await sim.close();
    }
  }, 120_000);
});
