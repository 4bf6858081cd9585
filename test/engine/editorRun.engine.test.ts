/**
 * The extension's Run ×N in a real VS Code (code-server, Chromium) against a real engine
 * (llama-server): the run document says cold or warm, where TTFT went by the server's own timings,
 * and what the server's metrics showed.
 */
import { mkdirSync } from 'node:fs';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium, openFileByQuickOpen, openWorkbench } from '../e2e/browser';
import { startCodeServer, type RunningCodeServer } from '../e2e/codeServer';
import { startLlamaServer, type LlamaServer } from './llamaServer';

const ARTIFACTS = 'test-artifacts/e2e';
let llama: LlamaServer;
let server: RunningCodeServer;
let browser: Browser;
let page: Page;

beforeAll(async () => {
  mkdirSync(ARTIFACTS, { recursive: true });
  llama = await startLlamaServer();
  server = await startCodeServer(
    { 'homes.prompty': `---\nname: homes\nmodel:\n  id: model.gguf\n  options:\n    max_tokens: 16\n---\nsystem:\n${'A home is a single-family house with its own land. '.repeat(20)}\nuser:\nFind homes nearby.\n` },
    { 'promptInsight.endpoints': [{ name: 'llama', provider: 'openai', baseUrl: `${llama.url}/v1` }], 'promptInsight.run.endpoint': 'llama', 'promptInsight.run.repeats': 3 },
  );
  browser = await launchChromium();
  page = await openWorkbench(browser, server.url);
}, 240_000);

afterAll(async () => {
  await browser?.close();
  await server?.stop();
  await llama?.stop();
});

describe('Run ×N in the editor against llama-server', () => {
  it('the run document shows cold runs, the phases and the server during the runs', async () => {
    await openFileByQuickOpen(page, 'homes.prompty', `${ARTIFACTS}/open-homes-failed.png`);
    const runN = page.locator('.codelens-decoration a', { hasText: 'Run ×3' }).first();
    await runN.waitFor({ timeout: 90_000 });
    await runN.click();
    const doc = page.locator('.editor-group-container .view-lines', { hasText: 'Metrics' });
    const text = async () => ((await doc.first().textContent().catch(() => '')) ?? '').replace(/\u00a0/g, ' ');
    await expect.poll(text, { timeout: 90_000 }).toMatch(/Prompt cache: 3 cold, 0 unknown · server: llama\.cpp/);
    await page.screenshot({ path: `${ARTIFACTS}/run-llama.png` });
    // The editor renders only the lines in view: page through the document and keep what was shown.
    await doc.first().click();
    await page.keyboard.press('Control+Home');
    let seen = '';
    for (let i = 0; i < 30 && !seen.includes('The server during the runs'); i++) {
      seen += await text();
      await page.keyboard.press('PageDown');
      await page.waitForTimeout(100);
    }
    seen += await text();
    expect(seen).toMatch(/Where TTFT went[\s\S]*queue \+ transfer[\s\S]*prefill/);
    expect(seen).toContain('The server during the runs');
  });
});
