/**
 * The comparison report (and so the panel's renderer) shows each revision's hallucination rate with its
 * Wilson interval and the RAG chain of a prompt with a retrieval step (issue 25), in headless Chromium;
 * a host message with a malformed hallucination field is left out, not drawn or thrown on.
 */
import { readFileSync, mkdirSync, writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { renderReportHtml } from '../../src/core/compare/report';
import { wilsonInterval } from '../../src/core/stats/proportions';
import { chainSummary } from '../../src/core/metrics/summary';
import type { RunRecord } from '../../src/core/metrics/runRecord';
import { syntheticComparison } from '../fixtures/syntheticComparison';
import { launchChromium } from './browser';

const ARTIFACTS = 'test-artifacts/e2e';
let browser: Browser;
beforeAll(async () => {
  mkdirSync(ARTIFACTS, { recursive: true });
  browser = await launchChromium();
});
afterAll(async () => browser?.close());

const run = (retrievalMs: number, ttftMs: number, e2eMs: number) => ({ ok: true, ttftMs, e2eMs, retrievalMs, retrievedPassages: 3 }) as RunRecord;

async function shown(comparison: ReturnType<typeof syntheticComparison>, name: string): Promise<{ items: string[]; problems: string[] }> {
  const file = resolve(ARTIFACTS, name);
  writeFileSync(file, renderReportHtml(comparison, { script: readFileSync('dist/webview.js', 'utf8'), css: readFileSync('media/panel.css', 'utf8') }));
  const page = await browser.newPage();
  const problems: string[] = [];
  page.on('pageerror', (e) => problems.push(e.message));
  page.on('console', (m) => m.type() === 'error' && problems.push(m.text()));
  await page.goto(`file://${file}`);
  await page.waitForFunction(() => document.body.dataset.renderMs !== undefined);
  const items = await page.locator('.knowledge li').allTextContents();
  await page.close();
  return { items, problems };
}

describe('knowledge figures in the comparison report', () => {
  it('shows the hallucination rate with its interval and the RAG chain per revision', async () => {
    const comparison = syntheticComparison(2, 20);
    const [base, head] = comparison.revisions;
    base!.hallucination = { hallucinated: 0, judged: 20, undetermined: 0, rate: 0, ci95: wilsonInterval(0, 20) };
    head!.hallucination = { hallucinated: 20, judged: 20, undetermined: 2, rate: 1, ci95: wilsonInterval(20, 20) };
    head!.chain = chainSummary([run(200, 300, 1000), run(220, 320, 1100), run(180, 280, 900)])!;
    const { items, problems } = await shown(comparison, 'knowledge-report.html');
    expect(problems).toEqual([]);
    expect(items).toEqual([
      `${base!.label}: hallucination 0/20 runs 0.0% [0.0%–16.1%]`,
      `${head!.label}: hallucination 20/20 runs 100.0% [83.9%–100.0%] (+2 undetermined)`,
      `${head!.label}: RAG chain p50 1.20 s = retrieval 200 ms → TTFT 300 ms → decode 700 ms (n 3)`,
    ]);
  });

  it('compare --capacity: the capacity lines base against head, as the CLI words them; malformed lines left out', async () => {
    const lines = ['capacity under SLO: base 4 → head 2 (resolved both)', '  base A: 1: 100% ✓, 2: 100% ✓, 4: 100% ✓', '  head B: 1: 100% ✓, 2: 100% ✓, 3: 44% ✗, 4: 0% ✗'];
    const file = resolve(ARTIFACTS, 'capacity-compare.html');
    const assets = { script: readFileSync('dist/webview.js', 'utf8'), css: readFileSync('media/panel.css', 'utf8') };
    const drawn = async (capacityLines: unknown[]) => {
      writeFileSync(file, renderReportHtml(syntheticComparison(2, 20), assets, { capacityLines: capacityLines as string[] }));
      const page = await browser.newPage();
      const problems: string[] = [];
      page.on('pageerror', (e) => problems.push(e.message));
      await page.goto(`file://${file}`);
      await page.waitForFunction(() => document.body.dataset.renderMs !== undefined);
      const items = await page.locator('.capacity-compare li').allTextContents();
      await page.close();
      return { items, problems };
    };
    expect(await drawn(lines)).toEqual({ items: lines.map((l) => l.trim()), problems: [] });
    expect(await drawn(['fine', 7])).toEqual({ items: [], problems: [] });
  });

  it('no section when no revision has either; a malformed field is left out', async () => {
    expect((await shown(syntheticComparison(2, 20), 'no-knowledge.html')).items).toEqual([]);
    const comparison = syntheticComparison(2, 20);
    (comparison.revisions[1] as { hallucination?: unknown }).hallucination = { hallucinated: 'many' };
    const { items, problems } = await shown(comparison, 'bad-knowledge.html');
    expect(items).toEqual([]);
    expect(problems).toEqual([]);
  });
});
