/**
 * Cold start, as a one-shot CLI call or a fresh language server sees it: whole processes (a bare
 * `node -e 0`, `prompt-insight tokens` on a one-line file, and each peer counting that line in a
 * bare script), and the first count of each corpus in a fresh process (load + count), peers side by side.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import * as esbuild from 'esbuild';
import { chineseCorpus, codeCorpus, englishCorpus } from '../test/fixtures/corpora.mjs';
import { fmt, median, table } from './stats';

const RUNS = Number(process.env.BENCH_RUNS ?? 9);
const CORPORA: Record<string, () => string> = {
  'English 211k chars': () => englishCorpus(211_000),
  'code 215k chars': () => codeCorpus(215_000),
  'Chinese 120k chars': () => chineseCorpus(120_000),
};

function wallMs(args: string[], cwd?: string): number {
  const start = performance.now();
  const child = spawnSync(process.execPath, args, { stdio: ['ignore', 'ignore', 'pipe'], ...(cwd ? { cwd } : {}) });
  if (child.status !== 0) throw new Error(`${args.join(' ')} failed: ${child.stderr}`);
  return performance.now() - start;
}

/** A fresh process that counts `file` with one engine and prints { loadMs, countMs } (from its own start). */
function firstCount(engine: string, file: string): { loadMs: number; countMs: number } {
  const scripts: Record<string, string> = {
    'Prompt Insight': `const t0 = performance.now(); const { loadEncoder } = require(${JSON.stringify(resolve('dist/benchEngine.js'))}); loadEncoder('o200k_base').then((e) => { const t1 = performance.now(); const text = require('fs').readFileSync(process.argv[1], 'utf8'); const n = e.count(text); console.log(JSON.stringify({ loadMs: t1 - t0, countMs: performance.now() - t1, n })); });`,
    'tiktoken 1.0.22 (WASM)': `const t0 = performance.now(); const { get_encoding } = require('tiktoken'); const e = get_encoding('o200k_base'); const t1 = performance.now(); const text = require('fs').readFileSync(process.argv[1], 'utf8'); const n = e.encode_ordinary(text).length; console.log(JSON.stringify({ loadMs: t1 - t0, countMs: performance.now() - t1, n }));`,
    'gpt-tokenizer 4.0.0': `const t0 = performance.now(); const g = require('gpt-tokenizer/cjs/encoding/o200k_base'); const t1 = performance.now(); const text = require('fs').readFileSync(process.argv[1], 'utf8'); const n = g.countTokens(text, { disallowedSpecial: new Set() }); console.log(JSON.stringify({ loadMs: t1 - t0, countMs: performance.now() - t1, n }));`,
  };
  const child = spawnSync(process.execPath, ['-e', scripts[engine]!, file], { encoding: 'utf8', cwd: resolve('.') });
  if (child.status !== 0) throw new Error(`${engine}: ${child.stderr}`);
  return JSON.parse(child.stdout) as { loadMs: number; countMs: number };
}

/** The engine alone, bundled beside dist/*.ranks as the shipped bundles are (bench only, not shipped). */
async function buildBenchEngine(): Promise<void> {
  await esbuild.build({
    entryPoints: ['src/core/tokens/engine.ts'], bundle: true, platform: 'node', format: 'cjs', target: 'node20', outfile: 'dist/benchEngine.js', logLevel: 'warning',
    plugins: [{ name: 'rank-tables', setup: (build) => void build.onResolve({ filter: /^gpt-tokenizer\/bpeRanks\/\w+$/ }, (args) => ({ path: `./missing-${args.path}.mjs`, external: true })) }],
  });
}

export async function benchColdStart(): Promise<string> {
  await buildBenchEngine();
  const dir = mkdtempSync(join(tmpdir(), 'pi-cold-'));
  const small = join(dir, 'small.prompt.txt');
  writeFileSync(small, 'Find homes nearby.\n');
  const cli = resolve('dist/cli.js');
  const whole: Record<string, number[]> = { 'node -e 0': [], 'prompt-insight tokens small.prompt.txt': [], 'tiktoken (WASM) in a bare script': [], 'gpt-tokenizer in a bare script': [] };
  for (let i = 0; i < RUNS; i++) {
    whole['node -e 0']!.push(wallMs(['-e', '0']));
    whole['prompt-insight tokens small.prompt.txt']!.push(wallMs([cli, 'tokens', small]));
    whole['tiktoken (WASM) in a bare script']!.push(wallMs(['-e', `require('tiktoken').get_encoding('o200k_base').encode_ordinary(require('fs').readFileSync(${JSON.stringify(small)}, 'utf8'))`], resolve('.')));
    whole['gpt-tokenizer in a bare script']!.push(wallMs(['-e', `require('gpt-tokenizer/cjs/encoding/o200k_base').countTokens(require('fs').readFileSync(${JSON.stringify(small)}, 'utf8'))`], resolve('.')));
  }
  const bare = median(whole['node -e 0']!);
  const wholeRows = Object.entries(whole).map(([name, times]) => [name, fmt(times[0]!, 0), fmt(median(times), 0), `${fmt(median(times) / bare, 2)}×`]);

  const firstRows: (string | number)[][] = [];
  for (const [label, make] of Object.entries(CORPORA)) {
    const file = join(dir, `${label.split(' ')[0]}.txt`);
    writeFileSync(file, make());
    for (const engine of ['Prompt Insight', 'tiktoken 1.0.22 (WASM)', 'gpt-tokenizer 4.0.0']) {
      const runs = Array.from({ length: 5 }, () => firstCount(engine, file));
      firstRows.push([label, engine, fmt(median(runs.map((r) => r.loadMs)), 0), fmt(median(runs.map((r) => r.countMs)), 0), fmt(median(runs.map((r) => r.loadMs + r.countMs)), 0)]);
    }
  }
  return [
    `### Cold start: whole processes (o200k_base; ${RUNS} runs; first and median wall ms)\n\n${table(['process', 'first ms', 'median ms', 'vs node -e 0'], wholeRows)}`,
    `### First count in a fresh process (o200k_base; median of 5 processes; ms from the process's first line)\n\n${table(['corpus', 'engine', 'load ms', 'first count ms', 'total ms'], firstRows)}`,
  ].join('\n\n');
}
