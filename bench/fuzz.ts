/**
 * Open-ended fuzzing, kept out of the test suite so that CI runs are reproducible (the tests use one
 * fixed seed, test/fixtures/propertySeed.ts). Each property runs with a fresh seed until its time is
 * up; a failure prints the seed and fast-check's counterexample, and replays in a test with
 * PROPERTY_SEED=<seed>. `npm run bench fuzz` (FUZZ_SECONDS per property, default 20; FUZZ_SEED=<n>
 * to start from a given seed). `npm run bench unicode-scan`: every code point (U+0000–U+10FFFF) in
 * contexts that show its letter/number/mark class, ids compared with tiktoken (about 2 minutes).
 */
import fc from 'fast-check';
import { get_encoding, type Tiktoken } from 'tiktoken';
import { analyzePromptText } from '../src/core/analysis';
import type { PromptFormat } from '../src/core/formats/model';
import { TokenCounter } from '../src/core/tokens/counter';
import { loadEncoder, type TokenEncoder } from '../src/core/tokens/engine';
import type { EncodingName } from '../src/core/tokens/encodingNames';
import { splitAtSafeBoundaries } from '../src/core/tokens/segments';
import { table } from './stats';

const NAMES: EncodingName[] = ['o200k_base', 'cl100k_base'];
const FORMATS: PromptFormat[] = ['prompty', 'github-prompt-yaml', 'dotprompt', 'vscode-prompt-md', 'text'];

interface Oracles {
  tiktoken: Map<EncodingName, Tiktoken>;
  ours: Map<EncodingName, TokenEncoder>;
}

async function loadOracles(): Promise<Oracles> {
  const tiktoken = new Map<EncodingName, Tiktoken>();
  const ours = new Map<EncodingName, TokenEncoder>();
  for (const name of NAMES) {
    tiktoken.set(name, get_encoding(name));
    ours.set(name, await loadEncoder(name));
  }
  return { tiktoken, ours };
}

/** Any text: code points from every plane, graphemes, and runs of one class (long pieces). */
const anyText = fc.oneof(
  fc.string({ unit: 'binary', maxLength: 400 }),
  fc.string({ unit: 'grapheme', maxLength: 200 }),
  fc.tuple(fc.integer({ min: 0, max: 0x10ffff }), fc.integer({ min: 1, max: 2000 })).map(([c, n]) => (c >= 0xd800 && c <= 0xdfff ? 'x' : String.fromCodePoint(c)).repeat(n)),
);

function sameAsTiktoken({ tiktoken, ours }: Oracles): fc.IPropertyWithHooks<[string]> {
  return fc.property(anyText, (text) => {
    for (const name of NAMES) {
      const expected = [...tiktoken.get(name)!.encode_ordinary(text)];
      const got = ours.get(name)!.encode(text);
      if (got.join() !== expected.join()) throw new Error(`${name}: ${got.length} tokens, tiktoken ${expected.length}`);
      const parts = splitAtSafeBoundaries(text).reduce((sum, part) => sum + ours.get(name)!.count(part), 0);
      if (parts !== expected.length) throw new Error(`${name}: the safe cuts sum to ${parts}, tiktoken ${expected.length}`);
    }
  });
}

function parsersNeverThrow(): fc.IAsyncPropertyWithHooks<[string, PromptFormat]> {
  const counter = new TokenCounter();
  return fc.asyncProperty(fc.string({ unit: 'binary', maxLength: 600 }), fc.constantFrom(...FORMATS), async (text, format) => {
    const analysis = await analyzePromptText('fuzz', text, counter, { defaultModel: 'gpt-4o', format });
    for (const prompt of analysis.prompts) if (!Number.isInteger(prompt.totalTokens)) throw new Error(`totalTokens ${prompt.totalTokens}`);
  });
}

async function runFor(label: string, property: fc.IRawProperty<unknown[]>, seconds: number, firstSeed: number): Promise<string[]> {
  const end = Date.now() + seconds * 1000;
  let runs = 0;
  let seed = firstSeed;
  while (Date.now() < end) {
    const details = await fc.check(property as fc.IAsyncProperty<unknown[]>, { seed, numRuns: 200 });
    runs += details.numRuns;
    if (details.failed) {
      console.error(`${label}: failed with seed ${seed} (PROPERTY_SEED=${seed} replays it in the tests)\n${fc.defaultReportMessage(details)}`);
      return [label, String(runs), `FAILED, seed ${seed}`];
    }
    seed = (seed + 1) | 0;
  }
  return [label, String(runs), `passed (seeds ${firstSeed}…${seed - 1})`];
}

export async function benchFuzz(): Promise<string> {
  const seconds = Number(process.env.FUZZ_SECONDS ?? 20);
  const firstSeed = Number.parseInt(process.env.FUZZ_SEED ?? '', 10) || (Date.now() ^ (Math.random() * 0x7fffffff)) | 0;
  const oracles = await loadOracles();
  const rows = [
    await runFor('token ids = tiktoken (both encodings), safe cuts add up', sameAsTiktoken(oracles), seconds, firstSeed),
    await runFor('parsers and analysis never throw', parsersNeverThrow(), seconds, firstSeed),
  ];
  oracles.tiktoken.forEach((t) => t.free());
  if (rows.some((row) => row[2]!.startsWith('FAILED'))) process.exitCode = 1;
  return `## Fuzzing (${seconds} s per property, fresh seeds)\n\n${table(['property', 'runs', 'result'], rows)}`;
}

/** Every code point, in contexts that show each class the split patterns use: ids compared with tiktoken. */
export async function benchUnicodeScan(): Promise<string> {
  const oracles = await loadOracles();
  const contexts = (x: string) => `a${x}b A${x}a ${x}A\u0000${x}ე 1${x}23 ${x}'s .${x}.${x}\u0301'S\n`;
  const rows: string[][] = [];
  for (const name of NAMES) {
    const started = performance.now();
    const differing: string[] = [];
    for (let from = 0; from < 0x110000; from += 512) {
      let text = '';
      for (let c = from; c < from + 512; c++) if (c < 0xd800 || c > 0xdfff) text += contexts(String.fromCodePoint(c));
      if (oracles.ours.get(name)!.encode(text).join() !== [...oracles.tiktoken.get(name)!.encode_ordinary(text)].join()) differing.push(`U+${from.toString(16).toUpperCase()}…`);
    }
    rows.push([name, String(0x110000 / 512), differing.length === 0 ? 'none' : differing.slice(0, 20).join(' '), `${((performance.now() - started) / 1000).toFixed(0)} s`]);
    if (differing.length > 0) process.exitCode = 1;
  }
  oracles.tiktoken.forEach((t) => t.free());
  return `## Every code point against tiktoken\n\n${table(['encoding', 'blocks of 512 code points', 'blocks that differ', 'time'], rows)}`;
}
