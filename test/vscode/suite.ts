/**
 * Integration suite in the VS Code extension host, through the public API as other extensions see
 * Prompt Insight: activation, CodeLens, hover, symbols, diagnostics and a real run against the
 * simulator. `npm run test:vscode` runs it with @vscode/test-electron where VS Code can be
 * downloaded; the e2e suite runs the same file inside code-server's extension host (see host/).
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import * as vscode from 'vscode';
import { analyzePromptText } from '../../src/core/analysis';
import { runOnce } from '../../src/core/run/runOnce';
import { httpTransport } from '../../src/core/endpoint/transport';
import type { Wire } from '../../src/core/endpoint/wire';
import { workerWire } from '../../src/core/endpoint/workerWire';
import { parseScenario } from '../../src/core/sim/scenario';
import { startSim } from '../../src/core/sim/simServer';
import { languageModelTransport } from '../../src/extension/endpoints/lmTransport';
import { TokenCounter } from '../../src/core/tokens/counter';

export interface SuiteResult {
  name: string;
  ok: boolean;
  error?: string;
  ms: number;
}

const EXTENSION_ID = 'prompt-insight.prompt-insight';

function workspaceFile(name: string): vscode.Uri {
  const folder = vscode.workspace.workspaceFolders?.[0];
  assert.ok(folder, 'the suite needs a workspace folder with the homes examples');
  return vscode.Uri.joinPath(folder.uri, name);
}

async function until<T>(what: string, probe: () => Promise<T | undefined> | T | undefined, timeoutMs = 30_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined && value !== false) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

const tests: [string, () => Promise<void>][] = [
  ['activates when a prompt file opens', async () => {
    await vscode.window.showTextDocument(await vscode.workspace.openTextDocument(workspaceFile('homes.prompty')));
    const extension = vscode.extensions.getExtension(EXTENSION_ID);
    assert.ok(extension, `${EXTENSION_ID} is installed`);
    await until('activation', () => extension.isActive || undefined);
  }],
  ['CodeLens shows the exact token total the engine computes', async () => {
    const uri = workspaceFile('homes.prompty');
    const text = readFileSync(uri.fsPath, 'utf8');
    const expected = (await analyzePromptText('homes.prompty', text, new TokenCounter(), { defaultModel: 'gpt-4o' })).prompts[0]!.totalTokens;
    const lenses = await until('code lenses', async () => {
      const found = await vscode.commands.executeCommand<vscode.CodeLens[]>('vscode.executeCodeLensProvider', uri);
      return found?.some((l) => /tokens/.test(l.command?.title ?? '')) ? found : undefined;
    });
    const titles = lenses.map((l) => l.command?.title ?? '');
    assert.ok(titles.includes(`${expected} tokens · 2 messages`), `lens titles: ${titles.join(' | ')}`);
    assert.ok(titles.includes('▶ Run') && titles.includes('Compare revisions'));
  }],
  ['hover on the system message shows its tokens and the encoding', async () => {
    const uri = workspaceFile('homes.prompty');
    const document = await vscode.workspace.openTextDocument(uri);
    const line = document.getText().split('\n').findIndex((l) => l.startsWith('You are a real-estate assistant'));
    const hovers = await vscode.commands.executeCommand<vscode.Hover[]>('vscode.executeHoverProvider', uri, new vscode.Position(line, 4));
    const text = hovers.flatMap((h) => h.contents.map((c) => (typeof c === 'string' ? c : c.value))).join('\n');
    assert.match(text, /this message \(system\)/);
    assert.match(text, /o200k_base · exact for gpt-4o-mini/);
  }],
  ['document symbols list the prompt and its messages', async () => {
    const symbols = await vscode.commands.executeCommand<vscode.DocumentSymbol[]>('vscode.executeDocumentSymbolProvider', workspaceFile('homes.prompt.yml'));
    assert.equal(symbols.length, 1);
    assert.deepEqual(symbols[0]!.children.map((c) => c.name), ['system', 'user']);
  }],
  ['a broken file gets diagnostics', async () => {
    const uri = workspaceFile('broken.prompty');
    await vscode.workspace.openTextDocument(uri);
    const diagnostics = await until('diagnostics', () => {
      const found = vscode.languages.getDiagnostics(uri).filter((d) => d.source === 'Prompt Insight');
      return found.length > 0 ? found : undefined;
    });
    assert.ok(diagnostics.some((d) => /did you mean 'system'/.test(d.message)), diagnostics.map((d) => d.message).join('\n'));
  }],
  ['▶ Run measures a run against the simulator and shows the metrics', async () => {
    const sim = await startSim({ ttftBaseMs: 50, decodeMsPerToken: 2, jitterMs: 0 });
    const settings = vscode.workspace.getConfiguration('promptInsight');
    try {
      await settings.update('endpoints', [{ name: 'Suite simulator', provider: 'openai', baseUrl: sim.url, model: 'sim-1' }], vscode.ConfigurationTarget.Global);
      await settings.update('run.endpoint', 'Suite simulator', vscode.ConfigurationTarget.Global);
      const uri = workspaceFile('homes.prompt.txt');
      await vscode.commands.executeCommand('promptInsight.runPrompt', { uri: uri.toString(), promptName: 'homes', promptIndex: 0 });
      const seen = vscode.workspace.getConfiguration('promptInsight').get('endpoints');
      assert.ok(sim.served() >= 1, `the simulator received the request (endpoints setting: ${JSON.stringify(seen)}; open documents: ${vscode.workspace.textDocuments.map((d) => d.uri.toString()).join(', ')})`);
      // The run document is a content provider's: its text follows the provider's change events.
      const output = await until('a run document with metrics', () => vscode.workspace.textDocuments.find((d) => d.uri.scheme === 'prompt-insight-run' && /## Metrics/.test(d.getText())), 10_000);
      assert.match(output.getText(), /TTFT [\d.]+ m?s · E2E [\d.]+ m?s/);
    } finally {
      await settings.update('endpoints', undefined, vscode.ConfigurationTarget.Global);
      await settings.update('run.endpoint', undefined, vscode.ConfigurationTarget.Global);
      await sim.close();
    }
  }],
  ['Find Capacity: the largest concurrency within the SLOs on a 2-slot simulator, levels and conclusions in its panel', async () => {
    const sim = await startSim({ slots: 2, ttftBaseMs: 40, prefillMsPerInputToken: 0, decodeMsPerToken: 3, outputTokens: 50, jitterMs: 1 });
    const settings = vscode.workspace.getConfiguration('promptInsight');
    try {
      await settings.update('endpoints', [{ name: 'Slots simulator', provider: 'openai', baseUrl: sim.url, model: 'sim-1' }], vscode.ConfigurationTarget.Global);
      await settings.update('run.endpoint', 'Slots simulator', vscode.ConfigurationTarget.Global);
      const uri = workspaceFile('homes.prompt.txt');
      const view = (await vscode.commands.executeCommand('promptInsight.findCapacity', { uri: uri.toString(), promptName: 'homes', promptIndex: 0, requests: 20, limit: 8, attainment: 0.8, slo: ['ttftMs.p90<=100'] })) as { capacity: { maxConcurrencyMeetingSlo: number }; points: { label: string }[]; kept: { stored: boolean; message: string } } | undefined;
      assert.ok(view, 'the command returns what it showed');
      assert.equal(view.capacity.maxConcurrencyMeetingSlo, 2, JSON.stringify(view.points.map((p) => p.label)));
      assert.deepEqual(view.points.map((p) => p.label), ['concurrency 1', 'concurrency 2', 'concurrency 3', 'concurrency 4']);
      // The levels are kept as load points beside the run store, one sealed line each, as `load` keeps them.
      const storedIn = /^Stored 4 load points in (.+runs\.load\.jsonl)$/.exec(view.kept.message)?.[1];
      assert.ok(view.kept.stored && storedIn, view.kept.message);
      const lines = readFileSync(storedIn, 'utf8').trim().split('\n');
      assert.ok(lines.length >= 4 && lines.slice(-4).every((l) => l.includes('"kind":"load-point"')), `${lines.length} lines`);
      // The prompt's runs view lists them, newest first, beside its runs.
      await vscode.commands.executeCommand('promptInsight.showRuns', { uri: uri.toString(), promptName: 'homes', promptIndex: 0 });
      const runsView = await until('the runs view with load points', () => vscode.workspace.textDocuments.find((d) => /Load points \(latest \d+ of \d+\)/.test(d.getText())), 10_000);
      const levels = runsView.getText().split('\n').filter((l) => /Slots simulator/.test(l) && /concurrency \d/.test(l)).map((l) => /concurrency (\d)/.exec(l)![1]);
      assert.deepEqual([...levels].sort(), ['1', '2', '3', '4'], runsView.getText());
    } finally {
      await settings.update('endpoints', undefined, vscode.ConfigurationTarget.Global);
      await settings.update('run.endpoint', undefined, vscode.ConfigurationTarget.Global);
      await sim.close();
    }
  }],
  ['Run ×N of a knowledge prompt with a hallucination case: each run is stored with its grounded verdict, and the hover counts them', async () => {
    // The homes scenario's simulator answers the prompt and, as the judge, the grounded checks' questions.
    const scenario = parseScenario(readFileSync(workspaceFile('homes.sim.yaml').fsPath, 'utf8'));
    const sim = await startSim({ ttftBaseMs: 10, decodeMsPerToken: 0.5, jitterMs: 0, scenario });
    const settings = vscode.workspace.getConfiguration('promptInsight');
    try {
      await settings.update('endpoints', [{ name: 'Knowledge simulator', provider: 'openai', baseUrl: sim.url }], vscode.ConfigurationTarget.Global);
      await settings.update('run.endpoint', 'Knowledge simulator', vscode.ConfigurationTarget.Global);
      await settings.update('judge.endpoint', 'Knowledge simulator', vscode.ConfigurationTarget.Global);
      await settings.update('judge.model', 'sim', vscode.ConfigurationTarget.Global);
      await settings.update('run.repeats', 3, vscode.ConfigurationTarget.Global);
      const uri = workspaceFile('listings.prompty');
      const document = await vscode.workspace.openTextDocument(uri);
      await vscode.commands.executeCommand('promptInsight.runPromptRepeated', { uri: uri.toString(), promptName: 'listings-assistant', promptIndex: 0 });
      const runDoc = await until('a run document with metrics for the listings', () => vscode.workspace.textDocuments.find((d) => d.uri.scheme === 'prompt-insight-run' && /## Metrics/.test(d.getText()) && /listings-assistant/.test(d.getText())), 30_000);
      // Each answer was judged (the judge named in the settings), not left "no judge configured".
      assert.doesNotMatch(runDoc.getText(), /no judge configured/, runDoc.getText().slice(0, 2000));
      // The language server reads the stored runs: three, each judged clean (the simulated assistant quotes the listed price).
      const line = document.getText().split('\n').findIndex((l) => l.startsWith('You answer questions'));
      assert.ok(line > 0, 'the system message of listings.prompty');
      const hover = await until('a hover with the hallucination rate of the stored runs', async () => {
        const hovers = (await vscode.commands.executeCommand('vscode.executeHoverProvider', uri, new vscode.Position(line, 2))) as vscode.Hover[];
        const text = hovers.flatMap((h) => h.contents.map((c) => (typeof c === 'string' ? c : c.value))).join('\n');
        return /hallucination \d+\/\d+/.test(text) ? text : undefined;
      }, 30_000);
      assert.match(hover, /hallucination 0\/3 \(0%, 95% CI 0–56%\)/, hover);
    } finally {
      for (const key of ['endpoints', 'run.endpoint', 'judge.endpoint', 'judge.model', 'run.repeats']) await settings.update(key, undefined, vscode.ConfigurationTarget.Global);
      await sim.close();
    }
  }],
  ['HTTP runs read their sockets in a worker thread inside this host, from the installed dist/socketWorker.js', async () => {
    const extension = vscode.extensions.getExtension(EXTENSION_ID);
    assert.ok(extension, 'the extension is installed');
    const script = path.join(extension.extensionPath, 'dist', 'socketWorker.js');
    const noFallback: Wire = {
      configure: () => undefined,
      send: () => {
        throw new Error('the worker did not start, the in-thread fallback was used');
      },
    };
    const sim = await startSim({ ttftBaseMs: 80, decodeMsPerToken: 2, jitterMs: 0, outputTokens: 10 });
    try {
      const transport = httpTransport({ name: 'sim', provider: 'openai', baseUrl: sim.url }, undefined, workerWire(script, noFallback));
      const { record } = await runOnce(transport, { model: 'sim-1', messages: [{ role: 'user', content: 'Find homes nearby.' }], params: {} }, { timeoutMs: 10_000, countTokens: () => 1, inputTokensEstimate: null });
      assert.equal(record.error, null, JSON.stringify(record.error));
      assert.ok(record.ttftMs! >= 79 && record.ttftMs! < 80 + 50, `TTFT ${record.ttftMs} ms for a scripted 80 ms`);
      // No closer bound here: this simulator shares the busy extension-host thread, so its own stamps are late (bench ttft measures accuracy).
    } finally {
      await sim.close();
    }
  }],
  ['the VS Code Language Model adapter reports a missing model clearly instead of failing silently', async () => {
    const settings = vscode.workspace.getConfiguration('promptInsight');
    try {
      await settings.update('endpoints', [{ name: 'Editor models', provider: 'vscode-lm', model: 'no-such-model' }], vscode.ConfigurationTarget.Global);
      await settings.update('run.endpoint', 'Editor models', vscode.ConfigurationTarget.Global);
      const uri = workspaceFile('homes.prompty');
      await vscode.commands.executeCommand('promptInsight.runPrompt', { uri: uri.toString(), promptName: 'homes-assistant', promptIndex: 0 });
      const output = await until('a run document with the error', () => vscode.workspace.textDocuments.find((d) => d.uri.scheme === 'prompt-insight-run' && /Request failed \(/.test(d.getText())), 10_000);
      // Read as the preview shows it: the server's words are written with every punctuation mark escaped (inert Markdown).
      assert.match(output.getText().replace(/\\([!-/:-@[-`{-~])/g, '$1'), /No VS Code language model 'no-such-model' is available/);
    } finally {
      await settings.update('endpoints', undefined, vscode.ConfigurationTarget.Global);
      await settings.update('run.endpoint', undefined, vscode.ConfigurationTarget.Global);
    }
  }],
  ['▶ Run on a VS Code language model registered in this host: the answer, its metrics and the adapter timing', async () => {
    // lm.registerLanguageModelChatProvider is newer than the @types/vscode the extension builds against (1.95).
    const lm = vscode.lm as unknown as { registerLanguageModelChatProvider?: (vendor: string, provider: unknown) => vscode.Disposable };
    assert.ok(typeof lm.registerLanguageModelChatProvider === 'function', `this VS Code (${vscode.version}) cannot register a language model`);
    const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));
    const registration = lm.registerLanguageModelChatProvider('pi-suite', {
      provideLanguageModelChatInformation: () => [{ id: 'pi-suite-model', name: 'Suite model', family: 'pi-suite', version: '1', maxInputTokens: 8000, maxOutputTokens: 1000, capabilities: {} }],
      async provideLanguageModelChatResponse(_model: unknown, _messages: unknown, _options: unknown, progress: vscode.Progress<unknown>) {
        await pause(150);
        progress.report(new vscode.LanguageModelTextPart('Detached'));
        await pause(60);
        progress.report(new vscode.LanguageModelTextPart(' houses only.'));
      },
      provideTokenCount: async (_model: unknown, text: unknown) => String(text).length,
    });
    const settings = vscode.workspace.getConfiguration('promptInsight');
    try {
      await settings.update('endpoints', [{ name: 'Editor models', provider: 'vscode-lm', model: 'pi-suite-model' }], vscode.ConfigurationTarget.Global);
      await settings.update('run.endpoint', 'Editor models', vscode.ConfigurationTarget.Global);
      await vscode.commands.executeCommand('promptInsight.runPrompt', { uri: workspaceFile('homes.prompty').toString(), promptName: 'homes-assistant', promptIndex: 0 });
      const output = await until('a run document from the editor model', () => vscode.workspace.textDocuments.find((d) => d.uri.scheme === 'prompt-insight-run' && /## Metrics/.test(d.getText()) && /Detached houses only/.test(d.getText())), 15_000);
      assert.match(output.getText(), /TTFT [\d.]+ m?s/);
      const transport = languageModelTransport({ name: 'Editor models', provider: 'vscode-lm', baseUrl: '', model: 'pi-suite-model' });
      const { record, text } = await runOnce(transport, { model: 'pi-suite-model', messages: [{ role: 'user', content: 'Find homes nearby.' }], params: {} }, { timeoutMs: 10_000, countTokens: (t) => t.split(' ').length, inputTokensEstimate: 4 });
      assert.equal(record.error, null, JSON.stringify(record.error));
      assert.equal(text.answer, 'Detached houses only.');
      // Not early; and the first part, not the whole answer (a busy host delays both, so no upper bound in ms).
      assert.ok(record.ttftMs! >= 149 && record.ttftMs! <= record.e2eMs!, `TTFT ${record.ttftMs} ms for a model that answers after 150 ms (E2E ${record.e2eMs} ms)`);
      // The parts travel provider → workbench → consumer, so the first may arrive late; the last cannot arrive early.
      assert.ok(record.e2eMs! >= 209, `E2E ${record.e2eMs} ms for parts reported at 150 and 210 ms`);
      assert.equal(record.itlMs.length, 1, `two arrivals, one gap: ${JSON.stringify(record.itlMs)}`);
      assert.equal(record.outputTokensSource, 'estimate');
    } finally {
      await settings.update('endpoints', undefined, vscode.ConfigurationTarget.Global);
      await settings.update('run.endpoint', undefined, vscode.ConfigurationTarget.Global);
      registration.dispose();
    }
  }],
];

/** Runs every test; never throws for a failing test, so all results are reported. */
export async function runSuite(): Promise<SuiteResult[]> {
  const results: SuiteResult[] = [];
  for (const [name, test] of tests) {
    const started = Date.now();
    try {
      await test();
      results.push({ name, ok: true, ms: Date.now() - started });
    } catch (error) {
      results.push({ name, ok: false, error: (error as Error)?.stack ?? String(error), ms: Date.now() - started });
    }
  }
  return results;
}

/** @vscode/test-electron's entry: throws when any test failed. */
export async function run(): Promise<void> {
  const results = await runSuite();
  for (const r of results) console.log(`${r.ok ? '✓' : '✗'} ${r.name} (${r.ms} ms)${r.error ? `\n${r.error}` : ''}`);
  const failed = results.filter((r) => !r.ok);
  if (failed.length > 0) throw new Error(`${failed.length} of ${results.length} integration tests failed`);
}
