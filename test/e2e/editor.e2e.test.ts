import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { focusFirstGroup, openFileByQuickOpen, readRenderedTab, runCommandByPalette, renderedFrame } from './browser';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseScenario } from '../../src/core/sim/scenario';
import { startSim, type RunningSim } from '../../src/core/sim/simServer';
import { TestRepo } from '../fixtures/gitRepo';
import { HOMES_WITHOUT_RULE, HOMES_WITH_RULE } from '../fixtures/homesRepo';
import { checkReadmeScreenshot } from './readmeScreenshot';
import { ARTIFACTS, startWorkbench, type Workbench } from './workbench';

const example = (name: string) => readFileSync(`examples/homes/${name}`, 'utf8');

let sim: RunningSim;
let bench: Workbench | undefined;
let page: Page;

beforeAll(async () => {
  sim = await startSim({ ttftBaseMs: 120, decodeMsPerToken: 8, scenario: parseScenario(example('homes.sim.yaml')) });
  bench = await startWorkbench({
    'homes.prompty': example('homes.prompty'),
    'homes.prompt.yml': example('homes.prompt.yml'),
    'homes.prompt': example('homes.prompt'),
    'homes.prompt.md': example('homes.prompt.md'),
    'homes.prompt.txt': example('homes.prompt.txt'),
    'broken.prompty': '---\nname: broken\nmodel: [oops\n---\nsytem:\nHello\n',
  }, {
    'promptInsight.endpoints': [{ name: 'E2E simulator', provider: 'openai', baseUrl: sim.url }],
    'promptInsight.run.endpoint': 'E2E simulator',
    'promptInsight.run.concurrency': 4,
  }, {
    // The workspace is a git repository with the homes case's two revisions: A without the rule, B with it.
    prepare: (workspace) => {
      const repo = new TestRepo(workspace);
      repo.git('init', '-q', '-b', 'main');
      repo.commit('Homes assistant: first version', { 'homes.prompty': HOMES_WITHOUT_RULE, 'homes.tests.yaml': example('homes.tests.yaml') });
      repo.commit('Define "homes" as single-family houses', { 'homes.prompty': HOMES_WITH_RULE });
    },
  });
  page = bench.page;
}, 180_000);

afterAll(async () => {
  await bench?.close();
  await sim?.close();
});

const openFile = (name: string) => openFileByQuickOpen(page, name, `${ARTIFACTS}/open-${name}-failed.png`);

describe('Prompt Insight in a real VS Code (code-server 1.139 + Chromium)', () => {
  it.each(['homes.prompty', 'homes.prompt.yml', 'homes.prompt', 'homes.prompt.md', 'homes.prompt.txt'])('%s shows the token CodeLens', async (name) => {
    await openFile(name);
    const lens = page.locator('.codelens-decoration').first();
    await expect.poll(async () => (await lens.textContent({ timeout: 60_000 })) ?? '', { timeout: 60_000 }).toMatch(/\d+ tokens · \d messages?.*▶ Run.*Compare revisions/);
    await page.screenshot({ path: `${ARTIFACTS}/codelens-${name}.png` });
  });

  it('hover on a message shows its tokens and the encoding; the status bar shows the prompt total', async () => {
    await openFile('homes.prompty');
    const line = page.locator('.view-line', { hasText: 'You are a real-estate assistant' }).first();
    await line.click({ position: { x: 40, y: 5 } });
    await page.keyboard.press('Control+K');
    await page.keyboard.press('Control+I');
    const hover = page.locator('.monaco-hover:visible', { hasText: 'Prompt Insight' });
    await hover.waitFor({ timeout: 30_000 });
    const text = (await hover.textContent()) ?? '';
    expect(text).toMatch(/this message \(system\)\s*\d+/);
    expect(text).toContain('o200k_base · exact for gpt-4o-mini');
    await page.screenshot({ path: `${ARTIFACTS}/hover.png` });
    const status = page.locator('.statusbar-item', { hasText: /tokens/ }).first();
    await expect.poll(async () => (await status.textContent()) ?? '', { timeout: 30_000 }).toMatch(/\d+ tokens/);
  });

  it('a broken file gets diagnostics at the faulty lines', async () => {
    await openFile('broken.prompty');
    await page.locator('.squiggly-error, .squiggly-warning').first().waitFor({ timeout: 30_000 });
    await page.keyboard.press('Control+Shift+M');
    const problems = page.locator('.markers-panel .monaco-list-row');
    await expect.poll(async () => (await problems.allTextContents()).join('\n'), { timeout: 30_000 }).toMatch(/YAML|unknown role|sytem/i);
    await page.screenshot({ path: `${ARTIFACTS}/diagnostics.png` });
  });

  it('"▶ Run" streams the answer into rendered, read-only results beside the prompt and the TTFT CodeLens appears', async () => {
    await openFile('homes.prompty');
    await page.locator('.codelens-decoration a', { hasText: '▶ Run' }).first().click();
    await page.locator('.tab', { hasText: /homes-assistant — 1 run at \d\d:\d\d:\d\d/ }).waitFor({ timeout: 30_000 });
    // The results are rendered by the Markdown preview: headings and tables, not their Markdown source.
    let shown = '';
    const hasTopAndEnd = (text: string) => text.includes('homes-assistant → E2E simulator') && text.includes('Metrics — SIMULATED endpoint');
    await expect.poll(async () => hasTopAndEnd((shown = await readRenderedTab(page, /homes-assistant — 1 run at/))), { timeout: 30_000, interval: 1000 }).toBe(true).catch(async (error: Error) => {
      await page.screenshot({ path: `${ARTIFACTS}/run-results-failed.png` });
      throw new Error(`${error.message}; the results read: ${JSON.stringify(shown.slice(0, 2000))}`);
    });
    expect(shown).toMatch(/Run 1 of 1 · (✓ pass|✗ fail)/);
    expect(shown).not.toMatch(/^#|\*\*|```/m);
    await page.locator('.tab', { hasText: /homes-assistant — 1 run at/ }).last().click();
    await renderedFrame(page).locator('h1', { hasText: 'homes-assistant → E2E simulator' }).waitFor({ timeout: 30_000 });
    await renderedFrame(page).locator('th', { hasText: 'metric' }).first().waitFor({ timeout: 30_000 });
    await page.screenshot({ path: `${ARTIFACTS}/run-results-rendered.png` });
    await focusFirstGroup(page);
    expect(shown).toContain('Single-family house');
    expect(shown).toMatch(/TTFT [\d.]+ m?s/);
    await page.locator('.notification-toast', { hasText: /homes-assistant.*TTFT [\d.]+ m?s/ }).waitFor({ timeout: 60_000 });
    expect(sim.served()).toBeGreaterThanOrEqual(1);
    await page.screenshot({ path: `${ARTIFACTS}/run-answer.png` });
    await openFile('homes.prompty');
    const metricsLens = page.locator('.codelens-decoration', { hasText: /TTFT [\d.]+ m?s · E2E [\d.]+ m?s · 1 run · sim/ });
    await metricsLens.first().waitFor({ timeout: 30_000 });
    // In the split editor (the run document beside), the whole lens line fits: the last lens ends inside the editor.
    const fits = await metricsLens.first().evaluate((lens) => {
      const editor = lens.closest('.monaco-editor')!.getBoundingClientRect();
      const links = [...lens.querySelectorAll('a, span')].map((e) => e.getBoundingClientRect().right);
      return { editorRight: editor.right, lensRight: Math.max(lens.getBoundingClientRect().left, ...links) };
    });
    expect(fits.lensRight).toBeLessThanOrEqual(fits.editorRight);
    await page.screenshot({ path: `${ARTIFACTS}/run-lens.png` });
  });

  it('"Compare revisions" opens the panel: 24 runs cannot establish the SLOs, and it says how many would; "Run until decided" ships the fix (the README hero, from this build); a cell shows its answers; AA contrast and charts re-coloured in dark and light themes', async () => {
    await openFile('homes.prompty');
    await page.locator('.codelens-decoration a', { hasText: 'Compare revisions' }).first().click();
    const panel = page.frameLocator('iframe.webview.ready').frameLocator('iframe#active-frame');
    await panel.locator('.revisions li').first().waitFor({ timeout: 30_000 });
    expect(await panel.locator('.revisions input:checked').count()).toBe(2);
    await expect.poll(async () => (await panel.locator('.revisions').textContent()) ?? '').toContain('Define "homes" as single-family houses');
    await panel.locator('#runs').fill('24');
    await panel.locator('button', { hasText: 'Compare selected' }).click();
    const decision = panel.locator('.rollout .decision');
    await decision.waitFor({ timeout: 90_000 });
    // Real estate is a decision scenario (homes.tests.yaml at the base revision). "Ship" means the head
    // meets every SLO: 24 runs cannot bound a p90 from above (that takes 35), so the panel says how many would.
    expect(await decision.textContent()).toMatch(/^\? Insufficient evidence for [0-9a-f]{7,} \(vs [0-9a-f]{7,}\)$/);
    expect(await panel.locator('.rollout .meta').textContent()).toMatch(/Scenario: decision \(homes\.tests\.yaml at [0-9a-f]{7}\)/);
    expect(await panel.locator('.rollout .reasons').textContent()).toMatch(/SLO E2E latency p90 ≤ 30 s not established for [0-9a-f]{7}: .* about \d+ runs .*would bound p90 under 30(\.0+)? s/);
    // A matrix cell opens its runs: each answer with its outcome and the assertions it failed.
    await panel.locator('.matrix button.cell').first().click();
    await panel.locator('.run-details .runs li').first().waitFor({ timeout: 10_000 });
    expect(await panel.locator('.run-details .run-status').first().textContent()).toMatch(/^Run 1: (pass|fail)/);
    expect(await panel.locator('.run-details .answer').first().textContent()).toContain('Bellevue');
    const card = (await panel.locator('.card').first().textContent()) ?? '';
    expect(card).toMatch(/adherence \+\d+ pts, p [=<] .*better/);
    // Base → head in the title and in the card alike.
    const title = (await panel.locator('header h2').textContent()) ?? '';
    const [, baseLabel, headLabel] = /— (\S+) → (\S+)$/.exec(title) ?? [];
    expect(await panel.locator('.card h3').first().textContent()).toBe(`${baseLabel} → ${headLabel}`);
    expect(await panel.locator('canvas').count()).toBe(5); // adherence, TTFT, E2E, tokens, and the runs over time
    expect(await panel.locator('.simulated').count()).toBe(1);
    expect(await panel.locator('.diff .added').count()).toBeGreaterThan(0);

    // Run until decided: from the 24 stored runs a side, batches until the fix ships by itself.
    await panel.locator('button', { hasText: 'Run until decided' }).click();
    await expect.poll(async () => (await decision.textContent()) ?? '', { timeout: 180_000 }).toMatch(/^✓ Ship [0-9a-f]{7,} \(vs [0-9a-f]{7,}\)$/);
    const untilLine = (await panel.locator('.rollout .until-decided').textContent()) ?? '';
    expect(untilLine).toMatch(/^Run until decided: decided \(ship\) after \d+ runs per test case/);
    expect(await panel.locator('.rollout .reasons').textContent()).toMatch(/0 of \d+ runs above 30\.00 s: E2E latency p90 ≤ 30 s holds with 95% confidence \(anytime-valid\)/);
    // The README's hero is this panel, from this build: a test fails when the two drift apart.
    await checkReadmeScreenshot('screenshot-compare-light', {
      decision: (await decision.textContent()) ?? '',
      reasons: await panel.locator('.rollout .reasons li').allTextContents(),
      untilDecided: untilLine,
    }, (path) => page.screenshot({ path }));

    const contrast = () => panel.locator('body').evaluate(() => {
      const rgb = (c: string) => (c.match(/[\d.]+/g) ?? []).slice(0, 3).map(Number);
      const lum = (c: string) => {
        const [r, g, b] = rgb(c).map((v) => v / 255).map((v) => (v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4));
        return 0.2126 * r! + 0.7152 * g! + 0.0722 * b!;
      };
      const ratio = (a: string, b: string) => (Math.max(lum(a), lum(b)) + 0.05) / (Math.min(lum(a), lum(b)) + 0.05);
      const background = getComputedStyle(document.body).backgroundColor;
      const of = (selector: string) => ratio(getComputedStyle(document.querySelector(selector)!).color, background);
      // Every pass-matrix status shown (the simulator is random: B's cell is ≥ 80% "pass" in most runs, "mixed" in some).
      const cells = [...document.querySelectorAll('.matrix td.pass, .matrix td.mixed, .matrix td.fail')].map((cell) => ratio(getComputedStyle(cell).color, background));
      return { kind: document.body.className, decision: of('.rollout .decision'), better: of('.verdict.better'), simulated: of('.simulated'), cells, drawn: Number(document.body.dataset.chartsDrawn) };
    });
    // code-server starts in its light theme: where VS Code's own "passed" green reaches only 2:1.
    const light = await contrast();
    expect(light.kind).toContain('vscode-light');
    expect(light.cells.length).toBe(2); // one test case × two revisions
    for (const value of [light.decision, light.better, light.simulated, ...light.cells]) expect(value).toBeGreaterThanOrEqual(4.5);

    // Switch to a dark theme as a user does; the panel re-colours without a new comparison.
    await page.keyboard.press('Control+K');
    await page.keyboard.press('Control+T');
    const input = page.locator('.quick-input-widget input');
    await input.waitFor();
    await input.pressSequentially('Dark Modern', { delay: 10 });
    await page.locator('.quick-input-list .monaco-list-row.focused', { hasText: 'Dark Modern' }).waitFor({ timeout: 10_000 });
    await page.keyboard.press('Enter');
    await expect.poll(async () => (await contrast()).kind, { timeout: 15_000 }).toContain('vscode-dark');
    await expect.poll(async () => (await contrast()).drawn, { timeout: 15_000 }).toBeGreaterThan(light.drawn);
    const dark = await contrast();
    expect(await decision.textContent()).toMatch(/^✓ Ship /);
    for (const value of [dark.decision, dark.better, dark.simulated, ...dark.cells]) expect(value).toBeGreaterThanOrEqual(4.5);
    const axisColour = await panel.locator('body').evaluate(() => getComputedStyle(document.body).getPropertyValue('--vscode-foreground').trim());
    expect(axisColour).not.toBe('');
    await checkReadmeScreenshot('screenshot-compare-dark', {
      decision: (await decision.textContent()) ?? '',
      reasons: await panel.locator('.rollout .reasons li').allTextContents(),
      untilDecided: await panel.locator('.rollout .until-decided').textContent(),
    }, (path) => page.screenshot({ path }));
  }, 400_000);

  it('a tests file has ▶ Run this case above each case: it runs the prompt with that case and says which; the walkthrough is listed', async () => {
    await openFile('homes.tests.yaml');
    const lens = page.locator('.codelens-decoration a', { hasText: '▶ Run this case' });
    await lens.first().waitFor({ timeout: 60_000 });
    expect(await lens.count()).toBe(1); // homes.tests.yaml has one case
    const served = sim.served();
    await lens.first().click();
    // homes.prompty, homes.prompt, homes.prompt.md and homes.prompt.txt all read homes.tests.yaml: the user picks one.
    const prompt = page.locator('.quick-input-list .monaco-list-row', { hasText: 'homes.prompty' }).first();
    await prompt.waitFor({ timeout: 30_000 });
    await prompt.click();
    await page.locator('.tab', { hasText: /homes-assistant · test case #1 — 1 run at \d\d:\d\d:\d\d/ }).waitFor({ timeout: 60_000 });
    let shown = '';
    await expect.poll(async () => (shown = await readRenderedTab(page, /homes-assistant · test case #1 — 1 run at/)).includes('Metrics — SIMULATED endpoint'), { timeout: 30_000, interval: 1000 }).toBe(true);
    expect(shown).toMatch(/Run 1 of 1 · (✓ pass|✗ fail)/);
    expect(sim.served()).toBeGreaterThan(served);
    await page.screenshot({ path: `${ARTIFACTS}/run-case.png` });

    // Its answer kept as a second case: appended to the file on disk, which then has two lenses.
    // From the command palette with the prompt in focus (keys pressed in a webview go to it, not the
    // workbench): with the ▶ Run's results open too, the command asks which run; this case's is picked.
    await focusFirstGroup(page);
    await runCommandByPalette(page, 'Prompt Insight: Add This Answer', 'Add This Answer as a Test Case', `${ARTIFACTS}/add-answer-failed.png`);
    const which = page.locator('.quick-input-list .monaco-list-row', { hasText: /homes-assistant · test case #1 — 1 run at/ }).first();
    const added = page.locator('.notification-toast', { hasText: /case #2 added to homes\.tests\.yaml/ });
    await expect.poll(async () => (await which.isVisible()) || (await added.isVisible()), { timeout: 30_000 }).toBe(true);
    if (await which.isVisible()) await which.click();
    await added.waitFor({ timeout: 30_000 });
    expect(readFileSync(join(bench!.server.workspace, 'homes.tests.yaml'), 'utf8')).toMatch(/- description: answer of the run at \d\d:\d\d:\d\d on E2E simulator\n {4}vars:\n {6}city: Bellevue, WA/);
    await expect.poll(() => lens.count(), { timeout: 30_000 }).toBe(2);
    await page.screenshot({ path: `${ARTIFACTS}/run-case-added.png` });

    await page.keyboard.press('Escape');
    await runCommandByPalette(page, 'Welcome: Open Walkthrough', 'Open Walkthrough', `${ARTIFACTS}/walkthrough-failed.png`);
    const walkthrough = page.locator('.quick-input-list .monaco-list-row', { hasText: 'Measure your prompts with Prompt Insight' }).first();
    await walkthrough.waitFor({ timeout: 30_000 });
    await walkthrough.click();
    await page.getByText('Add an endpoint', { exact: true }).first().waitFor({ timeout: 30_000 });
    await page.getByText('See production', { exact: true }).first().waitFor({ timeout: 30_000 });
    await page.screenshot({ path: `${ARTIFACTS}/walkthrough.png` });
  }, 180_000);
});
