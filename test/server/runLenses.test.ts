/** Run metrics in the editor: the server reads the results store and shows lenses and hover estimates. */
import { mkdtempSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CodeLensRequest, HoverRequest, type CodeLens, type MarkupContent } from 'vscode-languageserver-protocol/node';
import { httpTransport } from '../../src/core/endpoint/transport';
import { executePromptRuns, planPromptRun } from '../../src/core/run/promptRun';
import { startSim, type RunningSim } from '../../src/core/sim/simServer';
import { ResultsStore } from '../../src/core/store/resultsStore';
import { runsChangedNotification } from '../../src/protocol/lsp';
import { LspHarness } from './lspHarness';

const text = readFileSync('examples/homes/homes.prompty', 'utf8');
let server: LspHarness;
let sim: RunningSim;
let store: ResultsStore;

async function runHomes(runs: number, source = text): Promise<void> {
  const plan = await planPromptRun('runs/homes.prompty', source, {});
  await executePromptRuns(httpTransport({ name: 'Test simulator', provider: 'openai', baseUrl: sim.url, simulated: true }, undefined), plan, { runs, concurrency: 4, warmup: 0, timeoutMs: 5000, store });
}

const lenses = async (uri: string) => ((await server.connection.sendRequest(CodeLensRequest.type, { textDocument: { uri } })) as CodeLens[]).map((l) => l.command!.title);

beforeAll(async () => {
  sim = await startSim({ ttftBaseMs: 30, decodeMsPerToken: 1, outputTokens: 10 });
  store = new ResultsStore(join(mkdtempSync(join(tmpdir(), 'pi-lens-')), 'runs.jsonl'));
  await runHomes(12);
  server = new LspHarness();
  await server.initialize({ storePath: store.path, workspaceFolders: ['/tmp/prompt-insight-test'] });
});
afterAll(async () => {
  await server.dispose();
  await sim.close();
});

describe('run lenses and hover', () => {
  it('shows a short TTFT · E2E · p50 of N lens for the runs of this exact text, labelled simulated; the rest is in the hover', async () => {
    const { uri } = await server.open('runs/homes.prompty', text);
    const titles = await lenses(uri);
    // Figures as measured (tens of ms here; more on a busy machine): the longest form still fits a lens.
    expect(titles[4]).toMatch(/^TTFT (\d{1,3} ms|\d\.\d\d s) · E2E (\d{1,3} ms|\d\.\d\d s) · p50 of 12 · sim$/);
    expect(titles[4]!.length).toBeLessThanOrEqual(42);
    // On a line of its own, above the first message, so a split editor shows it whole.
    const all = (await server.connection.sendRequest(CodeLensRequest.type, { textDocument: { uri } })) as CodeLens[];
    expect(all.slice(0, 4).map((l) => l.range.start.line)).toEqual([0, 0, 0, 0]);
    expect(text.split('\n')[all[4]!.range.start.line]).toBe('system:');
  });

  it('hover in short sections: the tokens first, then the runs in two lines with a link to every figure', async () => {
    const { uri } = await server.open('runs/hover/../homes.prompty', text);
    const line = text.split('\n').findIndex((l) => l.startsWith('Find homes'));
    const hover = await server.connection.sendRequest(HoverRequest.type, { textDocument: { uri }, position: { line, character: 2 } });
    const value = (hover!.contents as MarkupContent).value;
    const sections = value.split('\n\n---\n\n');
    expect(sections).toHaveLength(2);
    expect(sections[0]).toContain('| whole prompt (');
    const runs = sections[1]!.split('\n').filter(Boolean);
    expect(runs).toHaveLength(2);
    expect(runs[0]).toMatch(/^\*\*Runs of this text\*\* on `Test simulator` \(\*\*simulated\*\* endpoint, not a real model\) · \S+ · 12 of 12 answered$/);
    expect(runs[1]).toMatch(/^TTFT p50 \d+ ms · E2E latency p50 \d+ ms · throughput p50 [\d.]+ tok\/s · 12 runs — \[all runs and figures\]\(command:promptInsight\.showRuns\?(.+)\)$/);
    // The link runs the command on this prompt: its arguments are the lens's.
    const encoded = /\(command:promptInsight\.showRuns\?(.+)\)$/.exec(runs[1]!)![1]!;
    expect(JSON.parse(decodeURIComponent(encoded))).toEqual([{ uri, promptName: 'homes-assistant', promptIndex: 0 }]);
    // No table of percentiles, no internal names: the runs document has them.
    expect(value).not.toMatch(/\| TTFT \||e2eMs|ttftMs/);
  });

  it('after an edit the lens estimates from the fit; new runs appear after runsChanged', async () => {
    const edited = text.replace('Find homes nearby', 'Find homes nearby, quiet street');
    const { uri } = await server.open('runs/other/homes.prompty', edited);
    // Stored paths are workspace-relative: this document is another file, so it has no runs.
    expect(await lenses(uri)).toHaveLength(4);
    const opened = 'file:///tmp/prompt-insight-test/runs/homes.prompty';
    await server.change(opened, 2, [{ text: edited }]);
    await server.nextDiagnostics(opened, 2);
    expect((await lenses(opened))[4]).toMatch(/^edited · est\. TTFT (\d+ ms|\d\.\d\d s) · sim$/);
    await runHomes(3, edited);
    await server.connection.sendNotification(runsChangedNotification, { storePath: store.path });
    const titles = await lenses('file:///tmp/prompt-insight-test/runs/homes.prompty');
    expect(titles[4]).toMatch(/p50 of 3/);
  });
});

describe('a hostile store in the workspace', () => {
  it('a store that is a symbolic link, or whose records this machine did not write, shows no run numbers', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'pi-hostile-lens-'));
    const linked = join(dir, 'linked.jsonl');
    symlinkSync(store.path, linked);
    const foreign = join(dir, 'foreign.jsonl');
    writeFileSync(foreign, readFileSync(store.path, 'utf8').replace(/,"seal":"[0-9a-f]{64}"}/g, '}'));
    for (const storePath of [linked, foreign, store.path]) {
      const harness = new LspHarness();
      await harness.initialize({ storePath, workspaceFolders: ['/tmp/prompt-insight-test'] });
      const { uri } = await harness.open('runs/homes.prompty', text);
      const titles = ((await harness.connection.sendRequest(CodeLensRequest.type, { textDocument: { uri } })) as CodeLens[]).map((l) => l.command!.title);
      await harness.dispose();
      // The honest store (last) shows its runs, so the first two show none because they are refused.
      expect(titles.some((t) => t.startsWith('TTFT')), storePath).toBe(storePath === store.path);
    }
  });
});
