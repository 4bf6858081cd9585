/**
 * The Production view drawn in headless Chromium from real trace files on a real git repo: the versions
 * table, the chart (inked), the version change with before/after, the baseline line; offline and CSP-clean.
 */
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { promisify } from 'node:util';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { standaloneReportHtml } from '../../src/core/compare/report';
import { readFileProduction } from '../../src/core/telemetry/prodForEditor';
import { productionView } from '../../src/core/telemetry/productionView';
import { TestRepo } from '../fixtures/gitRepo';
import { otlpSpan, tracesLine } from '../fixtures/otlpTraces';
import { startScriptedJudge } from '../unit/adherence/scriptedJudge';
import { inkedPixels, launchChromium, openOfflinePage } from './browser';

const ARTIFACTS = 'test-artifacts/e2e';
const HOUR = 3_600_000;
const NOW = Date.UTC(2026, 11, 4, 12, 30);
const HOUR_NOW = Date.UTC(2026, 11, 4, 12);
let browser: Browser;

beforeAll(async () => {
  mkdirSync(ARTIFACTS, { recursive: true });
  browser = await launchChromium();
});
afterAll(async () => browser?.close());

describe('Production view page', () => {
  it('versions, one inked chart, the version change with before and after, the baseline said; no network, no CSP violation', async () => {
    const repo = new TestRepo();
    const a = repo.commit('First greeting', { 'greet.prompt': '---\nmodel: gpt-test\n---\nSay hello.\n' });
    const b = repo.commit('Longer greeting', { 'greet.prompt': '---\nmodel: gpt-test\n---\nSay hello, briefly and warmly.\n' });
    const lines: string[] = [];
    // B's answers are captured, one in four not JSON: the tests file holds every answer to is-json (production adherence).
    const answer = (k: number) => ({ 'gen_ai.output.messages': JSON.stringify([{ role: 'assistant', parts: [{ type: 'text', content: k % 4 === 0 ? 'Hello!' : '{"hello": true}' }] }]) });
    const hour = (version: string, h: number, base: number, answers = false) => tracesLine(Array.from({ length: 20 }, (_, k) => otlpSpan({ promptName: 'greet', version, startMs: HOUR_NOW - h * HOUR + k * 60_000, ttftMs: base + k * 3, e2eMs: base + 400, ...(answers ? { extra: answer(k) } : {}) })));
    for (let h = 20; h >= 7; h--) lines.push(hour(a.slice(0, 7), h, 120));
    for (let h = 6; h >= 1; h--) lines.push(hour(b.slice(0, 7), h, 260, true));
    repo.write('greet.tests.yaml', 'defaultTest:\n  assert:\n    - type: is-json\ntests:\n  - vars: {}\n');
    // A week earlier A served the hours B serves now: the before/after compares those hours, not the morning with the afternoon.
    for (let h = 6; h >= 1; h--) lines.push(hour(a.slice(0, 7), 168 + h, 120));
    lines.push(tracesLine([otlpSpan({ promptName: 'greet', version: 'v-hotfix', startMs: HOUR_NOW - 3 * HOUR, ttftMs: 150, e2eMs: 300 })]));
    repo.write('traces/app.jsonl', `${lines.join('\n')}\n`);
    const production = await readFileProduction(`${repo.root}/greet.prompt`, [{ kind: 'traces', traces: 'traces/*.jsonl', since: '24h' }], { root: repo.root, nowMs: NOW });
    const view = productionView('greet.prompt', production, 'greet', (v) => v.revision === b);
    const html = standaloneReportHtml('Production: greet', view, { script: readFileSync('dist/webview.js', 'utf8'), css: readFileSync('media/panel.css', 'utf8') });
    const file = resolve(ARTIFACTS, 'production.html');
    writeFileSync(file, html);
    const { page, problems } = await openOfflinePage(browser, file);
    expect(await page.locator('h2').first().textContent()).toBe('Production of greet — greet.prompt');
    const rows = await page.locator('.production-versions tbody tr').allInnerTexts();
    expect(rows).toHaveLength(3);
    // Newest first (v-hotfix, unmapped, by when production first saw it): the text in the editor is marked.
    expect(rows.find((r) => r.includes('(this text)'))).toMatch(new RegExp(`^${b.slice(0, 7)} \\(this text\\)\\t${b.slice(0, 7)} Longer greeting\\t120\\t`));
    expect(rows.find((r) => r.startsWith('v-hotfix'))).toContain('not in git history');
    // Adherence of the sampled answers (at most 50 per version) with its interval; versions without captured answers say n/a.
    expect(rows.find((r) => r.includes('(this text)'))).toMatch(/\t\d+% \[\d+%, \d+%\] · \d+\/50$/);
    expect(rows.find((r) => r.startsWith('v-hotfix'))).toMatch(/\tn\/a$/);
    expect(await page.locator('.changes li').allInnerTexts()).toEqual([
      expect.stringMatching(new RegExp(`^12-04 06h: ${a.slice(0, 7)} → ${b.slice(0, 7)} · before \\(the same hours a week earlier\\): 120 req over 6 h · TTFT p50 \\d+ ms · p99 \\d+ ms · after: 120 req over 6 h`)),
      expect.stringMatching(/→ v-hotfix/),
    ]);
    expect(await page.locator('.baseline').textContent()).toMatch(/^Baseline band \(hourly TTFT p99, all versions\): no baseline yet: /);
    expect(await page.evaluate(() => document.body.dataset.chartsDrawn)).toBe('1');
    const [inked] = await inkedPixels(page.locator('canvas').first());
    expect(inked).toBeGreaterThan(1000);
    expect(problems).toEqual([]);
    await page.screenshot({ path: `${ARTIFACTS}/production.png`, fullPage: true });
    await page.close();
  });

  it('prod --report from the real CLI draws the same page offline: versions, inked chart, version change; no network, no CSP violation', async () => {
    const repo = new TestRepo();
    const a = repo.commit('First greeting', { 'greet.prompt': '---\nmodel: gpt-test\n---\nSay hello.\n' });
    const b = repo.commit('Longer greeting', { 'greet.prompt': '---\nmodel: gpt-test\n---\nSay hello, briefly and warmly.\n' });
    const hourNow = Math.floor(Date.now() / HOUR) * HOUR; // the CLI reads up to its own now
    const hour = (version: string, h: number, base: number) => tracesLine(Array.from({ length: 20 }, (_, k) => otlpSpan({ promptName: 'greet', version, startMs: hourNow - h * HOUR + k * 60_000, ttftMs: base + k * 3, e2eMs: base + 400 })));
    const lines = [...[12, 11, 10, 9, 8, 7].map((h) => hour(a.slice(0, 7), h, 120)), ...[6, 5, 4, 3, 2, 1].map((h) => hour(b.slice(0, 7), h, 260))];
    // The same hours a week earlier, served by A: what B's first hours are compared with.
    lines.push(...[6, 5, 4, 3, 2, 1].map((h) => hour(a.slice(0, 7), 168 + h, 120)));
    repo.write('app.jsonl', `${lines.join('\n')}\n`);
    const file = resolve(ARTIFACTS, 'production-cli.html');
    await promisify(execFile)(process.execPath, [resolve('dist/cli.js'), 'prod', 'greet.prompt', '--traces', 'app.jsonl', '--since', '24h', '--report', file], { cwd: repo.root, timeout: 60_000 });
    const { page, problems } = await openOfflinePage(browser, file);
    expect(await page.locator('h2').first().textContent()).toBe('Production of greet — greet.prompt');
    // The header says the range the figures cover, in UTC.
    expect(await page.locator('h3').first().textContent()).toMatch(/^traces app\.jsonl · last 24h: \d{4}-\d\d-\d\d \d\d:\d\d UTC – \d{4}-\d\d-\d\d \d\d:\d\d UTC$/);
    const rows = await page.locator('.production-versions tbody tr').allInnerTexts();
    expect(rows).toHaveLength(2);
    expect(rows[0]).toMatch(new RegExp(`^${b.slice(0, 7)} \\(this text\\)\\t${b.slice(0, 7)} Longer greeting\\t120\\t0\\.0%`));
    expect(await page.locator('.changes li').allInnerTexts()).toEqual([expect.stringMatching(new RegExp(`${a.slice(0, 7)} → ${b.slice(0, 7)} · before \\(the same hours a week earlier\\): 120 req over 6 h · TTFT p50 \\d+ ms · p99 \\d+ ms · after: 120 req over 6 h`))]);
    expect(await page.evaluate(() => document.body.dataset.chartsDrawn)).toBe('1');
    const [inked] = await inkedPixels(page.locator('canvas').first());
    expect(inked).toBeGreaterThan(1000);
    expect(problems).toEqual([]);
    await page.screenshot({ path: `${ARTIFACTS}/production-cli.png`, fullPage: true });
    await page.close();
  });

  it('prod --report with a judge: the adherence column gives each version\'s hallucination against the passages its trace retrieved', async () => {
    const LISTING = '12 Elm St, Bellevue: single-family house listed at $850,000.';
    const TRUE_ANSWER = '12 Elm St is listed at $850,000.';
    const INVENTED = '12 Elm St is listed at $790,000.';
    const judge = await startScriptedJudge([
      { step: 'claims', when: `Text:\n${TRUE_ANSWER}`, reply: { claims: [TRUE_ANSWER] } },
      { step: 'claims', when: `Text:\n${INVENTED}`, reply: { claims: [INVENTED] } },
      { step: 'verdicts', when: `1. ${TRUE_ANSWER}`, reply: { verdicts: [{ claim: 1, verdict: 'supported', passage: 1 }] } },
      { step: 'verdicts', when: `1. ${INVENTED}`, reply: { verdicts: [{ claim: 1, verdict: 'contradicted', passage: 1 }] } },
    ]);
    try {
      const repo = new TestRepo();
      const a = repo.commit('Listings', { 'listings.prompt': '---\nmodel: gpt-test\n---\nAnswer from the listings.\n', 'listings.tests.yaml': 'defaultTest:\n  assert:\n    - type: hallucination\n' });
      const b = repo.commit('Attractive prices', { 'listings.prompt': '---\nmodel: gpt-test\n---\nAnswer from the listings; round prices.\n' });
      const hourNow = Math.floor(Date.now() / HOUR) * HOUR;
      // Each request: the app's retriever span (OpenInference), then the model call with its answer, in one trace.
      // Version B invents the price in every fourth answer: 5 of its 20.
      const spans = Array.from({ length: 40 }, (_, k) => {
        const version = (k % 2 ? b : a).slice(0, 7);
        const startMs = hourNow - 2 * HOUR + k * 60_000;
        const answer = k % 2 && k % 8 === 1 ? INVENTED : TRUE_ANSWER;
        const call = otlpSpan({ promptName: 'listings', version, startMs, ttftMs: 200, e2eMs: 600, extra: { 'gen_ai.output.messages': JSON.stringify([{ role: 'assistant', parts: [{ type: 'text', content: answer }] }]) } });
        const ns = (ms: number) => (BigInt(ms) * 1_000_000n).toString();
        const retriever = { traceId: call.traceId, spanId: randomBytes(8).toString('hex'), name: 'listings-search', startTimeUnixNano: ns(startMs - 80), endTimeUnixNano: ns(startMs - 20), attributes: [{ key: 'openinference.span.kind', value: { stringValue: 'RETRIEVER' } }, { key: 'retrieval.documents.0.document.content', value: { stringValue: LISTING } }] };
        return [retriever, call];
      }).flat();
      repo.write('app.jsonl', `${tracesLine(spans)}\n`);
      const file = resolve(ARTIFACTS, 'production-hallucination.html');
      await promisify(execFile)(process.execPath, [resolve('dist/cli.js'), 'prod', 'listings.prompt', '--traces', 'app.jsonl', '--since', '24h', '--judge-endpoint', judge.url, '--judge-model', 'judge-model', '--no-store', '--report', file], { cwd: repo.root, timeout: 60_000 });
      const { page, problems } = await openOfflinePage(browser, file);
      const rows = await page.locator('.production-versions tbody tr').allInnerTexts();
      expect(rows).toHaveLength(2);
      expect(rows.find((r) => r.startsWith(b.slice(0, 7)))).toMatch(/\t75% \[\d+%, \d+%\] · 15\/20 · hallucination 25% \[\d+%, \d+%\]$/);
      expect(rows.find((r) => r.startsWith(a.slice(0, 7)))).toMatch(/\t100% \[\d+%, 100%\] · 20\/20 · hallucination 0% \[0%, \d+%\]$/);
      const title = await page.locator('.production-versions tbody tr').first().locator('td').last().getAttribute('title');
      expect(title).toMatch(/judged answers hallucinate against the passages their trace retrieved$/);
      expect(problems).toEqual([]);
      await page.screenshot({ path: `${ARTIFACTS}/production-hallucination.png`, fullPage: true });
      await page.close();
    } finally {
      await judge.close();
    }
  });
});
