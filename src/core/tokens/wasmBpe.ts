/**
 * The WebAssembly merge (assembly/, entry bpe.ts, built into dist/bpe.wasm) behind a small typed API: one
 * instance per encoding, holding that encoding's tables in its own memory.
 *
 * Pieces go in as batches: a run of the text's UTF-16 units and the end of each piece in it. The
 * module's memory may grow during any call, which detaches every view of it, so views are taken
 * anew after each call rather than kept.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { decodeRankFile } from './rankFile';
import type { Allocate, RankFileSource } from './rankFileReaders';

interface BpeExports {
  memory: WebAssembly.Memory;
  reserveRankFile(bytes: number): number;
  beginIndex(count: number, lengthsAt: number, blobAt: number): number;
  indexTokens(from: number, to: number): void;
  finishTables(blobBytes: number, spansAt: number, spanBytes: number): number;
  reserveBatch(units: number, pieces: number): number;
  endsAddress(): number;
  countPieces(pieces: number): number;
  encodePieces(pieces: number): number;
  outAddress(): number;
  clearCache(): void;
  rankOfBatchText(length: number): number;
  rankOfBatchBytes(length: number): number;
  isCut(a: number, b: number): number;
  spanBitsInIndex(): number;
}

let compiled: WebAssembly.Module | undefined;

/**
 * dist/bpe.wasm: beside the bundles, or — run from source (tests) — in the build's dist/ folder,
 * which `npm run build` (or `node esbuild.mjs --bpe-wasm`) writes.
 */
function wasmModule(): WebAssembly.Module {
  if (compiled) return compiled;
  const file = [join(__dirname, 'bpe.wasm'), join(__dirname, '..', '..', '..', 'dist', 'bpe.wasm')].find((path) => existsSync(path));
  if (!file) throw new Error('dist/bpe.wasm is missing: run `npm run build` (or `node esbuild.mjs --bpe-wasm`)');
  compiled = new WebAssembly.Module(readFileSync(file));
  return compiled;
}

/**
 * Memory above which the module is rebuilt after a call. One huge piece (a hostile 'A'×2,000,000)
 * grows the merge's work regions to hundreds of MB, and WebAssembly memory never shrinks: a
 * language server would keep them for good.
 */
export const MEMORY_CEILING_BYTES = 128 * 1024 * 1024;

/** Ids indexed per call (a multiple of 16): see indexTokens in assembly/rankIndex.ts. */
const INDEX_CHUNK = 8192;

function newInstance(): BpeExports {
  const instance = new WebAssembly.Instance(wasmModule(), {
    env: {
      abort: (_message: number, _file: number, line: number, column: number) => {
        throw new Error(`bpe.wasm aborted at ${line}:${column}`);
      },
    },
  });
  return instance.exports as unknown as BpeExports;
}

/** Places in the instance's memory for the rank file. */
function allocateIn(exports: BpeExports): Allocate {
  return (size) => {
    const at = exports.reserveRankFile(size); // first: it may grow the memory
    return new Uint8Array(exports.memory.buffer, at, size);
  };
}

/** Builds the tables over the rank file read into the instance's memory. */
function buildTables(exports: BpeExports, file: Uint8Array): void {
  const data = decodeRankFile(file);
  // Plain numbers before the next call: a call may grow the memory, which empties these views.
  const { count } = data;
  const [blobAt, blobBytes, spansAt, spanBytes] = [data.blob.byteOffset, data.blob.length, data.spans.byteOffset, data.spans.length];
  if (exports.beginIndex(count, data.lengths.byteOffset, blobAt) === -3) throw new Error(`rank table has ${count} tokens, more than the merge holds`);
  for (let from = 0; from < count; from += INDEX_CHUNK) exports.indexTokens(from, Math.min(count, from + INDEX_CHUNK));
  const built = exports.finishTables(blobBytes, spansAt, spanBytes);
  if (built === -2) throw new Error('rank data lengths do not match its blob');
  if (built === -4) throw new Error('rank file span index is corrupt');
  if (built !== -1) throw new Error(`rank table has no token for byte ${built}`);
}

export class WasmBpe {
  /** Times the module was rebuilt after a trap or past the memory ceiling. */
  rebuilds = 0;

  private constructor(private readonly source: RankFileSource, private exports: BpeExports) {}

  /** Reads the rank file straight into a new module's memory (no copy) and builds the tables there. */
  static async create(source: RankFileSource): Promise<WasmBpe> {
    const exports = newInstance();
    buildTables(exports, await source.read(allocateIn(exports)));
    return new WasmBpe(source, exports);
  }

  /** Bytes of the module's memory (tests). */
  memoryBytes(): number {
    return this.exports.memory.buffer.byteLength;
  }

  /** A view of the batch's piece ends with room for `pieces`; valid until the next call into the module. */
  endsView(pieces: number): Int32Array {
    this.exports.reserveBatch(0, pieces);
    return new Int32Array(this.exports.memory.buffer, this.exports.endsAddress(), pieces);
  }

  /** Token count of text[from, to), whose `pieces` piece ends (relative to `from`) are in the ends view. */
  countBatch(text: string, from: number, to: number, pieces: number): number {
    return this.guarded(() => {
      this.writeBatchText(text, from, to, pieces);
      return this.exports.countPieces(pieces);
    });
  }

  /** Token ids of text[from, to), as countBatch, appended to `out`. */
  encodeBatch(text: string, from: number, to: number, pieces: number, out: number[]): void {
    this.guarded(() => {
      this.writeBatchText(text, from, to, pieces);
      const n = this.exports.encodePieces(pieces);
      const ids = new Int32Array(this.exports.memory.buffer, this.exports.outAddress(), n);
      for (let i = 0; i < n; i++) out.push(ids[i]!);
    });
  }

  clearCache(): void {
    this.exports.clearCache();
  }

  /** The id of `text` as one token, or -1 (tests). */
  rankOfText(text: string): number {
    this.writeBatchText(text, 0, text.length, 0);
    return this.exports.rankOfBatchText(text.length);
  }

  /** The id of `bytes` as one token's bytes, or -1 (tests). */
  rankOfBytes(bytes: Uint8Array): number {
    const at = this.exports.reserveBatch(Math.ceil(bytes.length / 2), 0);
    new Uint8Array(this.exports.memory.buffer, at, bytes.length).set(bytes);
    return this.exports.rankOfBatchBytes(bytes.length);
  }

  /** Set bits in the character-boundary index (tests). */
  spanBitCount(): number {
    return this.exports.spanBitsInIndex();
  }

  /** True when no token spans the boundary between code points a and b (tests). */
  isCut(a: number, b: number): boolean {
    return this.exports.isCut(a, b) === 1;
  }

  /**
   * A trap (out of memory) leaves the module's tables half-written, so it is rebuilt before the
   * error goes on; so is a module whose memory grew past the ceiling.
   */
  private guarded<T>(call: () => T): T {
    try {
      return call();
    } catch (error) {
      if (!(error instanceof WebAssembly.RuntimeError)) throw error;
      this.rebuild();
      throw new Error(`token counting failed in the merge (${error.message}); its tables were rebuilt`);
    } finally {
      if (this.exports.memory.buffer.byteLength > MEMORY_CEILING_BYTES) this.rebuild();
    }
  }

  private rebuild(): void {
    const exports = newInstance();
    buildTables(exports, this.source.readSync(allocateIn(exports)));
    this.exports = exports;
    this.rebuilds++;
  }

  private writeBatchText(text: string, from: number, to: number, pieces: number): void {
    const at = this.exports.reserveBatch(to - from, pieces);
    // utf16le is the module's layout (little-endian, lone surrogates kept as they are).
    Buffer.from(this.exports.memory.buffer, at, (to - from) * 2).write(from === 0 && to === text.length ? text : text.slice(from, to), 0, 'utf16le');
  }
}
