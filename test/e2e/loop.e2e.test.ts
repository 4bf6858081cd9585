/**
 * The whole loop through the UI, in a row, on the demo workspace (as `npm run demo` makes it: the homes
 * assistant with its two revisions, the simulator as endpoint and judge, the week of production traces
 * ending this hour): the slow night is on the Production page → *Sample into tests…* from the page,
 * prefilled from the anomaly, previews and writes redacted cases → the fix is compared with those cases
 * (*Compare with these cases*: the panel judges with the head's tests) → *Decide gray release* on the page
 * promotes B. The screenshots are docs/loop.md's pictures. One workbench session; the steps depend on
 * each other, as they do for a person.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { FrameLocator, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { parseScenario } from '../../src/core/sim/scenario';
import { startSim, type RunningSim } from '../../src/core/sim/simServer';
import { contentLabels } from '../../src/core/telemetry/prodVersions';
import { FAKE_KEY } from '../fixtures/demoTraces';
import { HOMES_WITH_RULE } from '../fixtures/homesRepo';
import { acceptDefault, openFileByQuickOpen, renderedFrame, runCommandByPalette } from './browser';
import { demoFiles, demoSettings, prepareDemoRepo } from './demoWorkspace';
import { ARTIFACTS, startWorkbench, type Workbench } from './workbench';

/** The fix the prompt engineer makes after looking at the sampled requests: one more instruction. */
const FIX = HOMES_WITH_RULE.replace('user:', 'Keep each listing to one line.\n\nuser:');

let sim: RunningSim;
let bench: Workbench | undefined;
let page: Page;
let workspace: string;
let b = '';
let casesWritten = 0;
let existingCases = 0;

/** The webview page (inside VS Code's two iframes) that holds `selector`: the Production page, the compare panel, a preview. */
async function webviewWith(selector: string, timeout = 120_000): Promise<FrameLocator> {
  let found: FrameLocator | undefined;
  await expect.poll(async () => {
    const count = await page.locator('iframe.webview.ready').count();
    for (let i = 0; i < count && !found; i++) {
      const frame = page.frameLocator(`iframe.webview.ready >> nth=${i}`).frameLocator('iframe#active-frame');
      if ((await frame.locator(selector).count().catch(() => 0)) > 0) found = frame;
    }
    return found !== undefined;
  }, { timeout, interval: 500 }).toBe(true);
  return found!;
}

/** A picture for docs/loop.md: the active editor group alone, then the layout as it was. */
async function picture(name: string): Promise<void> {
  const toggle = () => runCommandByPalette(page, 'View: Toggle Maximize Editor Group', 'Toggle Maximize Editor Group', `${ARTIFACTS}/loop-maximize-failed.png`);
  await toggle();
  await page.locator('.quick-input-widget').waitFor({ state: 'hidden', timeout: 10_000 });
  await expect.poll(async () => page.locator('.part.editor .editor-group-container:visible').count(), { timeout: 10_000 }).toBe(1);
  await page.screenshot({ path: `${ARTIFACTS}/${name}.png` });
  await toggle();
}

async function failing<T>(step: Promise<T>, name: string): Promise<T> {
  return step.catch(async (error: unknown) => {
    await page.screenshot({ path: `${ARTIFACTS}/loop-${name}-failed.png` }).catch(() => undefined);
    throw error;
  });
}

beforeAll(async () => {
  const files = demoFiles();
  sim = await startSim({ scenario: parseScenario(files['homes.sim.yaml']!) });
  bench = await startWorkbench(files, demoSettings(sim.url), {
    prepare: (dir) => {
      workspace = dir;
      prepareDemoRepo(dir, files);
    },
  });
  page = bench.page;
  b = (await contentLabels('homes.prompty', HOMES_WITH_RULE)).get('homes-assistant')!;
}, 180_000);

afterAll(async () => {
  await bench?.close();
  await sim?.close();
});

describe('the loop on the demo workspace', () => {
  it('1. the slow night is on the Production page, in words, and can be selected', async () => {
    await openFileByQuickOpen(page, 'homes.prompty', `${ARTIFACTS}/loop-open-failed.png`);
    await runCommandByPalette(page, 'Prompt Insight: Show Production', 'Show Production', `${ARTIFACTS}/loop-palette-failed.png`);
    const panel = await failing(webviewWith('#production-window'), 'production');
    await failing(expect.poll(async () => Number((await panel.locator('body').getAttribute('data-charts-drawn', { timeout: 5_000 }).catch(() => '0')) ?? 0), { timeout: 120_000 }).toBeGreaterThanOrEqual(1), 'production');
    // By default the page covers the last version change (B's gray release, two days ago): the night is in it.
    expect(await panel.locator('#production-window').inputValue()).toBe('since-change');
    const night = panel.locator('.anomaly-list li', { hasText: 'TTFT p99' }).first();
    expect(await night.innerText()).toMatch(/ UTC: TTFT p99 .+ over the usual .+, while version .+ was live/);
    await night.click();
    expect(await night.getAttribute('aria-pressed')).toBe('true');
    await picture('loop-1-anomaly');
  }, 150_000);

  it('2. Sample into tests… from the page: prefilled from the anomaly, previewed, then written, nothing before the choice', async () => {
    const before = readFileSync(join(workspace, 'homes.tests.yaml'), 'utf8');
    existingCases = (parse(before) as { tests: unknown[] }).tests.length;
    await (await webviewWith('#production-window')).locator('button', { hasText: 'Sample into tests…' }).click();
    for (const title of ['Sample requests of which version', 'Which requests: the time they ended', 'Which requests become cases', 'How many cases at most']) await failing(acceptDefault(page, title), 'sample');
    const write = page.locator('.notification-toast .monaco-button', { hasText: /^Write \d+ cases? to homes\.tests\.yaml$/ });
    await failing(write.waitFor({ timeout: 90_000 }), 'sample-preview');
    await page.locator('.tab', { hasText: /Sample preview — homes/ }).waitFor({ timeout: 30_000 });
    await page.locator('.tab', { hasText: /Sample preview — homes/ }).click();
    await picture('loop-2-sample');
    expect(readFileSync(join(workspace, 'homes.tests.yaml'), 'utf8')).toBe(before);
    casesWritten = Number(/Write (\d+) case/.exec((await write.textContent()) ?? '')![1]);
    expect(casesWritten).toBeGreaterThan(0);
    await write.click();
    await page.locator('.notification-toast', { hasText: `Added ${casesWritten} case` }).waitFor({ timeout: 30_000 });
    const written = readFileSync(join(workspace, 'homes.tests.yaml'), 'utf8');
    expect(written.startsWith(before)).toBe(true);
    expect(written.slice(before.length).match(/source: production/g)).toHaveLength(casesWritten);
    expect(written).not.toContain(FAKE_KEY);
  }, 200_000);

  it("3. the fix is compared with those cases: Compare with these cases opens the panel judged with the head's tests", async () => {
    // The prompt engineer edits the prompt, then takes the notification's offer.
    writeFileSync(join(workspace, 'homes.prompty'), FIX);
    await page.locator('.notification-toast .monaco-button', { hasText: 'Compare with these cases' }).click();
    const panel = await failing(webviewWith('#judge-with'), 'compare-open');
    await failing(panel.locator('.revisions li').first().waitFor({ timeout: 60_000 }), 'compare-open');
    expect(await panel.locator('#judge-with').inputValue()).toBe('head');
    // Working copy against HEAD, preselected.
    expect(await panel.locator('.revisions input:checked').count()).toBe(2);
    expect(await panel.locator('.revisions li', { has: panel.locator('input:checked') }).first().innerText()).toMatch(/working copy/);
    await panel.locator('#runs').fill('3');
    await panel.locator('button', { hasText: 'Compare selected' }).click();
    const decision = panel.locator('.rollout .decision');
    await failing(decision.waitFor({ timeout: 180_000 }), 'compare');
    expect(await panel.locator('.judged-with').textContent()).toBe(`Judged with the head's tests: ${casesWritten} case${casesWritten === 1 ? '' : 's'} added`);
    // Three runs a case cannot bound E2E latency p90 (about 29 runs would): no ship is said on them. A hold
    // would need the head's adherence broken or significantly worse on six runs.
    const said = (await decision.textContent()) ?? '';
    expect(said).toMatch(/^(\? Insufficient evidence|✗ Hold) for working copy \(vs [0-9a-f]{7}\)$/);
    if (said.startsWith('?')) expect(await panel.locator('.rollout .reasons').textContent()).toContain('SLO E2E latency p90 ≤ 30 s not established for working copy: 0 of 6 runs above 30.00 s');
    expect(await panel.locator('.policy-changes').textContent()).toBe("test cases: 1 added — applied: judged with the head's tests".replace('1 added', `${casesWritten} added`));
    expect(await panel.locator('.matrix tbody th').count()).toBe(existingCases + casesWritten);
    await picture('loop-3-compare');
  }, 240_000);

  it('4. Decide gray release on the page: B, in gray release over the window, is promoted', async () => {
    await page.locator('.tab', { hasText: /^Production: / }).first().click();
    const panel = await webviewWith('#production-window');
    // A window picked anew clears the selected anomaly: the decision is over the window, not the night.
    await panel.locator('#production-window').selectOption('7d');
    await failing(expect.poll(async () => (await panel.locator('.production-source h3').first().innerText({ timeout: 5_000 }).catch(() => '')) ?? '', { timeout: 120_000 }).toMatch(/ · last 7d: /), 'window');
    await panel.locator('button', { hasText: 'Decide gray release' }).click();
    for (const title of ['Head: the version being rolled out', 'Base: the version', 'Judge with', 'Which requests: the time they ended']) await failing(acceptDefault(page, title), 'decide');
    // No upstream branch in this repository: the branch being released into is asked, `main` offered.
    await failing(acceptDefault(page, 'The branch being released into'), 'decide-branch');
    const verdict = page.locator('.notification-toast', { hasText: /Gray release of homes-assistant: / });
    await failing(verdict.waitFor({ timeout: 180_000 }), 'decide-verdict');
    expect(await verdict.innerText()).toContain(`PROMOTE ${b}`);
    await page.locator('.tab', { hasText: /Gray release — homes/ }).last().click();
    await renderedFrame(page).locator('strong', { hasText: `PROMOTE ${b}` }).waitFor({ timeout: 30_000 });
    await picture('loop-4-decide');
  }, 300_000);
});
