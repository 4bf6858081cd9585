/**
 * The extension's Run ×N in a real VS Code (code-server, Chromium) against a real engine
 * (llama-server): the run document says cold or warm, where TTFT went by the server's own timings,
 * and what the server's metrics showed.
 */
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openFileByQuickOpen, readRenderedTab } from '../e2e/browser';
import { ARTIFACTS, startWorkbench, type Workbench } from '../e2e/workbench';
import { startLlamaServer, type LlamaServer } from './llamaServer';

let llama: LlamaServer;
let bench: Workbench | undefined;
let page: Page;

beforeAll(async () => {
  llama = await startLlamaServer();
  bench = await startWorkbench(
    { 'homes.prompty': `---\nname: homes\nmodel:\n  id: model.gguf\n  options:\n    max_tokens: 16\n---\nsystem:\n${'A home is a single-family house with its own land. '.repeat(20)}\nuser:\nFind homes nearby.\n` },
    { 'promptInsight.endpoints': [{ name: 'llama', provider: 'openai', baseUrl: `${llama.url}/v1` }], 'promptInsight.run.endpoint': 'llama', 'promptInsight.run.repeats': 3 },
  );
  page = bench.page;
}, 240_000);

afterAll(async () => {
  await bench?.close();
  await llama?.stop();
});

describe('Run ×N in the editor against llama-server', () => {
  it('the run document shows cold runs, the phases and the server during the runs', async () => {
    await openFileByQuickOpen(page, 'homes.prompty', `${ARTIFACTS}/open-homes-failed.png`);
    const runN = page.locator('.codelens-decoration a', { hasText: 'Run ×3' }).first();
    await runN.waitFor({ timeout: 90_000 });
    await runN.click();
    await page.locator('.tab', { hasText: /homes — 3 runs at \d\d:\d\d:\d\d/ }).waitFor({ timeout: 60_000 });
    // The runs finish, then the figures are added at the end and the results are rendered: read them until the figures are there.
    let seen = '';
    await expect.poll(async () => (seen = await readRenderedTab(page, /homes — 3 runs at/)), { timeout: 150_000, interval: 3000 }).toMatch(/Prompt cache: 3 runs processed the whole prompt afresh\.\s+Server: llama\.cpp\./);
    await page.screenshot({ path: `${ARTIFACTS}/run-llama.png` });
    expect(seen).toMatch(/Where TTFT went[\s\S]*queue \+ transfer[\s\S]*prefill/);
    expect(seen).toContain('The server during the runs');
  }, 300_000);
});
