/** The hover's hallucination rate (issue 25): runs of this text stored with their grounded verdicts, read by the real language server over stdio. */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HoverRequest, type MarkupContent } from 'vscode-languageserver-protocol/node';
import { httpTransport } from '../../src/core/endpoint/transport';
import type { RunGrounded } from '../../src/core/metrics/runRecord';
import { executePromptRuns, planPromptRun } from '../../src/core/run/promptRun';
import { startSim, type RunningSim } from '../../src/core/sim/simServer';
import { ResultsStore } from '../../src/core/store/resultsStore';
import { LspHarness } from './lspHarness';

let server: LspHarness;
let sim: RunningSim;
const text = `---\nname: listings\nmodel: gpt-4o-mini\n---\nsystem:\nAnswer from the listings only.\n\nuser:\nWhat does 12 Elm St cost?\n`;

beforeAll(async () => {
  sim = await startSim({ ttftBaseMs: 5, decodeMsPerToken: 1, outputTokens: 5 });
  const dir = mkdtempSync(join(tmpdir(), 'pi-halluc-hover-'));
  // Real runs of this text, then the same runs kept with a judge's verdicts (1 hallucinated, 11 clean, 2 undetermined).
  const measured = new ResultsStore(join(dir, 'measured.jsonl'));
  const plan = await planPromptRun('runs/listings.prompty', text, {});
  await executePromptRuns(httpTransport({ name: 'Test simulator', provider: 'openai', baseUrl: sim.url, simulated: true }, undefined), plan, { runs: 14, concurrency: 2, warmup: 0, timeoutMs: 5000, store: measured });
  const verdicts: RunGrounded[] = [
    { hallucinated: true, supported: 2, contradicted: 1, notMentioned: 0 },
    ...Array.from({ length: 11 }, () => ({ hallucinated: false, supported: 3, contradicted: 0, notMentioned: 0 })),
    { hallucinated: null, supported: 0, contradicted: 0, notMentioned: 0 },
    { hallucinated: null, supported: 0, contradicted: 0, notMentioned: 0 },
  ];
  const store = new ResultsStore(join(dir, 'runs.jsonl'));
  const runs = measured.read().records;
  expect(runs).toHaveLength(14);
  store.append(runs.map(({ v: _v, id: _id, answerTruncated: _t, ...r }, i) => ({ ...r, run: { ...r.run, grounded: verdicts[i]! } })));
  server = new LspHarness();
  await server.initialize({ storePath: store.path, workspaceFolders: ['/tmp/prompt-insight-test'] });
});
afterAll(async () => {
  await server?.dispose();
  await sim?.close();
});

describe('hover of a prompt whose runs were judged', () => {
  it('shows the hallucination rate of the runs of this text with its Wilson interval and the undetermined runs', async () => {
    const { uri } = await server.open('runs/listings.prompty', text);
    const line = text.split('\n').findIndex((l) => l.startsWith('Answer from'));
    const hover = await server.connection.sendRequest(HoverRequest.type, { textDocument: { uri }, position: { line, character: 2 } });
    const value = (hover!.contents as MarkupContent).value;
    expect(value).toContain('**Runs of this text**');
    expect(value).toContain('hallucination 1/12 (8%, 95% CI 1–35%) · 2 undetermined');
  });
});
