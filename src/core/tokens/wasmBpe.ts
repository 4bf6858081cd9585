/**
 * The WebAssembly merge (assembly/bpe.ts, built into dist/bpe.wasm) behind a small typed API: one
 * instance per encoding, holding that encoding's tables in its own memory.
 *
 * Pieces go in as batches: a run of the text's UTF-16 units and the end of each piece in it. The
 * module's memory may grow during any call, which detaches every view of it, so views are taken
 * anew after each call rather than kept.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { decodeRankFile } from './rankFile';
import type { RankFileReader } from './rankFileReaders';

interface BpeExports {
  memory: WebAssembly.Memory;
  reserveFile(bytes: number): number;
  buildTables(count: number, lengthsAt: number, blobAt: number, blobBytes: number, spansAt: number, spanBytes: number): number;
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

export class WasmBpe {
  private readonly exports: BpeExports;

  /** Reads the rank file straight into the module's memory (no copy) and builds the tables there. */
  constructor(readRankFile: RankFileReader) {
    const instance = new WebAssembly.Instance(wasmModule(), {
      env: {
        abort: (_message: number, _file: number, line: number, column: number) => {
          throw new Error(`bpe.wasm aborted at ${line}:${column}`);
        },
      },
    });
    this.exports = instance.exports as unknown as BpeExports;
    const { exports } = this;
    const data = decodeRankFile(
      readRankFile((size) => {
        const at = exports.reserveFile(size); // first: it may grow the memory
        return new Uint8Array(exports.memory.buffer, at, size);
      }),
    );
    const { count, lengths, blob, spans } = data;
    const built = exports.buildTables(count, lengths.byteOffset, blob.byteOffset, blob.length, spans.byteOffset, spans.length);
    if (built === -2) throw new Error('rank data lengths do not match its blob');
    if (built === -3) throw new Error(`rank table has ${count} tokens, more than the merge holds`);
    if (built === -4) throw new Error('rank file span index is corrupt');
    if (built !== -1) throw new Error(`rank table has no token for byte ${built}`);
  }

  /** A view of the batch's piece ends with room for `pieces`; valid until the next call into the module. */
  endsView(pieces: number): Int32Array {
    this.exports.reserveBatch(0, pieces);
    return new Int32Array(this.exports.memory.buffer, this.exports.endsAddress(), pieces);
  }

  /** Token count of text[from, to), whose `pieces` piece ends (relative to `from`) are in the ends view. */
  countBatch(text: string, from: number, to: number, pieces: number): number {
    this.writeBatchText(text, from, to, pieces);
    return this.exports.countPieces(pieces);
  }

  /** Token ids of text[from, to), as countBatch, appended to `out`. */
  encodeBatch(text: string, from: number, to: number, pieces: number, out: number[]): void {
    this.writeBatchText(text, from, to, pieces);
    const n = this.exports.encodePieces(pieces);
    const ids = new Int32Array(this.exports.memory.buffer, this.exports.outAddress(), n);
    for (let i = 0; i < n; i++) out.push(ids[i]!);
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

  private writeBatchText(text: string, from: number, to: number, pieces: number): void {
    const at = this.exports.reserveBatch(to - from, pieces);
    // utf16le is the module's layout (little-endian, lone surrogates kept as they are).
    Buffer.from(this.exports.memory.buffer, at, (to - from) * 2).write(from === 0 && to === text.length ? text : text.slice(from, to), 0, 'utf16le');
  }
}
