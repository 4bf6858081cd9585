/** Debian's Chromium driven by playwright-core (ENVIRONMENT.md), and the workbench opened in it. */
import { chromium, type Browser, type Page } from 'playwright-core';

export function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: '/usr/bin/chromium',
    args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run', '--disable-quic'],
  });
}

/** Opens code-server's workbench and resolves once it is on screen. */
export async function openWorkbench(browser: Browser, url: string): Promise<Page> {
  const page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
  await page.goto(url);
  await page.locator('.monaco-workbench').waitFor({ timeout: 90_000 });
  return page;
}
