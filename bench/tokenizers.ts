/**
 * Tokenizer speed and exactness: js-tiktoken (the card's package), gpt-tokenizer, OpenAI's tiktoken
 * (WASM) and Prompt Insight's engine (src/core/tokens: own merge loop over gpt-tokenizer's rank
 * tables, segment-cached; caches emptied before every run), one
 * run, same corpora, counts checked against tiktoken.
 */
import { getEncoding } from 'js-tiktoken';
import gptO200k from 'gpt-tokenizer/encoding/o200k_base';
import gptCl100k from 'gpt-tokenizer/encoding/cl100k_base';
import { get_encoding } from 'tiktoken';
import { TokenCounter } from '../src/core/tokens/counter';
import { loadEncoder, type EncodingName } from '../src/core/tokens/engine';
import { chineseCorpus, codeCorpus, englishCorpus } from '../test/fixtures/corpora.mjs';
import { fmt, median, table } from './stats';

const RUNS = Number(process.env.BENCH_RUNS ?? 5);
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

export async function benchTokenizers(): Promise<string> {
  const corpora: [string, string][] = [
    ['English 211k chars', englishCorpus(211_000)],
    ['code 215k chars', codeCorpus(215_000)],
    ['Chinese 120k chars', chineseCorpus(120_000)],
  ];
  const out: string[] = [];
  for (const encoding of ['o200k_base', 'cl100k_base'] as EncodingName[]) {
    const oracle = get_encoding(encoding);
    const rows: (string | number)[][] = [];
    const list = await engines(encoding);
    for (const [label, text] of corpora) {
      const megabytes = Buffer.byteLength(text, 'utf8') / 1e6;
      const expected = oracle.encode_ordinary(text).length;
      const base: Record<string, number> = {};
      for (const engine of list) {
        const runs = engine.name.startsWith('js-tiktoken') && label.startsWith('Chinese') ? SLOW_RUNS : RUNS;
        const times: number[] = [];
        let count = 0;
        for (let i = 0; i < runs; i++) {
          engine.reset();
          const start = performance.now();
          count = engine.count(text);
          times.push(performance.now() - start);
        }
        const ms = median(times);
        base[engine.name] = ms;
        rows.push([label, engine.name, count === expected ? 'yes' : `NO (${count} vs ${expected})`, fmt(ms), fmt(megabytes / (ms / 1000))]);
      }
      const ours = base['Prompt Insight (cold cache)']!;
      rows.push([label, 'speed-up of ours vs js-tiktoken', '', `${fmt(base['js-tiktoken 1.0.21']! / ours)}×`, '']);
    }
    oracle.free();
    out.push(`### ${encoding} (median of ${RUNS} runs; js-tiktoken on Chinese: ${SLOW_RUNS})\n\n${table(['corpus', 'engine', 'same as tiktoken', 'ms', 'MB/s (UTF-8)'], rows)}`);
  }
  return out.join('\n\n');
}
