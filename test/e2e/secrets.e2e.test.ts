/**
 * A key typed into "Set API Key", sent to a server that echoes it back (in a 401 body, then inside
 * the answer): the run document, the results store and the extension's logs never show it.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { delta, DONE, scriptedServer, type ScriptedServer } from '../fixtures/scriptedServer';
import { openFileByQuickOpen, readRenderedTab, runCommandByPalette } from './browser';
import type { RunningCodeServer } from './codeServer';
import { ARTIFACTS, startWorkbench, type Workbench } from './workbench';

const KEY = 'sk-e2e-7Hq2Lx9Vb4Nm8Rp1Tz6Wc3Yd5';
let server: RunningCodeServer;
let echo: ScriptedServer;
let bench: Workbench | undefined;
let page: Page;

beforeAll(async () => {
  let chats = 0;
  echo = await scriptedServer((request) => {
    const sent = String(request.headers.authorization ?? '');
    // The server-kind probe (GET /props, /version) is not a chat: it gets a 404, and never a key.
    if (request.method !== 'POST') return { status: 404, headers: { 'content-type': 'text/plain' }, steps: [{ write: 'not found' }, { end: true }] };
    if (chats++ === 0) return { status: 401, headers: { 'content-type': 'application/json' }, steps: [{ write: JSON.stringify({ error: { message: `invalid key: you sent ${sent}` } }) }, { end: true }] };
    const half = sent.length >> 1;
    return { steps: [{ write: delta({ content: `Echo: ${sent.slice(0, half)}` }) }, { write: delta({ content: `${sent.slice(half)} done` }, 'stop') }, { write: DONE }] };
  });
  bench = await startWorkbench(
    { 'echo.prompty': '---\nname: echo\nmodel:\n  id: gpt-4o-mini\n---\nuser:\nSay hello.\n' },
    { 'promptInsight.endpoints': [{ name: 'Echo server', provider: 'openai', baseUrl: echo.url }], 'promptInsight.run.endpoint': 'Echo server' },
  );
  ({ server, page } = bench);
}, 180_000);

afterAll(async () => {
  await bench?.close();
  await echo?.close();
});

function filesUnder(dir: string): string[] {
  return readdirSync(dir, { recursive: true, encoding: 'utf8' }).map((name) => join(dir, name)).filter((path) => statSync(path).isFile());
}

describe('API keys in the editor', () => {
  it('a server that echoes the key: not in the run document, the store or the logs', async () => {
    await openFileByQuickOpen(page, 'echo.prompty', `${ARTIFACTS}/open-echo-failed.png`);
    // Token lens shown: the extension is up, its commands are in the palette.
    await page.locator('.codelens-decoration', { hasText: /tokens/ }).first().waitFor({ timeout: 60_000 });
    await runCommandByPalette(page, 'Prompt Insight: Set API Key', 'Set API Key', `${ARTIFACTS}/secret-palette.png`);
    const keyInput = page.locator('.quick-input-widget input[type="password"]');
    await keyInput.waitFor({ timeout: 30_000 });
    await keyInput.fill(KEY);
    await keyInput.press('Enter');
    await page.locator('.notification-toast', { hasText: 'API key stored for Echo server' }).waitFor({ timeout: 30_000 });

    await openFileByQuickOpen(page, 'echo.prompty', `${ARTIFACTS}/open-echo-failed.png`);
    const run = page.locator('.codelens-decoration a', { hasText: '▶ Run' }).first();
    for (const n of [1, 2]) {
      await run.waitFor({ timeout: 60_000 });
      await run.click();
      // Each run opens its own results (rendered, newest last); its text tells which.
      await page.locator('.tab', { hasText: /echo — 1 run at/ }).first().waitFor({ timeout: 30_000 });
      let shown = '';
      await expect.poll(async () => (shown = await readRenderedTab(page, /echo — 1 run at/)), { timeout: 30_000, interval: 1000 }).toMatch(n === 1 ? /HTTP 401.*\[REDACTED\]/s : /Echo: Bearer \[REDACTED\] done/s);
      expect(shown).not.toContain(KEY.slice(0, 12));
      await openFileByQuickOpen(page, 'echo.prompty', `${ARTIFACTS}/open-echo-failed.png`);
    }
    await page.screenshot({ path: `${ARTIFACTS}/secret-echo.png` });
    // The server did receive the key, so its echo was a real threat.
    expect(echo.requests.map((r) => r.headers.authorization)).toContain(`Bearer ${KEY}`);
    for (const probe of echo.requests.filter((r) => r.method !== 'POST')) expect(JSON.stringify(probe.headers)).not.toContain(KEY);
    const userData = join(server.workspace, '..', 'user-data');
    const files = filesUnder(userData);
    const store = files.filter((f) => f.endsWith('runs.jsonl'));
    expect(store).toHaveLength(1);
    expect(readFileSync(store[0]!, 'utf8')).toContain('[REDACTED]');
    const leaking = files.filter((f) => !/\.vscdb/.test(f) && readFileSync(f).includes(KEY.slice(0, 12)));
    expect(leaking).toEqual([]);
  });
});
