/**
 * The @vscode/test-electron integration suite (test/vscode/suite.ts), run inside code-server's
 * extension host: a test-only extension starts it once the workbench is up and writes the results.
 */
import { existsSync, mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser } from 'playwright-core';
import { launchChromium, openWorkbench } from './browser';
import { afterAll, describe, expect, it } from 'vitest';
import { buildSuite } from '../vscode/buildSuite';
import type { SuiteResult } from '../vscode/suite';
import { startCodeServer, type RunningCodeServer } from './codeServer';

let server: RunningCodeServer | undefined;
let browser: Browser | undefined;
afterAll(async () => {
  await browser?.close();
  await server?.stop();
});

describe('integration suite inside code-server’s extension host', () => {
  it('every API-level test passes', async () => {
    const { hostDir } = await buildSuite();
    const results = join(mkdtempSync(join(tmpdir(), 'pi-suite-')), 'results.json');
    const files = Object.fromEntries(readdirSync('examples/homes').map((n) => [n, readFileSync(join('examples/homes', n), 'utf8')]));
    server = await startCodeServer({ ...files, 'broken.prompty': readFileSync('test/vscode/broken.prompty', 'utf8') }, {}, { extraExtensions: [hostDir], env: { PI_SUITE_RESULTS: results } });
    browser = await launchChromium();
    await openWorkbench(browser, server.url);
    await expect.poll(() => existsSync(results), { timeout: 120_000, interval: 500 }).toBe(true);
    const report = JSON.parse(readFileSync(results, 'utf8')) as { results?: SuiteResult[]; error?: string };
    expect(report.error).toBeUndefined();
    const failed = report.results!.filter((r) => !r.ok);
    expect(failed.map((f) => `${f.name}: ${f.error}`)).toEqual([]);
    expect(report.results!.length).toBe(11);
  }, 240_000);
});
