/** Restricted Mode (untrusted workspace): token counts work, nothing is sent to any endpoint. */
import { chmodSync, existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { openFileByQuickOpen } from './browser';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSim, type RunningSim } from '../../src/core/sim/simServer';
import type { RunningCodeServer } from './codeServer';
import { ARTIFACTS, startWorkbench, type Workbench } from './workbench';
import { TestRepo } from '../fixtures/gitRepo';

let server: RunningCodeServer;
let sim: RunningSim;
let bench: Workbench | undefined;
let page: Page;

beforeAll(async () => {
  sim = await startSim({ ttftBaseMs: 10, decodeMsPerToken: 1 });
  bench = await startWorkbench(
    { 'homes.prompty': readFileSync('examples/homes/homes.prompty', 'utf8') },
    {
      'security.workspace.trust.enabled': true,
      'security.workspace.trust.startupPrompt': 'never',
      'security.workspace.trust.banner': 'always',
      // User settings (not workspace settings): honoured even in Restricted Mode, so only trust stops the send.
      'promptInsight.endpoints': [{ name: 'E2E simulator', provider: 'openai', baseUrl: sim.url }],
      'promptInsight.run.endpoint': 'E2E simulator',
    },
  );
  ({ server, page } = bench);
}, 180_000);

afterAll(async () => {
  await bench?.close();
  await sim?.close();
});

describe('Restricted Mode', () => {
  it('counts tokens but refuses to run, and the endpoint receives nothing', async () => {
    await openFileByQuickOpen(page, 'homes.prompty', `${ARTIFACTS}/open-homes-failed.png`);
    const lens = page.locator('.codelens-decoration').first();
    await expect.poll(async () => (await lens.textContent()) ?? '', { timeout: 60_000 }).toMatch(/\d+ tokens · 2 messages/);
    await page.locator('.codelens-decoration a', { hasText: '▶ Run' }).first().click();
    await page.locator('.notification-toast', { hasText: 'does not send prompts in Restricted Mode' }).waitFor({ timeout: 30_000 });
    await page.screenshot({ path: `${ARTIFACTS}/restricted-mode.png` });
    expect(sim.served()).toBe(0);
  });

  it('Compare revisions runs no git at all: a repository whose config runs a program on every log stays inert', async () => {
    const repo = new TestRepo(server.workspace);
    repo.git('init', '-q', '-b', 'main');
    repo.commit('A', {});
    const marker = join(server.workspace, 'gpg.ran');
    const script = join(server.workspace, 'gpg.sh');
    writeFileSync(script, `#!/bin/sh\ntouch '${marker}'\n`);
    chmodSync(script, 0o755);
    repo.git('config', 'log.showSignature', 'true');
    repo.git('config', 'gpg.program', script);
    await page.locator('.codelens-decoration a', { hasText: 'Compare revisions' }).first().click();
    await page.locator('.notification-toast', { hasText: 'compares revisions only in a trusted workspace' }).waitFor({ timeout: 30_000 });
    expect(existsSync(marker)).toBe(false);
  });
});
