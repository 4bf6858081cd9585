/**
 * The byte-pair merge, compiled to WebAssembly (AssemblyScript; built by esbuild.mjs into
 * dist/bpe.wasm, loaded by ../wasmBpe.ts). The JavaScript side finds the pre-tokenised pieces (the
 * split regex) and hands them over in batches; everything after that runs here.
 *
 * Why WebAssembly: the same merge in JavaScript is fast once V8 has optimised it, but a one-shot
 * `tokens` call or a new language server counts before that happens — measured, a first count of
 * 120k Chinese characters spent ~60 of its ~85 ms in code V8 was still interpreting (README).
 * WebAssembly is compiled before it runs.
 *
 * The algorithm is the one the JavaScript engine had, id for id equal to tiktoken (tested):
 *  - rank index: token bytes → id in an open-addressing table keyed by a hash of the bytes;
 *  - pair table: (token a, token b) → the token their bytes join into, memoised;
 *  - safe cuts: character boundaries no token spans (the rank file's span index), so a piece is
 *    counted as its parts, which repeat and are cached (../spanIndex.ts explains the index);
 *  - character-level start: a merge may start from whole characters where that provably gives the
 *    same tokens (the proof is in charLevel.ts);
 *  - tiktoken's merge: lowest merged id first, leftmost on ties — a linear scan for short pieces,
 *    a binary heap over a linked list (O(n log n)) above 256 parts.
 *
 * Memory is this module's own linear memory; regions are allocated once and grown by doubling
 * (the stub runtime never frees; a region's old copy is the bounded cost of growing).
 *
 * This file is the module's face: loading (rankIndex.ts, then finishTables here), batches of
 * pieces, counting through safe cuts and the piece cache, encoding. Each part has its own file.
 */

import { initCharLevel } from './charLevel';
import { allocBytes, allocZeroed, i32At, setI32 } from './memory';
import { merge, mergedId, rankOfUnits } from './merge';
import { initPairs } from './pairs';
import { PieceCache, unitsHash } from './pieceCache';
import { buildByteRanks, indexedByteCount, NO_TOKEN, rankOf } from './rankIndex';
import { buildSpanSet, isCutBetween } from './safeCuts';
import { codePointAt } from './utf8';

export { beginIndex, indexTokens, reserveRankFile } from './rankIndex';
export { spanBitsInIndex } from './safeCuts';

let pieceCache!: PieceCache;
/** Tokens of each BMP character on its own (0 = not yet known): the cache for one-character parts. */
let singleCharCounts: usize = 0;
let cuts: usize = 0;
let cutsCapacity: i32 = 0;

/**
 * Finishes the tables once every id is indexed. Returns -1 when done; -2 when the lengths do not
 * add up to the blob; -4 for a corrupt span index; else the byte that has no token.
 */
export function finishTables(blobBytes: i32, spansAt: usize, spanBytes: i32): i32 {
  if (indexedByteCount() != blobBytes) return -2;
  const missingByte = buildByteRanks();
  if (missingByte >= 0) return missingByte;
  if (!buildSpanSet(spansAt, spanBytes)) return -4;
  initPairs();
  initCharLevel();
  pieceCache = new PieceCache();
  singleCharCounts = allocZeroed(65536);
  return -1;
}

function ensureCuts(units: i32): void {
  if (units <= cutsCapacity) return;
  cutsCapacity = max(units, cutsCapacity * 2);
  cuts = allocBytes(cutsCapacity << 2);
}

/** Offsets (in units) inside the piece at boundaries no token spans, into `cuts`; their number, or -1 on a lone surrogate. */
function findCuts(units: usize, length: i32): i32 {
  ensureCuts(length);
  let n: i32 = 0;
  let previous: i32 = -1;
  for (let i: i32 = 0; i < length; i++) {
    const at = i;
    const cp = codePointAt(units, i, length);
    if (cp < 0) return -1; // lone surrogate: no cutting
    if (cp > 0xffff) i++;
    if (previous >= 0 && (previous >= 0x80 || cp >= 0x80) && isCutBetween(previous, cp)) setI32(cuts, n++, at);
    previous = cp;
  }
  return n;
}

/**
 * Tokens of units[0, length) through the piece cache: one token, or else the merge — of its parts
 * between safe cuts for a whole piece (`byCuts`), of itself for a part.
 */
function cachedCount(units: usize, length: i32, byCuts: bool): i32 {
  const hash = unitsHash(units, length);
  let count = pieceCache.get(units, length, hash);
  if (count < 0) {
    count = rankOfUnits(units, length) != NO_TOKEN ? 1 : byCuts ? countByCuts(units, length) : merge(units, length);
    pieceCache.set(units, length, hash, count);
  }
  return count;
}

/** Tokens of a part, through the per-character memo or the piece cache. */
function countPart(units: usize, length: i32): i32 {
  if (length != 1) return cachedCount(units, length, false);
  const code = <i32>load<u16>(units);
  let count = <i32>load<u8>(singleCharCounts + <usize>code);
  if (count == 0) {
    count = rankOfUnits(units, 1) != NO_TOKEN ? 1 : merge(units, 1);
    store<u8>(singleCharCounts + <usize>code, <u8>count);
  }
  return count;
}

/** Tokens of a piece that is not one token: the sum of its parts between safe cuts. */
function countByCuts(units: usize, length: i32): i32 {
  const n = findCuts(units, length);
  if (n <= 0) return merge(units, length);
  // Nothing below findCuts writes `cuts`, so it is read in place.
  let total: i32 = 0;
  let from: i32 = 0;
  for (let k: i32 = 0; k < n; k++) {
    const to = i32At(cuts, k);
    total += countPart(units + (<usize>from << 1), to - from);
    from = to;
  }
  return total + countPart(units + (<usize>from << 1), length - from);
}

// Batches: JavaScript writes a run of text's UTF-16 units at `text` and the end of each piece in it at `ends`.
let text: usize = 0;
let textCapacity: i32 = 0;
let ends: usize = 0;
let endsCapacity: i32 = 0;
let out: usize = 0;
let outCapacity: i32 = 0;

/** Room for a batch of `units` units and `pieces` pieces; returns the text's address (endsAddress() after it). */
export function reserveBatch(units: i32, pieces: i32): usize {
  if (units > textCapacity) {
    textCapacity = max(units, textCapacity * 2);
    text = allocBytes(textCapacity << 1);
  }
  if (pieces > endsCapacity) {
    endsCapacity = max(pieces, endsCapacity * 2);
    ends = allocBytes(endsCapacity << 2);
  }
  return text;
}

export function endsAddress(): usize {
  return ends;
}

/** Token count of the batch's `pieces` pieces. */
export function countPieces(pieces: i32): i32 {
  let total: i32 = 0;
  let start: i32 = 0;
  for (let k: i32 = 0; k < pieces; k++) {
    const end = i32At(ends, k);
    total += cachedCount(text + (<usize>start << 1), end - start, true);
    start = end;
  }
  return total;
}

function emit(n: i32, id: i32): i32 {
  if (n == outCapacity) {
    const capacity = max(1024, outCapacity * 2);
    const grown = allocBytes(capacity << 2);
    if (n > 0) memory.copy(grown, out, <usize>n << 2);
    out = grown;
    outCapacity = capacity;
  }
  setI32(out, n, id);
  return n + 1;
}

/** Ids of merge(units, length) appended to out[n…); returns the new length. */
function emitMerged(units: usize, length: i32, n: i32): i32 {
  const count = merge(units, length);
  for (let i: i32 = 0; i < count; i++) n = emit(n, mergedId(i));
  return n;
}

/** Ids of a part appended to out[n…), `cuts` left as they are: one token, or its merge. */
function encodePart(units: usize, length: i32, n: i32): i32 {
  const rank = rankOfUnits(units, length);
  return rank != NO_TOKEN ? emit(n, rank) : emitMerged(units, length, n);
}

/** Ids of a piece appended to out[n…): one token, or its parts between safe cuts, or its merge. */
function encodePiece(units: usize, length: i32, n: i32): i32 {
  const rank = rankOfUnits(units, length);
  if (rank != NO_TOKEN) return emit(n, rank);
  const cutCount = findCuts(units, length);
  if (cutCount <= 0) return emitMerged(units, length, n);
  let from: i32 = 0;
  for (let k: i32 = 0; k < cutCount; k++) {
    const to = i32At(cuts, k);
    n = encodePart(units + (<usize>from << 1), to - from, n);
    from = to;
  }
  return encodePart(units + (<usize>from << 1), length - from, n);
}

/** Token ids of the batch's pieces, at outAddress(); returns their number. */
export function encodePieces(pieces: i32): i32 {
  let n: i32 = 0;
  let start: i32 = 0;
  for (let k: i32 = 0; k < pieces; k++) {
    const end = i32At(ends, k);
    n = encodePiece(text + (<usize>start << 1), end - start, n);
    start = end;
  }
  return n;
}

export function outAddress(): usize {
  return out;
}

export function clearCache(): void {
  pieceCache.clear();
  memory.fill(singleCharCounts, 0, 0x10000);
}

// For tests: the rank index and the safe cuts on their own.

/** The id of the batch text's first `length` units as one token, or -1. */
export function rankOfBatchText(length: i32): i32 {
  return rankOfUnits(text, length);
}

/** The id of the batch region's first `length` bytes, taken as token bytes, or -1. */
export function rankOfBatchBytes(length: i32): i32 {
  return rankOf(text, length);
}

/** 1 when no token spans the boundary between code points a and b. */
export function isCut(a: i32, b: i32): i32 {
  return isCutBetween(a, b) ? 1 : 0;
}
