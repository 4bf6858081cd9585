/** The hover of a prompt with a retrieval step (issue 25): its stored runs' RAG chain, retrieval → TTFT → decode. */
import http from 'node:http';
import { mkdtempSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HoverRequest, type MarkupContent } from 'vscode-languageserver-protocol/node';
import { httpTransport } from '../../src/core/endpoint/transport';
import { executePromptRuns, planPromptRun } from '../../src/core/run/promptRun';
import { startSim, type RunningSim } from '../../src/core/sim/simServer';
import { ResultsStore } from '../../src/core/store/resultsStore';
import { LspHarness } from './lspHarness';

let server: LspHarness;
let sim: RunningSim;
let search: http.Server;
let text: string;

beforeAll(async () => {
  sim = await startSim({ ttftBaseMs: 30, decodeMsPerToken: 1, outputTokens: 10 });
  search = http.createServer((req, res) => {
    req.resume();
    req.on('end', () => setTimeout(() => res.writeHead(200).end(JSON.stringify({ passages: [{ text: '12 Elm St: $850,000' }] })), 80));
  });
  await new Promise<void>((r) => search.listen(0, '127.0.0.1', r));
  text = `---\nname: rag\nmodel: gpt-4o-mini\nsample:\n  question: homes in Bellevue\nretrieval: { url: "http://127.0.0.1:${(search.address() as AddressInfo).port}/search", query: "{{question}}" }\n---\nsystem:\nAnswer from the listings.\n{{context}}\n\nuser:\n{{question}}\n`;
  const store = new ResultsStore(join(mkdtempSync(join(tmpdir(), 'pi-rag-hover-')), 'runs.jsonl'));
  const plan = await planPromptRun('runs/rag.prompty', text, {});
  await executePromptRuns(httpTransport({ name: 'Test simulator', provider: 'openai', baseUrl: sim.url, simulated: true }, undefined), plan, { runs: 10, concurrency: 2, warmup: 0, timeoutMs: 5000, store });
  server = new LspHarness();
  await server.initialize({ storePath: store.path, workspaceFolders: ['/tmp/prompt-insight-test'] });
});
afterAll(async () => {
  await server.dispose();
  await sim.close();
  search.closeAllConnections();
  await new Promise((r) => search.close(r));
});

describe('hover of a RAG prompt', () => {
  it('shows the chain retrieval → TTFT → decode of the runs of this text, per step and over the chain', async () => {
    const { uri } = await server.open('runs/rag.prompty', text);
    const line = text.split('\n').findIndex((l) => l.startsWith('Answer from'));
    const hover = await server.connection.sendRequest(HoverRequest.type, { textDocument: { uri }, position: { line, character: 2 } });
    const value = (hover!.contents as MarkupContent).value;
    expect(value).toContain('**Runs of this text**');
    const chain = /RAG chain p50 (\d+) ms = retrieval (\d+) ms → TTFT (\d+) ms → decode (\d+) ms · p90 \d+ ms = retrieval \d+ ms → TTFT \d+ ms → decode \d+ ms \(n 10\)/.exec(value);
    expect(chain, value).not.toBeNull();
    expect(Number(chain![2])).toBeGreaterThanOrEqual(80);
  });
});
