/**
 * The ▶ Run ×N document of a RAG prompt (issue 25), from real runs on the bundled simulator and a
 * search service on 127.0.0.1 that answers after a known delay: each run shows its retrieval time and
 * passages, the figures show the chain retrieval → TTFT → decode per step and over the chain.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { httpTransport } from '../../../src/core/endpoint/transport';
import { fitLatency } from '../../../src/core/metrics/latencyModel';
import { runReportMarkdown } from '../../../src/core/metrics/runReport';
import { executePromptRuns, planPromptRun } from '../../../src/core/run/promptRun';
import { startSim, type RunningSim } from '../../../src/core/sim/simServer';
import { runDocumentMarkdown, type RunDocumentState } from '../../../src/extension/runs/runDocument';

const DELAY_MS = 60;
let sim: RunningSim;
let search: http.Server;
let searchUrl: string;
beforeAll(async () => {
  sim = await startSim({ ttftBaseMs: 20, decodeMsPerToken: 0.2, jitterMs: 2, seed: 11 } as Parameters<typeof startSim>[0]);
  search = http.createServer((req, res) => {
    req.resume();
    req.on('end', () => setTimeout(() => res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ passages: [{ text: '12 Elm St: $850,000' }, { text: '4 Oak Ave: $620,000' }, { text: '9 Pine Rd: $1,100,000' }] })), DELAY_MS));
  });
  await new Promise<void>((r) => search.listen(0, '127.0.0.1', r));
  searchUrl = `http://127.0.0.1:${(search.address() as AddressInfo).port}/search`;
});
afterAll(async () => {
  await sim.close();
  search.closeAllConnections();
  await new Promise((r) => search.close(r));
});

describe('the run document of a prompt with a retrieval step', () => {
  it('shows each run\'s retrieval time and passages, and the chain table', async () => {
    const source = `---\nname: rag\nmodel: gpt-4o-mini\nsample:\n  question: homes in Bellevue\nretrieval: { url: "${searchUrl}", query: "{{question}}" }\n---\nsystem:\n{{context}}\n\nuser:\n{{question}}\n`;
    const plan = await planPromptRun('rag.prompty', source, {});
    expect(plan.unresolved).toEqual([]);
    const state: RunDocumentState = { promptName: 'rag', endpointLabel: 'sim', model: plan.request.model, inputTokensEstimate: plan.inputTokensEstimate, unresolved: [], runs: 10, checks: { notChecked: 'no test cases' }, entries: [] };
    const transport = httpTransport({ name: 'sim', provider: 'openai', baseUrl: sim.url, simulated: true }, undefined);
    const result = await executePromptRuns(transport, plan, { runs: 10, concurrency: 1, warmup: 0, timeoutMs: 10_000, onRun: (o, _f, i) => void (state.entries[i] = { answer: o.text.answer, reasoning: '', record: o.record }) });
    const records = result.outcomes.map((o) => o.record);
    state.report = runReportMarkdown({ records, summary: result.summary, summaryWarm: result.summaryWarm, serverKind: result.serverKind, serverMetrics: result.serverMetrics, startedAt: result.startedAt, fit: fitLatency(records), concurrency: 1, simulated: true });
    const markdown = runDocumentMarkdown(state);
    expect(markdown.match(/^retrieval \d+ ms \(3 passages\) · TTFT \d+ ms · E2E \d+ ms/gm)).toHaveLength(10);
    expect(markdown).toContain('### RAG chain: retrieval → TTFT → decode (10 retrievals)');
    const row = (name: string) => new RegExp(`^${name.replace(/[()+−]/g, '\\$&')}\\s+10\\s+\\d+ ms\\s+\\d+ ms\\s+n/a$`, 'm');
    for (const name of ['retrieval', 'TTFT', 'decode (E2E − TTFT)', 'chain (retrieval + E2E)']) expect(markdown).toMatch(row(name));
    expect(result.summary.chain!.retrievalMs.p50).toBeGreaterThanOrEqual(DELAY_MS);
    expect(result.summary.chain!.chainMs.p50).toBeGreaterThan(result.summary.chain!.retrievalMs.p50! + result.summary.chain!.ttftMs.p50! - 1);
  });
});
