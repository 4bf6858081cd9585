/**
 * The one place that knows how tokens are counted.
 *
 * The design card names js-tiktoken; measured here it is 0.2–0.3 MB/s on Chinese text (its merge is
 * quadratic in the length of a pre-tokenised piece), far below the hover bar, and gpt-tokenizer's
 * merge is about 1 MB/s there. So the engine is our own merge (bpe.ts, the merge itself compiled to
 * WebAssembly: assembly/) over gpt-tokenizer's rank tables and pre-tokeniser patterns, tested
 * id-for-id against OpenAI's tiktoken as the oracle; `npm run bench` measures all of them side by
 * side. Swapping engines means changing this file only.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { splitPatternSource } from './splitPatterns';
import { asciiSplitPattern } from './asciiPatterns';
import { BpeEncoder, buildRankTable, type RankTable } from './bpe';
import { encodeRankFile } from './rankFile';
import { rankFileInMemory, rankFileOnDisk, type RankFileSource } from './rankFileReaders';
import type { EncodingName } from './encodingNames';

export interface TokenEncoder {
  /** The encoding's name, or a loaded model tokenizer's key: the counter's caches are kept per name. */
  readonly name: string;
  /**
   * True when no token crosses the counter's cut points (segments.ts), so a text may be counted
   * segment by segment and an edit recounts one segment; false: each text is counted whole.
   */
  readonly segmentable: boolean;
  /** Token count of `text` encoded as ordinary text: `<|endoftext|>` in a prompt is text, not a control token. */
  count(text: string): number;
  encode(text: string): number[];
  /** Forgets cached piece merges (benchmarks measure first counts). */
  clearCache(): void;
}

const loading = new Map<EncodingName, Promise<TokenEncoder>>();

/** Loads an encoding once (o200k_base's tables take ~0.4 s to build, cl100k_base's ~0.15 s); later calls share it. */
export function loadEncoder(name: EncodingName): Promise<TokenEncoder> {
  let promise = loading.get(name);
  if (!promise) {
    promise = importRankTable(name).then((table) => {
      const bpe = new BpeEncoder(table);
      // Special-token strings such as <|endoftext|> are never treated specially: in a prompt they are text.
      const encoder: TokenEncoder = {
        name,
        segmentable: true,
        count: (text) => (text.length === 0 ? 0 : bpe.count(text)),
        encode: (text) => bpe.encode(text),
        clearCache: () => bpe.clearCache(),
      };
      return encoder;
    });
    promise.catch(() => loading.delete(name)); // a failed load may be retried
    loading.set(name, promise);
  }
  return promise;
}

/**
 * The bundles read `NAME.ranks` from beside themselves (dist/, written by esbuild.mjs): a few ms,
 * and begun before this returns, so a process that loads early (the language server) reads the
 * file while it goes on starting. Run from source (tests), there is no such file and the rank list
 * comes from gpt-tokenizer's module, encoded the same way, so both paths build from the same bytes.
 */
function importRankTable(name: EncodingName): Promise<RankTable> {
  const file = join(__dirname, `${name}.ranks`);
  const source = existsSync(file) ? rankFileOnDisk(file) : rankFileFromPackage(name);
  return source instanceof Promise ? source.then((loaded) => buildTable(name, loaded)) : buildTable(name, source);
}

function buildTable(name: EncodingName, source: RankFileSource): Promise<RankTable> {
  return buildRankTable(source, splitPatternSource(name), asciiSplitPattern(name));
}

async function rankFileFromPackage(name: EncodingName): Promise<RankFileSource> {
  const list = name === 'o200k_base' ? (await import('gpt-tokenizer/bpeRanks/o200k_base')).default : (await import('gpt-tokenizer/bpeRanks/cl100k_base')).default;
  return rankFileInMemory(encodeRankFile(list));
}
