/**
 * Language-server latency, measured over stdio against the built server (dist/server.js):
 * start → first answer, and hover on a 200k-character Chinese prompt file, after the first count
 * and after one-character edits. Beside it: what one full recount of that file costs with
 * js-tiktoken and with gpt-tokenizer, i.e. what a server without incremental counting would pay.
 */
import { spawn } from 'node:child_process';
import { performance } from 'node:perf_hooks';
import { getEncoding } from 'js-tiktoken';
import gptO200k from 'gpt-tokenizer/encoding/o200k_base';
import { CodeLensRequest, DidOpenTextDocumentNotification, HoverRequest } from 'vscode-languageserver-protocol/node';
import { LspHarness } from '../test/server/lspHarness';
import { seededRandom } from '../src/core/stats/random';
import { chineseCorpus } from '../test/fixtures/corpora.mjs';
import { fmt, median, quantile, table } from './stats';

const HOVERS = 200;
const EDITS = 100;
const STARTS = 9;

/** Spawn → the first line of a bare script's output: what Node itself takes before any server code runs. */
async function nodeBootstrapMs(): Promise<number> {
  const t0 = performance.now();
  const child = spawn(process.execPath, ['-e', 'process.stdout.write("up")'], { stdio: ['ignore', 'pipe', 'ignore'] });
  await new Promise((resolve) => child.stdout.once('data', resolve));
  const ms = performance.now() - t0;
  await new Promise((resolve) => child.on('exit', resolve));
  return ms;
}

export async function benchHover(): Promise<string> {
  const starts: number[] = [];
  const firstLenses: number[] = [];
  const bootstraps: number[] = [];
  for (let i = 0; i < STARTS; i++) {
    bootstraps.push(await nodeBootstrapMs());
    const t0 = performance.now();
    const server = new LspHarness();
    await server.initialize();
    starts.push(performance.now() - t0);
    // The first answer that needs tokens: the encoder is loaded by then (rank file + index).
    // Opened without waiting for diagnostics (those come after a deliberate 150 ms pause).
    const uri = 'file:///tmp/prompt-insight-bench/small.prompty';
    await server.connection.sendNotification(DidOpenTextDocumentNotification.type, { textDocument: { uri, languageId: 'prompty', version: 1, text: '---\nname: small\n---\nuser:\nFind homes nearby.\n' } });
    const lenses = await server.connection.sendRequest(CodeLensRequest.type, { textDocument: { uri } });
    if (!lenses?.length) throw new Error('no CodeLens for the small prompt');
    firstLenses.push(performance.now() - t0);
    await server.dispose();
  }

  const body = chineseCorpus(200_000);
  const text = `---\nname: big\nmodel:\n  api: chat\n  configuration:\n    name: gpt-4o\n---\nsystem:\n${body}\n\nuser:\n请找附近的独栋房子。\n`;
  const lines = text.split('\n');
  const server = new LspHarness();
  await server.initialize();
  const t0 = performance.now();
  const { uri } = await server.open('bench/big.prompty', text);
  const firstCountMs = performance.now() - t0;

  const random = seededRandom(42);
  const randomPosition = () => {
    const line = 8 + Math.floor(random() * (lines.length - 12));
    return { line, character: Math.floor(random() * Math.max(1, lines[line]!.length)) };
  };
  const hoverTimes: number[] = [];
  for (let i = 0; i < HOVERS; i++) {
    const start = performance.now();
    const hover = await server.connection.sendRequest(HoverRequest.type, { textDocument: { uri }, position: randomPosition() });
    hoverTimes.push(performance.now() - start);
    if (!hover) throw new Error('no hover on the big file');
  }

  const editTimes: number[] = [];
  for (let i = 0; i < EDITS; i++) {
    const position = randomPosition();
    const start = performance.now();
    await server.change(uri, i + 2, [{ range: { start: position, end: position }, text: '房' }]);
    const hover = await server.connection.sendRequest(HoverRequest.type, { textDocument: { uri }, position });
    editTimes.push(performance.now() - start);
    if (!hover) throw new Error('no hover after edit');
  }
  await server.dispose();

  const js = getEncoding('o200k_base');
  let t = performance.now();
  js.encode(body, [], []);
  const jsFullMs = performance.now() - t;
  const fullGpt: number[] = [];
  for (let i = 0; i < 5; i++) {
    gptO200k.clearMergeCache();
    t = performance.now();
    gptO200k.countTokens(body, { disallowedSpecial: new Set() });
    fullGpt.push(performance.now() - t);
  }

  const ownStarts = firstLenses.map((ms, i) => ms - bootstraps[i]!);
  const rows = [
    [`node bootstrap: spawn → a bare script's first output (${STARTS} starts)`, fmt(median(bootstraps)), fmt(Math.max(...bootstraps)), ''],
    [`server spawn → initialize answered (${STARTS} starts)`, fmt(median(starts)), fmt(Math.max(...starts)), '< 300 ms'],
    [`server spawn → first token CodeLens of a small prompt (${STARTS} starts)`, fmt(median(firstLenses)), fmt(Math.max(...firstLenses)), ''],
    ['the server\'s own part: first CodeLens − node bootstrap (same start pairs)', fmt(median(ownStarts)), fmt(Math.max(...ownStarts)), '< 100 ms'],
    ['open 200k-char Chinese file → first diagnostics (first count)', fmt(firstCountMs), '', ''],
    [`hover after the first count (${HOVERS} hovers)`, fmt(median(hoverTimes), 2), fmt(quantile(hoverTimes, 0.95), 2), 'p95 < 50 ms'],
    [`one-character edit → hover answered (${EDITS} edits)`, fmt(median(editTimes), 2), fmt(quantile(editTimes, 0.95), 2), 'p95 < 10 ms'],
    ['peer: full recount of the file, js-tiktoken (1 run)', fmt(jsFullMs), '', ''],
    ['peer: full recount of the file, gpt-tokenizer, no cache (5 runs)', fmt(median(fullGpt)), fmt(Math.max(...fullGpt)), ''],
  ];
  return `### Language server (stdio, dist/server.js)\n\n${table(['measurement', 'median ms', 'p95/max ms', 'bar'], rows)}`;
}
