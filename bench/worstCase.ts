/**
 * The merge's worst case: one pre-tokenised piece of n characters ('A'×n, 'ab'×n/2, '.'×n), peers
 * side by side, each engine in its own process and stopped after 60 s. Plus the whole `tokens`
 * process on a file holding such a piece. Counts checked against tiktoken where it finished.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { getEncoding } from 'js-tiktoken';
import gptO200k from 'gpt-tokenizer/encoding/o200k_base';
import { get_encoding } from 'tiktoken';
import { loadEncoder } from '../src/core/tokens/engine';
import { fmt, median, table } from './stats';

const LIMIT_MS = 30_000;
const SIZES = [25_000, 50_000, 100_000, 200_000];
const PIECES: Record<string, (n: number) => string> = {
  "'A'×n": (n) => 'A'.repeat(n),
  "'ab'×n/2": (n) => 'ab'.repeat(n / 2),
  "'.'×n": (n) => '.'.repeat(n),
};
/** Thai without a space: one piece too long for the regex engine's backtrack stack (longPieces.ts); 'สวัสดีครับ' is 10 code units. */
const THAI_PIECE = "'สวัสดีครับ'×n/10";
const THAI_UNITS = 8_000_000; // 24 MB of UTF-8
const ENGINES = ['Prompt Insight', 'tiktoken 1.0.22 (WASM)', 'gpt-tokenizer 4.0.0', 'js-tiktoken 1.0.21'];

/** Child side: one engine, one text; prints {count, times} (3 runs for ours, 1 for the slow peers). */
async function measureOne(engine: string, piece: string, n: number): Promise<void> {
  const text = piece === THAI_PIECE ? 'สวัสดีครับ'.repeat(n / 10) : PIECES[piece]!(n);
  const ours = await loadEncoder('o200k_base');
  const js = engine.startsWith('js-tiktoken') ? getEncoding('o200k_base') : undefined;
  const wasm = engine.startsWith('tiktoken') ? get_encoding('o200k_base') : undefined;
  const count = (): number => {
    if (engine === 'Prompt Insight') {
      ours.clearCache();
      return ours.count(text);
    }
    if (wasm) return wasm.encode_ordinary(text).length;
    if (js) return js.encode(text, [], []).length;
    gptO200k.clearMergeCache();
    return gptO200k.countTokens(text, { disallowedSpecial: new Set() });
  };
  const times: number[] = [];
  let result = 0;
  for (let i = 0; i < (engine === 'Prompt Insight' ? 3 : 1); i++) {
    const start = performance.now();
    result = count();
    times.push(performance.now() - start);
  }
  process.stdout.write(JSON.stringify({ count: result, times }));
}

export async function benchWorstCase(): Promise<string> {
  const rows: (string | number)[][] = [];
  const skip = new Set<string>(); // an engine that hit the limit is not run on larger n of that piece
  for (const piece of Object.keys(PIECES)) {
    for (const n of SIZES) {
      const results: Record<string, { count: number; ms: number } | 'limit'> = {};
      for (const engine of ENGINES) {
        const key = `${engine}|${piece}`;
        if (skip.has(key)) {
          results[engine] = 'limit';
          continue;
        }
        const child = spawnSync(process.execPath, [...process.execArgv, __filename, '--one', engine, piece, String(n)], { encoding: 'utf8', timeout: LIMIT_MS, maxBuffer: 1 << 20 });
        if (child.status !== 0 || !child.stdout) {
          results[engine] = 'limit';
          skip.add(key);
          continue;
        }
        const { count, times } = JSON.parse(child.stdout) as { count: number; times: number[] };
        results[engine] = { count, ms: median(times) };
      }
      const reference = results['tiktoken 1.0.22 (WASM)'];
      const cell = (engine: string): string => {
        const r = results[engine]!;
        if (r === 'limit') return `> ${LIMIT_MS / 1000} s`;
        const exact = reference === 'limit' || reference === undefined ? '' : r.count === reference.count ? '' : ' (count differs!)';
        return `${fmt(r.ms, 0)} ms${exact}`;
      };
      rows.push([piece, n, ...ENGINES.map(cell)]);
    }
  }
  // The whole process: `prompt-insight tokens` on a file holding one 200,000-character piece.
  const dir = mkdtempSync(join(tmpdir(), 'pi-worst-'));
  const file = join(dir, 'piece.prompt.txt');
  writeFileSync(file, 'A'.repeat(200_000));
  const cli = resolve('dist/cli.js');
  const wall: number[] = [];
  for (let i = 0; i < 5; i++) {
    const start = performance.now();
    execFileSync(process.execPath, [cli, 'tokens', file], { stdio: 'ignore' });
    wall.push(performance.now() - start);
  }
  // 24 MB of Thai in one piece: the JavaScript regex engines overflow their backtrack stack; tiktoken's merge is quadratic.
  const thai = ENGINES.map((engine) => {
    const child = spawnSync(process.execPath, [...process.execArgv, __filename, '--one', engine, THAI_PIECE, String(THAI_UNITS)], { encoding: 'utf8', timeout: LIMIT_MS, maxBuffer: 1 << 20 });
    if (child.status === 0 && child.stdout) {
      const { count, times } = JSON.parse(child.stdout) as { count: number; times: number[] };
      return `${fmt(median(times), 0)} ms (${count} tokens)`;
    }
    return /Maximum call stack/.test(child.stderr ?? '') ? 'fails: Maximum call stack size exceeded' : `> ${LIMIT_MS / 1000} s`;
  });
  rows.push([THAI_PIECE, THAI_UNITS, ...thai]);
  return `### Worst case: one piece of n characters, o200k_base (first count in a fresh process; ours median of 3; peers 1 run, stopped at ${LIMIT_MS / 1000} s)\n\n${table(['piece', 'n', ...ENGINES], rows)}\n\nWhole process, \`prompt-insight tokens\` on a file of 'A'×200,000: median ${fmt(median(wall), 0)} ms (first ${fmt(wall[0]!, 0)} ms, 5 runs).`;
}

if (process.argv[2] === '--one') {
  void measureOne(process.argv[3]!, process.argv[4]!, Number(process.argv[5]));
}
