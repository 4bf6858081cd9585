/**
 * Render bar: the comparison of 50 revisions × 100 runs drawn by the panel's renderer in headless
 * Chromium (Debian's), timed inside the page from data to drawn charts, and page load to drawn.
 */
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { launchChromium } from '../test/e2e/browser';
import { renderReportHtml } from '../src/core/compare/report';
import { syntheticComparison } from '../test/fixtures/syntheticComparison';
import { fmt, median, table } from './stats';

const CHROMIUM = '/usr/bin/chromium';

export async function benchRender(): Promise<string> {
  if (!existsSync(CHROMIUM)) return '## Panel render\n\nskipped: /usr/bin/chromium is not installed (test/e2e/install-tools.sh installs it).';
  const assets = { script: readFileSync('dist/webview.js', 'utf8'), css: readFileSync('media/panel.css', 'utf8') };
  const dir = mkdtempSync(join(tmpdir(), 'pi-render-'));
  const browser = await launchChromium();
  const rows: (string | number)[][] = [];
  try {
    for (const [revisions, runs] of [[2, 100], [50, 100]] as const) {
      const file = join(dir, `report-${revisions}.html`);
      writeFileSync(file, renderReportHtml(syntheticComparison(revisions, runs), assets));
      const renders: number[] = [];
      const loads: number[] = [];
      for (let i = 0; i < 7; i++) {
        const page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
        const started = Date.now();
        await page.goto(`file://${file}`);
        await page.waitForFunction(() => document.body.dataset.renderMs !== undefined);
        loads.push(Date.now() - started);
        renders.push(Number(await page.evaluate(() => document.body.dataset.renderMs)));
        await page.close();
      }
      rows.push([`${revisions} revisions × ${runs} runs (${revisions * 3 - 3} verdicts)`, `${fmt(median(renders))} ms`, `${fmt(Math.max(...renders))} ms`, `${fmt(median(loads), 0)} ms`]);
    }
  } finally {
    await browser.close();
  }
  return ['## Panel render (headless Chromium, median of 7 page loads)', '', table(['comparison', 'render (data → charts drawn)', 'worst render', 'page load → drawn'], rows), '', 'Bar: 50 revisions × 100 runs render in < 500 ms.'].join('\n');
}
