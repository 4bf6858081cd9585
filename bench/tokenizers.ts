/**
 * Tokenizer speed and exactness: js-tiktoken (the card's package), gpt-tokenizer, OpenAI's tiktoken
 * (WASM) and Prompt Insight's engine (src/core/tokens: own merge loop over gpt-tokenizer's rank
 * tables, segment-cached; caches emptied before every run), one
 * run, same corpora, counts checked against tiktoken.
 */
import { execFileSync } from 'node:child_process';
import { getEncoding } from 'js-tiktoken';
import gptO200k from 'gpt-tokenizer/encoding/o200k_base';
import gptCl100k from 'gpt-tokenizer/encoding/cl100k_base';
import { get_encoding } from 'tiktoken';
import { TokenCounter } from '../src/core/tokens/counter';
import { loadEncoder } from '../src/core/tokens/engine';
import type { EncodingName } from '../src/core/tokens/encodingNames';
import { chineseCorpus, codeCorpus, englishCorpus } from '../test/fixtures/corpora.mjs';
import { fmt, median, table } from './stats';

const RUNS = Number(process.env.BENCH_RUNS ?? 7);
const SLOW_RUNS = 3; // js-tiktoken on Chinese takes seconds per run

interface Engine {
  name: string;
  count(text: string): number;
  /** Forget caches so every run is a first count. */
  reset(): void;
}

async function engines(encoding: EncodingName): Promise<Engine[]> {
  const js = getEncoding(encoding);
  const gpt = encoding === 'o200k_base' ? gptO200k : gptCl100k;
  const wasm = get_encoding(encoding);
  const ours = await loadEncoder(encoding);
  let counter = new TokenCounter();
  return [
    { name: 'js-tiktoken 1.0.21', count: (t) => js.encode(t, [], []).length, reset: () => undefined },
    { name: 'gpt-tokenizer 4.0.0', count: (t) => gpt.countTokens(t, { disallowedSpecial: new Set() }), reset: () => gpt.clearMergeCache() },
    { name: 'tiktoken 1.0.22 (WASM)', count: (t) => wasm.encode_ordinary(t).length, reset: () => undefined },
    {
      name: 'Prompt Insight (cold cache)',
      count: (t) => counter.count(ours, t),
      reset: () => {
        counter = new TokenCounter();
        ours.clearCache();
      },
    },
  ];
}

const ENGINE_NAMES = ['js-tiktoken 1.0.21', 'gpt-tokenizer 4.0.0', 'tiktoken 1.0.22 (WASM)', 'Prompt Insight (cold cache)'];
const CORPORA: Record<string, () => string> = {
  'English 211k chars': () => englishCorpus(211_000),
  'code 215k chars': () => codeCorpus(215_000),
  'Chinese 120k chars': () => chineseCorpus(120_000),
};

/** Child-process side: one engine, one encoding, one corpus; prints {count, times}. */
export async function measureOne(engineName: string, encoding: EncodingName, corpus: string): Promise<void> {
  const engine = (await engines(encoding)).find((e) => e.name === engineName)!;
  const text = CORPORA[corpus]!();
  const runs = engineName.startsWith('js-tiktoken') && corpus.startsWith('Chinese') ? SLOW_RUNS : RUNS;
  const times: number[] = [];
  let count = 0;
  for (let i = 0; i < runs; i++) {
    engine.reset();
    const start = performance.now();
    count = engine.count(text);
    times.push(performance.now() - start);
  }
  process.stdout.write(JSON.stringify({ count, times }));
}

/**
 * Each engine runs in its own process, so no engine inherits another's heap, JIT state or GC debt;
 * within it, the median of several runs with caches emptied before each.
 */
export async function benchTokenizers(): Promise<string> {
  const out: string[] = [];
  for (const encoding of ['o200k_base', 'cl100k_base'] as EncodingName[]) {
    const oracle = get_encoding(encoding);
    const rows: (string | number)[][] = [];
    for (const [label, make] of Object.entries(CORPORA)) {
      const text = make();
      const megabytes = Buffer.byteLength(text, 'utf8') / 1e6;
      const expected = oracle.encode_ordinary(text).length;
      const medians: Record<string, number> = {};
      for (const name of ENGINE_NAMES) {
        const result = execFileSync(process.execPath, [...process.execArgv, __filename, '--one', name, encoding, label], { encoding: 'utf8', maxBuffer: 1 << 20 });
        const { count, times } = JSON.parse(result) as { count: number; times: number[] };
        const ms = median(times);
        medians[name] = ms;
        rows.push([label, name, count === expected ? 'yes' : `NO (${count} vs ${expected})`, fmt(times[0]!), fmt(ms), fmt(megabytes / (ms / 1000))]);
      }
      const ours = medians['Prompt Insight (cold cache)']!;
      rows.push([label, 'ours vs js-tiktoken / gpt-tokenizer / tiktoken', '', '', `${fmt(medians['js-tiktoken 1.0.21']! / ours)}× / ${fmt(medians['gpt-tokenizer 4.0.0']! / ours)}× / ${fmt(medians['tiktoken 1.0.22 (WASM)']! / ours)}×`, '']);
    }
    oracle.free();
    out.push(`### ${encoding} (median of ${RUNS} runs, ${SLOW_RUNS} for js-tiktoken on Chinese; one process per engine)\n\n${table(['corpus', 'engine', 'same as tiktoken', 'first run ms', 'median ms', 'MB/s (UTF-8, median)'], rows)}`);
  }
  return out.join('\n\n');
}

if (process.argv[2] === '--one') {
  void measureOne(process.argv[3]!, process.argv[4] as EncodingName, process.argv[5]!);
}
