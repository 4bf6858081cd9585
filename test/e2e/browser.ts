/** Debian's Chromium driven by playwright-core (ENVIRONMENT.md), and the workbench opened in it. */
import { chromium, type Browser, type FrameLocator, type Locator, type Page } from 'playwright-core';

export function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: '/usr/bin/chromium',
    args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run', '--disable-quic'],
  });
}

/**
 * Opens a self-contained page (a report) in a new tab and waits until the renderer says it is done
 * (`data-render-ms`, or `data-charts-drawn`). `problems` collects console errors, page errors and any
 * request leaving the file: a report must work offline and within its CSP.
 */
export async function openOfflinePage(browser: Browser, file: string, ready: 'renderMs' | 'chartsDrawn' = 'renderMs'): Promise<{ page: Page; problems: string[] }> {
  const page = await browser.newPage({ viewport: { width: 1200, height: 1400 } });
  const problems: string[] = [];
  page.on('console', (m) => m.type() === 'error' && problems.push(m.text()));
  page.on('pageerror', (e) => problems.push(e.message));
  page.on('request', (r) => !r.url().startsWith('file:') && !r.url().startsWith('data:') && problems.push(`network: ${r.url()}`));
  await page.goto(`file://${file}`);
  await page.waitForFunction((key) => document.body.dataset[key] !== undefined, ready);
  return { page, problems };
}

/** Inked (non-transparent) pixels of each canvas matched: a drawn chart, not a blank one. */
export function inkedPixels(canvases: Locator): Promise<number[]> {
  return canvases.evaluateAll((elements) => elements.map((c) => {
    const canvas = c as HTMLCanvasElement;
    const data = canvas.getContext('2d')!.getImageData(0, 0, canvas.width, canvas.height).data;
    let n = 0;
    for (let i = 3; i < data.length; i += 4) if (data[i]! > 0) n++;
    return n;
  }));
}

/** Opens code-server's workbench and resolves once it is on screen. */
export async function openWorkbench(browser: Browser, url: string): Promise<Page> {
  const page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
  await page.goto(url);
  await page.locator('.monaco-workbench').waitFor({ timeout: 90_000 });
  return page;
}

/**
 * Opens a workspace file the way a user does: Quick Open, type the name, arrow down to the file
 * once the list has settled, Enter. (Clicking a row is not safe: the list recycles its row elements as file
 * search results arrive, and a click measured on "homes.prompty" was seen to open
 * "homes.prompt.yml".) Tries three times; on the last failure it saves a screenshot and says
 * which rows and tabs were shown, so a flaky CI run leaves evidence.
 */
export async function openFileByQuickOpen(page: Page, name: string, screenshotPath: string): Promise<void> {
  const tab = page.locator(`.tab.active[aria-label*="${name}"]`);
  const rows = page.locator('.quick-input-list .monaco-list-row');
  const labels = page.locator('.quick-input-list .monaco-list-row .label-name');
  const focusedLabel = page.locator('.quick-input-list .monaco-list-row.focused .label-name');
  for (let attempt = 1; ; attempt++) {
    await page.keyboard.press('Escape');
    await page.keyboard.press('Control+P');
    const input = page.locator('.quick-input-widget input');
    await input.waitFor();
    await input.fill('');
    await input.pressSequentially(name, { delay: 10 });
    try {
      // Wait until the list reads the same twice, 300 ms apart (file search has settled), then move
      // the focus down to the row named exactly `name` (recently opened files come first).
      let previous = '';
      for (let polls = 0; polls < 50; polls++) {
        await page.waitForTimeout(300);
        const now = JSON.stringify(await rows.allTextContents());
        if (now === previous && (await labels.allTextContents()).includes(name)) break;
        previous = now;
      }
      for (let moves = 0; (await focusedLabel.textContent({ timeout: 1_000 }).catch(() => '')) !== name; moves++) {
        if (moves >= 20) throw new Error(`no row named ${name}`);
        await page.keyboard.press('ArrowDown');
      }
      await page.keyboard.press('Enter');
      await tab.waitFor({ timeout: 15_000 });
      return;
    } catch (error) {
      if (attempt < 3) continue;
      await page.screenshot({ path: screenshotPath }).catch(() => undefined);
      const shown = await rows.allTextContents().catch(() => []);
      const tabs = await page.locator('.tab').evaluateAll((all) => all.map((t) => `${t.getAttribute('aria-label')}${t.classList.contains('active') ? ' (active)' : ''}`)).catch(() => []);
      throw new Error(`could not open ${name} by Quick Open (3 tries; rows: ${JSON.stringify(shown)}; tabs: ${JSON.stringify(tabs)}; screenshot ${screenshotPath}): ${String(error)}`);
    }
  }
}

/** Waits for the quick input titled `title` and accepts what it offers first (the default). */
export async function acceptDefault(page: Page, title: string): Promise<void> {
  await page.locator('.quick-input-widget .quick-input-title', { hasText: title }).waitFor({ timeout: 90_000 });
  await page.locator('.quick-input-widget input').press('Enter');
  await page.locator('.quick-input-widget .quick-input-title', { hasText: title }).waitFor({ state: 'hidden', timeout: 30_000 });
}

/** Runs a command from the Command Palette (F1), picking the row whose label contains `label`. */
export async function runCommandByPalette(page: Page, title: string, label: string, screenshotPath: string): Promise<void> {
  await page.keyboard.press('F1');
  const input = page.locator('.quick-input-widget input');
  await input.waitFor();
  await input.pressSequentially(title, { delay: 10 });
  const row = page.locator('.quick-input-list .monaco-list-row', { hasText: label }).first();
  await row.waitFor({ timeout: 30_000 }).catch(async (error: unknown) => {
    await page.screenshot({ path: screenshotPath }).catch(() => undefined);
    throw error;
  });
  await row.click();
}

/**
 * The whole text of the newest document whose tab matches `tab`, paged through from its first line to its
 * last (the editor renders only the lines in view, in no fixed order); then the first editor group
 * has the focus again, so that Quick Open keeps opening files there.
 */
/**
 * What the newest tab whose title matches renders (the Markdown preview, a webview; run results, decisions):
 * the whole text, folded answers included; the focus goes back to the first editor group's tab.
 */
export async function readRenderedTab(page: Page, tab: RegExp): Promise<string> {
  await page.locator('.tab', { hasText: tab }).last().click();
  const body = renderedFrame(page).locator('body');
  const text = ((await body.textContent({ timeout: 10_000 }).catch(() => '')) ?? '').replace(/\u00a0/g, ' ');
  await focusFirstGroup(page);
  return text;
}

/** After a webview had the focus: keys pressed would go to it, not the workbench, so the first group is focused by a click. */
export async function focusFirstGroup(page: Page): Promise<void> {
  await page.locator('.editor-group-container').first().locator('.tab.active').click();
}

/** The Markdown preview in view (its webview's inner frame). */
export function renderedFrame(page: Page): FrameLocator {
  return page.frameLocator('iframe.webview.ready >> visible=true').last().frameLocator('iframe#active-frame');
}

export async function readWholeEditor(page: Page, tab: RegExp, pages = 40): Promise<string> {
  // The newest document whose tab matches (an earlier run's may still be open beside it).
  await page.locator('.tab', { hasText: tab }).last().click();
  const active = page.locator('.editor-group-container.active .view-lines').first();
  await active.click();
  const read = async () => ((await active.textContent().catch(() => '')) ?? '').replace(/\u00a0/g, ' ');
  await page.keyboard.press('Control+Home');
  // Let the editor render the top before the first read (a read that comes first sees the old scroll position).
  await page.waitForTimeout(150);
  let seen = '';
  for (let i = 0; i < pages; i++) {
    seen += await read();
    await page.keyboard.press('PageDown');
    await page.waitForTimeout(60);
  }
  seen += await read();
  await page.keyboard.press('Control+1');
  return seen;
}
