/**
 * The production actions in a real VS Code (code-server + Chromium, the packaged extension), on a
 * repository with two committed versions of a prompt and two days of planted production traces:
 * "Sample Production into Tests…" from the Command Palette with every default accepted previews the
 * redacted cases, writes nothing before the user confirms, then appends them (an API key a user typed is
 * redacted on disk); "Decide Gray Release" shows the decision the traces support (the head's answers
 * fail the base's is-json check half the time: ROLL BACK). One workbench session.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { seededRandom } from '../../src/core/stats/random';
import { TestRepo } from '../fixtures/gitRepo';
import { otlpSpan, tracesLine } from '../fixtures/otlpTraces';
import { acceptDefault, focusFirstGroup, openFileByQuickOpen, readRenderedTab, renderedFrame, runCommandByPalette } from './browser';
import { ARTIFACTS, startWorkbench, type Workbench } from './workbench';

const V1_TEXT = '---\nmodel: gpt-test\n---\nAnswer in JSON.\n';
const V2_TEXT = '---\nmodel: gpt-test\n---\nAnswer.\n';
const TESTS = 'defaultTest:\n  assert:\n    - type: is-json\n';
const KEY = 'sk-proj-abcdefghijklmnopqrstuvwx';
const HOUR = 3_600_000;
const USER_REQUESTS = ['Homes under $500k in Austin.', `Use my key ${KEY} for the listings.`, 'Three bedrooms near a school.', 'A garden, please.'];

let bench: Workbench | undefined;
let page: Page;
let workspace: string;
let v1: string;
let v2: string;

/** Two days of a gray release, each request to either version; half of v2's answers are not JSON. The last few carry the user's message. */
function plantTraces(repo: TestRepo): void {
  const r = seededRandom(11);
  const now = Date.now();
  const spans = [];
  const start = now - 48 * HOUR;
  for (let t = start; t < now - 60_000; t += 60_000) {
    const version = r() < 0.5 ? v1 : v2;
    const answer = r() < (version === v2 ? 0.5 : 0.05) ? 'Sure! {"home": 1' : '{"home": 1}';
    const ttft = 300 * (0.9 + 0.2 * r());
    const index = Math.round((now - t) / 60_000) - 2;
    const extra: Record<string, string> = { 'gen_ai.output.messages': JSON.stringify([{ role: 'assistant', parts: [{ type: 'text', content: answer }] }]) };
    if (index >= 0 && index < USER_REQUESTS.length) extra['gen_ai.input.messages'] = JSON.stringify([{ role: 'system', parts: [{ type: 'text', content: 'Answer.' }] }, { role: 'user', parts: [{ type: 'text', content: USER_REQUESTS[index] }] }]);
    spans.push(otlpSpan({ promptName: 'greet', version, startMs: t, ttftMs: ttft, e2eMs: ttft + 400, extra }));
  }
  const lines: string[] = [];
  for (let i = 0; i < spans.length; i += 500) lines.push(tracesLine(spans.slice(i, i + 500)));
  repo.write('telemetry/app.jsonl', `${lines.join('\n')}\n`);
}

beforeAll(async () => {
  bench = await startWorkbench({ 'greet.prompt': V2_TEXT }, { 'promptInsight.production.sources': [{ traces: 'telemetry/*.jsonl' }] }, {
    prepare: (dir) => {
      workspace = dir;
      const repo = new TestRepo(dir);
      repo.git('init', '-q', '-b', 'main');
      v1 = repo.commit('Greeting', { 'greet.prompt': V1_TEXT, 'greet.tests.yaml': TESTS }).slice(0, 7);
      v2 = repo.commit('Shorter', { 'greet.prompt': V2_TEXT }).slice(0, 7);
      plantTraces(repo);
    },
  });
  page = bench.page;
}, 180_000);

afterAll(async () => {
  await bench?.close();
});

describe('production actions in VS Code', () => {
  it('samples production into tests: defaults, a redacted preview, nothing written before the confirmation, then the cases on disk', async () => {
    await openFileByQuickOpen(page, 'greet.prompt', `${ARTIFACTS}/production-actions-open-failed.png`);
    const before = readFileSync(join(workspace, 'greet.tests.yaml'), 'utf8');
    await runCommandByPalette(page, 'Sample Production into Tests', 'Sample Production into Tests', `${ARTIFACTS}/sample-palette-failed.png`);
    for (const title of ['Sample requests of which version', 'Which requests: the time they ended', 'Which requests become cases', 'How many cases at most']) await acceptDefault(page, title);
    const write = page.locator('.notification-toast .monaco-button', { hasText: 'Write 4 cases to greet.tests.yaml' });
    await write.waitFor({ timeout: 90_000 }).catch(async (error: unknown) => {
      await page.screenshot({ path: `${ARTIFACTS}/sample-preview-failed.png` });
      throw error;
    });
    await page.locator('.tab', { hasText: /Sample preview — greet/ }).waitFor({ timeout: 30_000 });
    // Rendered by the Markdown preview, beside the prompt, while the notification waits for the choice.
    await renderedFrame(page).locator('h2', { hasText: 'The cases' }).waitFor({ timeout: 30_000 });
    await page.screenshot({ path: `${ARTIFACTS}/sample-preview.png` });
    // Previewed, not written.
    expect(readFileSync(join(workspace, 'greet.tests.yaml'), 'utf8')).toBe(before);
    await write.click();
    await page.locator('.notification-toast', { hasText: 'Added 4 cases to greet.tests.yaml' }).waitFor({ timeout: 30_000 });
    const written = readFileSync(join(workspace, 'greet.tests.yaml'), 'utf8');
    expect(written.startsWith('defaultTest:')).toBe(true);
    expect(written.match(/source: production/g)).toHaveLength(4);
    expect(written).not.toContain(KEY);
    expect(written).toMatch(/Use my key \[REDACTED:[a-z-]+\] for the listings\./);
    const preview = await readRenderedTab(page, /Sample preview — greet/);
    expect(preview).toContain('4 cases would be appended');
    expect(preview).toMatch(/\[REDACTED:[a-z-]+\]/);
    expect(preview).not.toContain(KEY);
  });

  it('decides the gray release: head and base from the versions production saw, judged with the base\'s tests', async () => {
    await openFileByQuickOpen(page, 'greet.prompt', `${ARTIFACTS}/production-actions-open-failed.png`);
    await runCommandByPalette(page, 'Decide Gray Release', 'Decide Gray Release', `${ARTIFACTS}/decide-palette-failed.png`);
    for (const title of ['Head: the version being rolled out', `Base: the version ${v2} is judged against`, 'Judge with', 'Which requests: the time they ended']) await acceptDefault(page, title);
    // No upstream branch in this repository: the branch being released into is asked, `main` offered.
    await acceptDefault(page, 'The branch being released into');
    const verdict = page.locator('.notification-toast', { hasText: `Gray release of greet: ROLL BACK ${v2} (against ${v1})` });
    await verdict.waitFor({ timeout: 120_000 }).catch(async (error: unknown) => {
      await page.screenshot({ path: `${ARTIFACTS}/gray-release-failed.png` });
      throw error;
    });
    await page.locator('.tab', { hasText: /Gray release — greet/ }).waitFor({ timeout: 30_000 });
    // Rendered by the Markdown preview: the heading and the verdict in bold, not their Markdown source.
    let text = '';
    await expect.poll(async () => (text = await readRenderedTab(page, /Gray release — greet/)), { timeout: 30_000, interval: 1000 }).toContain('Gray release: ROLL BACK');
    await page.locator('.tab', { hasText: /Gray release — greet/ }).last().click();
    await renderedFrame(page).locator('strong', { hasText: `ROLL BACK ${v2} (against ${v1})` }).waitFor({ timeout: 30_000 });
    await page.screenshot({ path: `${ARTIFACTS}/gray-release-decision.png` });
    await focusFirstGroup(page);
    expect(text).toContain('send the traffic back to the base');
    expect(text).toMatch(/adherence/);
    expect(existsSync(join(workspace, '.prompt-insight', 'prod-scores.jsonl'))).toBe(false);
  });
});
