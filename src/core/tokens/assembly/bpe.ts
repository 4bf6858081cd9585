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
 *  - rank index: token bytes → id in an open-addressing table keyed by FNV-1a of the bytes;
 *  - pair table: (token a, token b) → the token their bytes join into, memoised;
 *  - safe cuts: character boundaries no token spans (the rank file's span index), so a piece is
 *    counted as its parts, which repeat and are cached (../spanIndex.ts explains the index);
 *  - character-level start: a merge may start from whole characters where that provably gives the
 *    same tokens (the proof is below, before charLevelStart);
 *  - tiktoken's merge: lowest merged id first, leftmost on ties — a linear scan for short pieces,
 *    a binary heap over a linked list (O(n log n)) above 256 parts.
 *
 * Memory is this module's own linear memory; regions are allocated once and grown by doubling
 * (the stub runtime never frees; a region's old copy is the bounded cost of growing).
 */

const NO_TOKEN: i32 = -1;
/** Merge priority of a pair that joins into no token: above every id. */
const NONE: i32 = 0x7fffffff;
const MAX_TOKEN_BYTES: i32 = 255;
const NO_SHORTCUT: i32 = -2;
const HEAP_MERGE_MIN_PARTS: i32 = 256;
const PIECE_CACHE_LIMIT: i32 = 100000;
const SPAN_INDEX_MASK: u32 = (1 << 24) - 1;

// ---------------------------------------------------------------------------------------------
// Memory

function allocBytes(bytes: i32): usize {
  return heap.alloc(<usize>bytes);
}

/**
 * A region that reads as zeros. The stub runtime hands out fresh memory only (nothing here is ever
 * freed), and fresh WebAssembly memory is zero, so no fill is needed — which matters: on the
 * machines measured, touching a fresh megabyte costs ~4 ms, and most of bytePairs or bmpRecords is
 * never touched.
 */
function allocZeroed(bytes: i32): usize {
  return heap.alloc(<usize>bytes);
}

@inline function i32At(base: usize, index: i32): i32 {
  return load<i32>(base + (<usize>index << 2));
}

@inline function setI32(base: usize, index: i32, value: i32): void {
  store<i32>(base + (<usize>index << 2), value);
}

// ---------------------------------------------------------------------------------------------
// Rank data (the rank file, read by JavaScript straight into this memory) and the rank index
//
// Start-up is mostly first touches of fresh memory (~4 ms per MB on the machines measured), so the
// index is kept small: a byte offset per 16 ids instead of per id (50 KB, not 800 KB), and 1 MB of
// slots at a load of ~0.76 instead of 2 MB at 0.38, each slot holding the id and 14 bits of the
// hash so that a probe rarely needs the token's bytes.

let tokenCount: i32 = 0;
let lengths: usize = 0;
let blob: usize = 0;
/** Byte offset in the blob of every 16th id. */
let blockOffsets: usize = 0;
/** Per slot: (14 hash bits << 18) | (id + 1); 0 = empty. */
let rankSlots: usize = 0;
let rankMask: u32 = 0;
let byteRanks: usize = 0;
const ID_BITS: u32 = 18;
const ID_MASK: u32 = (1 << ID_BITS) - 1;

/** Reserves room for the rank file, which JavaScript reads straight into it (no copy); returns its address. */
export function reserveFile(bytes: i32): usize {
  return allocBytes(bytes);
}

/**
 * Starts the tables over the rank file where it was read (rankFile.ts has the layout; JavaScript
 * has checked the header and the sizes). Then indexTokens(from, to) in chunks, then finishTables.
 * Returns 0, or -3 for more ids than a slot holds.
 */
export function beginTables(count: i32, lengthsAt: usize, blobAt: usize): i32 {
  if (<u32>count >= ID_MASK) return -3;
  tokenCount = count;
  lengths = lengthsAt;
  blob = blobAt;
  blockOffsets = allocBytes(((count >> 4) + 1) << 2);
  let size: u32 = 1024;
  while (<u64>size * 4 < <u64>count * 5) size <<= 1; // load ≤ 0.8
  rankMask = size - 1;
  rankSlots = allocZeroed(<i32>size << 2);
  indexedBytes = 0;
  return 0;
}

let indexedBytes: i32 = 0;

/**
 * Indexes ids [from, to), continuing where the previous chunk ended (from is a multiple of 16).
 * Called in chunks so that V8 can move this loop from its baseline compiler to its optimising one
 * between calls (WebAssembly has no on-stack replacement): one call over all 200k ids ran in
 * baseline code throughout.
 */
export function indexTokens(from: i32, to: i32): void {
  let at = indexedBytes;
  for (let id = from; id < to; id++) {
    if ((id & 15) == 0) setI32(blockOffsets, id >> 4, at);
    const length = <i32>load<u8>(lengths + <usize>id);
    const hash = bytesHash(blob + <usize>at, length);
    let slot = hash & rankMask;
    while (i32At(rankSlots, <i32>slot) != 0) slot = (slot + 1) & rankMask;
    setI32(rankSlots, <i32>slot, <i32>((hash >> ID_BITS) << ID_BITS | <u32>(id + 1)));
    at += length;
  }
  indexedBytes = at;
}

/**
 * Finishes the tables once every id is indexed. Returns -1 when done; -2 when the lengths do not
 * add up to the blob; -4 for a corrupt span index; else the byte that has no token.
 */
export function finishTables(blobBytes: i32, spansAt: usize, spanBytes: i32): i32 {
  if (indexedBytes != blobBytes) return -2;
  byteRanks = allocBytes(256 << 2);
  const single = allocBytes(1);
  for (let b: i32 = 0; b < 256; b++) {
    store<u8>(single, <u8>b);
    const rank = rankOf(single, 1);
    if (rank == NO_TOKEN) return b;
    setI32(byteRanks, b, rank);
  }
  if (!buildSpanSet(spansAt, spanBytes)) return -4;
  bytePairs = allocZeroed(65536 << 2);
  pairMemo = new PairMemo(KIND_PAIR);
  cutMemo = new PairMemo(KIND_CUT);
  crossMemo = new PairMemo(KIND_CROSS);
  astralMemo = new PairMemo(KIND_ASTRAL);
  pieceCache = new PieceCache();
  singleCharCounts = allocZeroed(65536);
  return -1;
}

/**
 * Hash of token bytes, four at a time (the index is built over 1.4 MB of them at every start: a
 * byte-at-a-time FNV-1a took ~7 ms of it), with a final mix, as the table takes its low bits.
 */
function bytesHash(bytes: usize, length: i32): u32 {
  let hash: u32 = 0x811c9dc5 ^ <u32>length;
  let i: i32 = 0;
  for (; i + 4 <= length; i += 4) hash = (hash ^ load<u32>(bytes + <usize>i)) * 0x01000193;
  for (; i < length; i++) hash = (hash ^ <u32>load<u8>(bytes + <usize>i)) * 0x01000193;
  hash ^= hash >> 15;
  hash *= 0x2c1b3c6d;
  hash ^= hash >> 12;
  return hash;
}

@inline function tokenLength(id: i32): i32 {
  return <i32>load<u8>(lengths + <usize>id);
}

/** Byte offset of token `id` in the blob: its block's offset plus at most 15 lengths. */
function tokenOffset(id: i32): i32 {
  let at = i32At(blockOffsets, id >> 4);
  for (let i = id & ~15; i < id; i++) at += <i32>load<u8>(lengths + <usize>i);
  return at;
}

/** The id whose bytes are bytes[0, length), or NO_TOKEN. */
function rankOf(bytes: usize, length: i32): i32 {
  if (length <= 0 || length > MAX_TOKEN_BYTES) return NO_TOKEN;
  const hash = bytesHash(bytes, length);
  const check = hash >> ID_BITS;
  let slot = hash & rankMask;
  while (true) {
    const stored = <u32>i32At(rankSlots, <i32>slot);
    if (stored == 0) return NO_TOKEN;
    if (stored >> ID_BITS == check) {
      const id = <i32>(stored & ID_MASK) - 1;
      if (tokenLength(id) == length && sameBytes(blob + <usize>tokenOffset(id), bytes, length)) return id;
    }
    slot = (slot + 1) & rankMask;
  }
}

function sameBytes(a: usize, b: usize, length: i32): bool {
  for (let i: i32 = 0; i < length; i++) {
    if (load<u8>(a + <usize>i) != load<u8>(b + <usize>i)) return false;
  }
  return true;
}

/** The id of token a's bytes followed by token b's, or NO_TOKEN. */
function joinedRank(a: i32, b: i32): i32 {
  const aLength = tokenLength(a);
  const bLength = tokenLength(b);
  if (aLength + bLength > MAX_TOKEN_BYTES) return NO_TOKEN;
  memory.copy(joined, blob + <usize>tokenOffset(a), <usize>aLength);
  memory.copy(joined + <usize>aLength, blob + <usize>tokenOffset(b), <usize>bLength);
  return rankOf(joined, aLength + bLength);
}

const joined: usize = heap.alloc(2 * MAX_TOKEN_BYTES + 8);

// ---------------------------------------------------------------------------------------------
// Memos keyed by a pair of non-negative ints

const KIND_PAIR: i32 = 0;
const KIND_CUT: i32 = 1;
const KIND_CROSS: i32 = 2;
const KIND_ASTRAL: i32 = 3;

function computeMemo(kind: i32, a: i32, b: i32): i32 {
  if (kind == KIND_PAIR) {
    const joined = joinedRank(a, b);
    return joined == NO_TOKEN ? NONE : joined;
  }
  if (kind == KIND_CUT) return computeCut(a, b);
  if (kind == KIND_CROSS) return computeCrossMin(a, b);
  return learn(a);
}

/** Open addressing over (a + 1, b, value) triples; starts at 1k slots and doubles (fresh memory costs start-up time). */
class PairMemo {
  slots: usize = 0;
  mask: i32 = 0;
  size: i32 = 0;

  constructor(public kind: i32) {
    this.allocate(1024);
  }

  get(a: i32, b: i32): i32 {
    const found = this.find(a, b);
    if (found >= 0) return i32At(this.slots, found * 3 + 2);
    // Computing may fill other memos (never this one), but the slot is found again to be safe.
    const value = computeMemo(this.kind, a, b);
    const at = -1 - this.find(a, b);
    setI32(this.slots, at * 3, a + 1);
    setI32(this.slots, at * 3 + 1, b);
    setI32(this.slots, at * 3 + 2, value);
    if (++this.size * 2 > this.mask) this.grow();
    return value;
  }

  /** The slot holding (a, b), or -1 - the empty slot where it belongs. */
  private find(a: i32, b: i32): i32 {
    let i = (a * <i32>0x9e3779b1 ^ b * <i32>0x85ebca6b) & this.mask;
    const key = a + 1;
    while (true) {
      const stored = i32At(this.slots, i * 3);
      if (stored == key && i32At(this.slots, i * 3 + 1) == b) return i;
      if (stored == 0) return -1 - i;
      i = (i + 1) & this.mask;
    }
  }

  private allocate(slotCount: i32): void {
    this.slots = allocZeroed(slotCount * 12);
    this.mask = slotCount - 1;
    this.size = 0;
  }

  private grow(): void {
    const old = this.slots;
    const oldCount = this.mask + 1;
    this.allocate(oldCount * 2);
    for (let j: i32 = 0; j < oldCount; j++) {
      const key = i32At(old, j * 3);
      if (key == 0) continue;
      const at = -1 - this.find(key - 1, i32At(old, j * 3 + 1));
      setI32(this.slots, at * 3, key);
      setI32(this.slots, at * 3 + 1, i32At(old, j * 3 + 1));
      setI32(this.slots, at * 3 + 2, i32At(old, j * 3 + 2));
      this.size++;
    }
  }
}

let pairMemo!: PairMemo;
let cutMemo!: PairMemo;
let crossMemo!: PairMemo;
let astralMemo!: PairMemo;
/** Pairs of single-byte tokens, the first lookups of every byte-level merge: 0 = unknown, -1 = NONE, else id + 1. */
let bytePairs: usize = 0;

/** Merge priority of the pair (a, b): the id their bytes join into, or NONE. */
function pairRank(a: i32, b: i32): i32 {
  if ((a | b) < 256) {
    const at = (a << 8) | b;
    const stored = i32At(bytePairs, at);
    if (stored != 0) return stored == -1 ? NONE : stored - 1;
    const joined = joinedRank(a, b);
    setI32(bytePairs, at, joined == NO_TOKEN ? -1 : joined + 1);
    return joined == NO_TOKEN ? NONE : joined;
  }
  return pairMemo.get(a, b);
}

// ---------------------------------------------------------------------------------------------
// Safe cuts (../spanIndex.ts): the same hashes, so the rank file's span bits mean the same here

let spanSlots: usize = 0;
let spanMask: u32 = 0;
const unitBytes: usize = heap.alloc(16);

let spanBitCount: i32 = 0;

/**
 * Places the span index's set bits in a hash set, decoding them from the file as they come: ascending
 * numbers stored as LEB128 varints of their gaps (rankFile.ts). False when the varints are corrupt.
 */
function buildSpanSet(spans: usize, spanBytes: i32): bool {
  let count: i32 = 0;
  for (let i: i32 = 0; i < spanBytes; i++) if ((load<u8>(spans + <usize>i) & 0x80) == 0) count++;
  let size: u32 = 1024;
  while (size < <u32>count * 2) size <<= 1;
  spanMask = size - 1;
  spanSlots = allocZeroed(<i32>size << 2);
  let value: u32 = 0;
  let gap: u32 = 0;
  let shift: u32 = 0;
  for (let i: i32 = 0; i < spanBytes; i++) {
    const byte = <u32>load<u8>(spans + <usize>i);
    gap |= (byte & 0x7f) << shift;
    if (byte & 0x80) {
      shift += 7;
      if (shift > 28) return false;
      continue;
    }
    value += gap;
    gap = 0;
    shift = 0;
    let slot = (value * 0x9e3779b1) & spanMask;
    while (true) {
      const stored = load<u32>(spanSlots + (<usize>slot << 2));
      if (stored == 0 || stored == value + 1) break;
      slot = (slot + 1) & spanMask;
    }
    store<u32>(spanSlots + (<usize>slot << 2), value + 1);
  }
  spanBitCount = count;
  return shift == 0;
}

function spanHas(bit: u32): bool {
  let slot = (bit * 0x9e3779b1) & spanMask;
  while (true) {
    const stored = load<u32>(spanSlots + (<usize>slot << 2));
    if (stored == bit + 1) return true;
    if (stored == 0) return false;
    slot = (slot + 1) & spanMask;
  }
}

function unitHash(bytes: usize, start: i32, end: i32): u32 {
  let hash: u32 = 0x811c9dc5;
  for (let i = start; i < end; i++) hash = (hash ^ <u32>load<u8>(bytes + <usize>i)) * 0x01000193;
  return hash;
}

function spanBit(before: u32, after: u32): u32 {
  let h: u32 = (before ^ (after * 0x9e3779b1)) * 0x85ebca6b;
  h ^= h >> 15;
  return h & SPAN_INDEX_MASK;
}

/** 1 when no token spans the boundary between code points a and b, else 0. */
function computeCut(a: i32, b: i32): i32 {
  if (a < 0x80 && b < 0x80) return 0; // ASCII boundaries are not indexed
  const left = unitBytes;
  const right = unitBytes + 8;
  const leftLength = utf8Into(a, left);
  const rightLength = utf8Into(b, right);
  for (let i: i32 = 1; i <= leftLength; i++) {
    const suffix = unitHash(left, leftLength - i, leftLength);
    for (let j: i32 = 1; j <= rightLength; j++) {
      if (spanHas(spanBit(suffix, unitHash(right, 0, j)))) return 0;
    }
  }
  return 1;
}

/** Writes code point cp's UTF-8 bytes at `out`; returns their number. */
function utf8Into(cp: i32, out: usize): i32 {
  if (cp < 0x80) {
    store<u8>(out, <u8>cp);
    return 1;
  }
  if (cp < 0x800) {
    store<u8>(out, <u8>(0xc0 | (cp >> 6)));
    store<u8>(out + 1, <u8>(0x80 | (cp & 0x3f)));
    return 2;
  }
  if (cp < 0x10000) {
    store<u8>(out, <u8>(0xe0 | (cp >> 12)));
    store<u8>(out + 1, <u8>(0x80 | ((cp >> 6) & 0x3f)));
    store<u8>(out + 2, <u8>(0x80 | (cp & 0x3f)));
    return 3;
  }
  store<u8>(out, <u8>(0xf0 | (cp >> 18)));
  store<u8>(out + 1, <u8>(0x80 | ((cp >> 12) & 0x3f)));
  store<u8>(out + 2, <u8>(0x80 | ((cp >> 6) & 0x3f)));
  store<u8>(out + 3, <u8>(0x80 | (cp & 0x3f)));
  return 4;
}

// ---------------------------------------------------------------------------------------------
// Character-level start

/**
 * Starts a merge from whole characters instead of bytes where that provably gives the same tokens.
 *
 * CJK characters are 3 bytes; byte-level BPE first rebuilds each character and only then merges
 * characters into words, but scanning 3× as many parts costs ~9× in the quadratic merge.
 *
 * Let m be the lowest merge id of any pair that can form across a character boundary before the
 * first cross-boundary merge: a trailing part of one character's own merge path (its final parts
 * included) with a leading part of the next one's. Every merge with an id below m is then an
 * in-character merge, so the byte-level run first performs exactly the in-character merges below
 * m, in order. A character whose whole path stays below m (and ends in one token) is therefore
 * whole at that point, whatever its neighbours do, and may start as that token; the others start
 * as bytes. Both runs reach the same state once nothing below m remains, and go on identically.
 * (A per-boundary check, or leaving out pairs of finished tokens, is not enough: two finished
 * neighbours could join and then absorb a third character's partial byte.) The facts come from the
 * rank table and are memoised per character and per character pair.
 */

/**
 * Per learned character, 12 ints: token (or NO_SHORTCUT), the highest merge id on its own path
 * (-1: none), then up to 4 leading and up to 4 trailing parts its byte-level merge passes through.
 */
const RECORD_INTS: i32 = 12;
let records: usize = 0;
let recordCount: i32 = 0;
let recordCapacity: i32 = 0;
/** Record index + 1 per BMP code point; 0 = not learned yet. */
let bmpRecords: usize = 0;
const learnParts: usize = heap.alloc(32);

function recordOf(cp: i32): i32 {
  if (cp < 0x10000) {
    if (bmpRecords == 0) bmpRecords = allocZeroed(0x10000 << 2);
    const stored = i32At(bmpRecords, cp);
    if (stored != 0) return stored - 1;
    const index = learn(cp);
    setI32(bmpRecords, cp, index + 1);
    return index;
  }
  return astralMemo.get(cp, 0);
}

@inline function recordAt(index: i32): usize {
  return records + (<usize>(index * RECORD_INTS) << 2);
}

/** Runs the byte-level merge on the character alone, recording the parts it passes through; returns the record's index. */
function learn(cp: i32): i32 {
  if (recordCount == recordCapacity) {
    const capacity = recordCapacity == 0 ? 256 : recordCapacity * 2;
    const grown = allocBytes(capacity * RECORD_INTS * 4);
    if (recordCount > 0) memory.copy(grown, records, <usize>(recordCount * RECORD_INTS * 4));
    records = grown;
    recordCapacity = capacity;
  }
  const index = recordCount++;
  const record = recordAt(index);
  let n = utf8Into(cp, learnParts + 16);
  for (let i: i32 = 0; i < n; i++) setI32(learnParts, i, i32At(byteRanks, <i32>load<u8>(learnParts + 16 + <usize>i)));
  let leading: i32 = 0;
  let trailing: i32 = 0;
  let intraMax: i32 = -1;
  while (n > 1) {
    setI32(record, 3 + leading++, i32At(learnParts, 0));
    setI32(record, 8 + trailing++, i32At(learnParts, n - 1));
    let best = NONE;
    let at: i32 = -1;
    for (let i: i32 = 0; i + 1 < n; i++) {
      const rank = pairRank(i32At(learnParts, i), i32At(learnParts, i + 1));
      if (rank < best) {
        best = rank;
        at = i;
      }
    }
    if (at < 0) break; // the character alone ends in several tokens
    setI32(learnParts, at, best);
    for (let i = at + 1; i + 1 < n; i++) setI32(learnParts, i, i32At(learnParts, i + 1));
    n--;
    if (best > intraMax) intraMax = best;
  }
  if (leading < 4) setI32(record, 3 + leading++, i32At(learnParts, 0));
  if (trailing < 4) setI32(record, 8 + trailing++, i32At(learnParts, n - 1));
  setI32(record, 0, n == 1 ? i32At(learnParts, 0) : NO_SHORTCUT);
  setI32(record, 1, intraMax);
  setI32(record, 2, leading);
  setI32(record, 7, trailing);
  return index;
}

/** Lowest merge id of any pair that can form across the boundary c|d before a cross merge, final parts included. */
function computeCrossMin(c: i32, d: i32): i32 {
  // Both records first: learning one may move the records region.
  const leftIndex = recordOf(c);
  const rightIndex = recordOf(d);
  const left = recordAt(leftIndex);
  const right = recordAt(rightIndex);
  const trailing = i32At(left, 7);
  const leading = i32At(right, 2);
  let min = NONE;
  for (let s: i32 = 0; s < trailing; s++) {
    for (let p: i32 = 0; p < leading; p++) {
      const rank = pairRank(i32At(left, 8 + s), i32At(right, 3 + p));
      if (rank < min) min = rank;
    }
  }
  return min;
}

/**
 * Writes the starting parts of the code points codePoints[0, n) into `parts` (whole-character
 * tokens where safe, bytes elsewhere) and returns their number, or -1 when no character can start whole.
 */
function charLevelStart(n: i32): i32 {
  let lowestCross = NONE;
  for (let j: i32 = 0; j + 1 < n; j++) {
    const cross = crossMemo.get(i32At(codePoints, j), i32At(codePoints, j + 1));
    if (cross < lowestCross) lowestCross = cross;
  }
  let count: i32 = 0;
  let anyWhole = false;
  for (let j: i32 = 0; j < n; j++) {
    const cp = i32At(codePoints, j);
    const record = recordAt(recordOf(cp));
    const token = i32At(record, 0);
    const intraMax = i32At(record, 1);
    if (token != NO_SHORTCUT && intraMax < lowestCross) {
      setI32(parts, count++, token);
      if (intraMax >= 0) anyWhole = true;
    } else {
      const length = utf8Into(cp, unitBytes);
      for (let k: i32 = 0; k < length; k++) setI32(parts, count++, i32At(byteRanks, <i32>load<u8>(unitBytes + <usize>k)));
    }
  }
  return anyWhole ? count : -1;
}

// ---------------------------------------------------------------------------------------------
// Scratch regions

let parts: usize = 0;
let pairRanks: usize = 0;
let codePoints: usize = 0;
let workCapacity: i32 = 0;
let bytes: usize = 0;
let bytesCapacity: i32 = 0;
let cuts: usize = 0;
let cutsCapacity: i32 = 0;

/**
 * Room for the merge of `units` UTF-16 units: at most 3 byte tokens per unit (4 per surrogate
 * pair). The linear scan's pair ranks are needed for short merges only.
 */
function ensureWork(units: i32): void {
  const needed = units * 3 + 4;
  if (needed <= workCapacity) return;
  const capacity = max(needed, workCapacity * 2);
  parts = allocBytes(capacity << 2);
  codePoints = allocBytes(capacity << 2);
  workCapacity = capacity;
  if (pairRanks == 0) pairRanks = allocBytes((HEAP_MERGE_MIN_PARTS + 4) << 2);
}

function ensureBytes(units: i32): void {
  const needed = units * 3 + 4;
  if (needed <= bytesCapacity) return;
  bytesCapacity = max(needed, bytesCapacity * 2);
  bytes = allocBytes(bytesCapacity);
}

function ensureCuts(units: i32): void {
  if (units <= cutsCapacity) return;
  cutsCapacity = max(units, cutsCapacity * 2);
  cuts = allocBytes(cutsCapacity << 2);
}

// ---------------------------------------------------------------------------------------------
// UTF-16 → UTF-8 and code points

/** Writes the UTF-8 bytes of units[0, length) at `out` (lone surrogates as U+FFFD, as TextEncoder does); returns their number. */
function utf8OfUnits(units: usize, length: i32, out: usize): i32 {
  let n: i32 = 0;
  for (let i: i32 = 0; i < length; i++) {
    let code = <i32>load<u16>(units + (<usize>i << 1));
    if (code < 0x80) {
      store<u8>(out + <usize>n, <u8>code);
      n++;
      continue;
    }
    if (code >= 0xd800 && code <= 0xdbff && i + 1 < length) {
      const low = <i32>load<u16>(units + (<usize>(i + 1) << 1));
      if (low >= 0xdc00 && low <= 0xdfff) {
        code = 0x10000 + ((code - 0xd800) << 10) + (low - 0xdc00);
        i++;
        n += utf8Into(code, out + <usize>n);
        continue;
      }
    }
    if (code >= 0xd800 && code <= 0xdfff) code = 0xfffd;
    n += utf8Into(code, out + <usize>n);
  }
  return n;
}

/** The id of units[0, length) as one token, or NO_TOKEN. */
function rankOfUnits(units: usize, length: i32): i32 {
  if (length > MAX_TOKEN_BYTES) return NO_TOKEN;
  ensureBytes(length);
  const written = utf8OfUnits(units, length, bytes);
  return written > MAX_TOKEN_BYTES ? NO_TOKEN : rankOf(bytes, written);
}

/** Code points of units[0, length) into `codePoints`; -1 on a lone surrogate. */
function decodeCodePoints(units: usize, length: i32): i32 {
  let n: i32 = 0;
  for (let i: i32 = 0; i < length; i++) {
    let cp = <i32>load<u16>(units + (<usize>i << 1));
    if (cp >= 0xd800 && cp <= 0xdfff) {
      const low = i + 1 < length ? <i32>load<u16>(units + (<usize>(i + 1) << 1)) : 0;
      if (cp > 0xdbff || !(low >= 0xdc00 && low <= 0xdfff)) return -1;
      cp = 0x10000 + ((cp - 0xd800) << 10) + (low - 0xdc00);
      i++;
    }
    setI32(codePoints, n++, cp);
  }
  return n;
}

// ---------------------------------------------------------------------------------------------
// The merge

/** tiktoken's merge of units[0, length)'s UTF-8 bytes; returns the token count, ids in parts[0, count). */
function merge(units: usize, length: i32): i32 {
  ensureWork(length);
  let n: i32 = -1;
  const points = decodeCodePoints(units, length);
  if (points >= 0) n = charLevelStart(points);
  if (n < 0) {
    ensureBytes(length);
    const written = utf8OfUnits(units, length, bytes);
    for (let i: i32 = 0; i < written; i++) setI32(parts, i, i32At(byteRanks, <i32>load<u8>(bytes + <usize>i)));
    n = written;
  }
  if (n <= 1) return n;
  if (n > HEAP_MERGE_MIN_PARTS) return heapMerge(n);
  for (let i: i32 = 0; i < n - 1; i++) setI32(pairRanks, i, pairRank(i32At(parts, i), i32At(parts, i + 1)));
  setI32(pairRanks, n - 1, NONE);
  while (n > 1) {
    let best = NONE;
    let at: i32 = -1;
    for (let i: i32 = 0; i < n - 1; i++) {
      const rank = i32At(pairRanks, i);
      if (rank < best) {
        best = rank;
        at = i;
      }
    }
    if (at < 0) break;
    setI32(parts, at, best);
    for (let i = at + 1; i < n - 1; i++) {
      setI32(parts, i, i32At(parts, i + 1));
      setI32(pairRanks, i, i32At(pairRanks, i + 1));
    }
    n--;
    setI32(pairRanks, n - 1, NONE);
    setI32(pairRanks, at, at + 1 < n ? pairRank(best, i32At(parts, at + 1)) : NONE);
    if (at > 0) setI32(pairRanks, at - 1, pairRank(i32At(parts, at - 1), best));
  }
  return n;
}

/*
 * tiktoken's merge for long pieces in O(n log n): parts in a linked list, candidate pairs in a
 * binary min-heap keyed by (merged id, position). tiktoken's loop joins, at every step, the
 * adjacent pair whose merged token has the lowest id, the leftmost on ties; popping the heap's
 * smallest (id, position) that is still current is that same pair, since a surviving part keeps
 * the position it started at and positions grow left to right. Stale entries (a neighbour was
 * merged away, or its pair changed) are skipped on pop. The linear scan above stays the faster one
 * for the short pieces of ordinary text; this one is for runs like 'A'×200,000, where the scan is
 * quadratic (111 s).
 */
let nextOf: usize = 0;
let prevOf: usize = 0;
let pairOf: usize = 0;
let heapKeys: usize = 0;
let heapCapacity: i32 = 0;
let linkCapacity: i32 = 0;
let heapSize: i32 = 0;

function heapPush(key: u64): void {
  if (heapSize == heapCapacity) {
    const capacity = heapCapacity * 2;
    const grown = allocBytes(capacity << 3);
    memory.copy(grown, heapKeys, <usize>(heapSize << 3));
    heapKeys = grown;
    heapCapacity = capacity;
  }
  let i = heapSize++;
  while (i > 0) {
    const parent = (i - 1) >> 1;
    const parentKey = load<u64>(heapKeys + (<usize>parent << 3));
    if (parentKey <= key) break;
    store<u64>(heapKeys + (<usize>i << 3), parentKey);
    i = parent;
  }
  store<u64>(heapKeys + (<usize>i << 3), key);
}

function heapPop(): u64 {
  const top = load<u64>(heapKeys);
  const last = load<u64>(heapKeys + (<usize>--heapSize << 3));
  let i: i32 = 0;
  while (true) {
    let child = 2 * i + 1;
    if (child >= heapSize) break;
    if (child + 1 < heapSize && load<u64>(heapKeys + (<usize>(child + 1) << 3)) < load<u64>(heapKeys + (<usize>child << 3))) child++;
    const childKey = load<u64>(heapKeys + (<usize>child << 3));
    if (childKey >= last) break;
    store<u64>(heapKeys + (<usize>i << 3), childKey);
    i = child;
  }
  store<u64>(heapKeys + (<usize>i << 3), last);
  return top;
}

@inline function heapKey(id: i32, at: i32): u64 {
  return (<u64>id << 32) | <u64>at;
}

function heapMerge(n: i32): i32 {
  if (linkCapacity < n) {
    linkCapacity = max(n, linkCapacity * 2);
    nextOf = allocBytes(linkCapacity << 2);
    prevOf = allocBytes(linkCapacity << 2);
    pairOf = allocBytes(linkCapacity << 2);
  }
  if (heapCapacity < n + 8) {
    heapCapacity = n + 8; // heapPush doubles it when merges push more
    heapKeys = allocBytes(heapCapacity << 3);
  }
  heapSize = 0;
  for (let i: i32 = 0; i < n; i++) {
    setI32(nextOf, i, i + 1 < n ? i + 1 : -1);
    setI32(prevOf, i, i - 1);
  }
  for (let i: i32 = 0; i + 1 < n; i++) {
    const id = pairRank(i32At(parts, i), i32At(parts, i + 1));
    setI32(pairOf, i, id);
    if (id != NONE) heapPush(heapKey(id, i));
  }
  if (n > 0) setI32(pairOf, n - 1, NONE);
  while (heapSize > 0) {
    const key = heapPop();
    const id = <i32>(key >> 32);
    const at = <i32>(key & 0xffffffff);
    // Stale: the part was merged into its left neighbour, or its pair is no longer this one.
    if (i32At(pairOf, at) != id || i32At(nextOf, at) < 0) continue;
    const right = i32At(nextOf, at);
    setI32(parts, at, id);
    const after = i32At(nextOf, right);
    setI32(nextOf, at, after);
    if (after >= 0) setI32(prevOf, after, at);
    setI32(nextOf, right, -1);
    setI32(pairOf, right, NONE);
    setI32(prevOf, right, -2);
    const rightPair = after >= 0 ? pairRank(id, i32At(parts, after)) : NONE;
    setI32(pairOf, at, rightPair);
    if (rightPair != NONE) heapPush(heapKey(rightPair, at));
    const left = i32At(prevOf, at);
    if (left >= 0) {
      const leftPair = pairRank(i32At(parts, left), id);
      setI32(pairOf, left, leftPair);
      if (leftPair != NONE) heapPush(heapKey(leftPair, left));
    }
  }
  let count: i32 = 0;
  for (let i: i32 = 0; i >= 0 && i < n; i = i32At(nextOf, i)) setI32(parts, count++, i32At(parts, i));
  return count;
}

// ---------------------------------------------------------------------------------------------
// Piece cache: UTF-16 units → token count, for whole pieces and for parts between cuts

class PieceCache {
  /** Per slot: hash, arena offset + 1 (0 = empty), length, count. */
  slots: usize = 0;
  mask: i32 = 0;
  size: i32 = 0;
  arena: usize = 0;
  arenaUsed: i32 = 0;
  arenaCapacity: i32 = 0;

  constructor() {
    this.allocate(4096);
    this.arenaCapacity = 1 << 16;
    this.arena = allocBytes(this.arenaCapacity << 1);
  }

  /** The cached count of units[0, length), or -1. */
  get(units: usize, length: i32, hash: u32): i32 {
    const at = this.find(units, length, hash);
    return at >= 0 ? i32At(this.slots, at * 4 + 3) : -1;
  }

  set(units: usize, length: i32, hash: u32, count: i32): void {
    if (this.size >= PIECE_CACHE_LIMIT) this.clear();
    const found = this.find(units, length, hash);
    if (found >= 0) return;
    if (this.arenaUsed + length > this.arenaCapacity) {
      const capacity = max(this.arenaCapacity * 2, this.arenaUsed + length);
      const grown = allocBytes(capacity << 1);
      memory.copy(grown, this.arena, <usize>this.arenaUsed << 1);
      this.arena = grown;
      this.arenaCapacity = capacity;
    }
    memory.copy(this.arena + (<usize>this.arenaUsed << 1), units, <usize>length << 1);
    const at = -1 - found;
    setI32(this.slots, at * 4, <i32>hash);
    setI32(this.slots, at * 4 + 1, this.arenaUsed + 1);
    setI32(this.slots, at * 4 + 2, length);
    setI32(this.slots, at * 4 + 3, count);
    this.arenaUsed += length;
    if (++this.size * 2 > this.mask) this.grow();
  }

  clear(): void {
    memory.fill(this.slots, 0, <usize>(this.mask + 1) << 4);
    this.size = 0;
    this.arenaUsed = 0;
  }

  private find(units: usize, length: i32, hash: u32): i32 {
    let i = <i32>hash & this.mask;
    while (true) {
      const base = this.slots + (<usize>i << 4);
      const offset = load<i32>(base, 4);
      if (offset == 0) return -1 - i;
      if (load<u32>(base) == hash && load<i32>(base, 8) == length && sameUnits(this.arena + (<usize>(offset - 1) << 1), units, length)) return i;
      i = (i + 1) & this.mask;
    }
  }

  private allocate(slotCount: i32): void {
    this.slots = allocZeroed(slotCount << 4);
    this.mask = slotCount - 1;
    this.size = 0;
  }

  private grow(): void {
    const old = this.slots;
    const oldCount = this.mask + 1;
    this.allocate(oldCount * 2);
    for (let j: i32 = 0; j < oldCount; j++) {
      const base = old + (<usize>j << 4);
      if (load<i32>(base, 4) == 0) continue;
      let i = load<i32>(base) & this.mask;
      while (load<i32>(this.slots + (<usize>i << 4), 4) != 0) i = (i + 1) & this.mask;
      memory.copy(this.slots + (<usize>i << 4), base, 16);
      this.size++;
    }
  }
}

function sameUnits(a: usize, b: usize, length: i32): bool {
  for (let i: i32 = 0; i < length; i++) {
    if (load<u16>(a + (<usize>i << 1)) != load<u16>(b + (<usize>i << 1))) return false;
  }
  return true;
}

function unitsHash(units: usize, length: i32): u32 {
  let hash: u32 = 0x811c9dc5 ^ <u32>length;
  for (let i: i32 = 0; i < length; i++) hash = (hash ^ <u32>load<u16>(units + (<usize>i << 1))) * 0x01000193;
  hash ^= hash >> 16;
  hash *= 0x85ebca6b;
  hash ^= hash >> 13;
  return hash;
}

let pieceCache!: PieceCache;
/** Tokens of each BMP character on its own (0 = not yet known): the cache for one-character parts. */
let singleCharCounts: usize = 0;

// ---------------------------------------------------------------------------------------------
// Counting and encoding pieces

/** Offsets (in units) inside the piece at boundaries no token spans, into `cuts`; their number, or -1 on a lone surrogate. */
function findCuts(units: usize, length: i32): i32 {
  ensureCuts(length);
  let n: i32 = 0;
  let previous: i32 = -1;
  for (let i: i32 = 0; i < length; i++) {
    const at = i;
    let cp = <i32>load<u16>(units + (<usize>i << 1));
    if (cp >= 0xd800 && cp <= 0xdfff) {
      const low = i + 1 < length ? <i32>load<u16>(units + (<usize>(i + 1) << 1)) : 0;
      if (cp > 0xdbff || !(low >= 0xdc00 && low <= 0xdfff)) return -1; // lone surrogate: no cutting
      cp = 0x10000 + ((cp - 0xd800) << 10) + (low - 0xdc00);
      i++;
    }
    if (previous >= 0 && (previous >= 0x80 || cp >= 0x80) && cutMemo.get(previous, cp) == 1) setI32(cuts, n++, at);
    previous = cp;
  }
  return n;
}

/** Tokens of units[0, length), through the per-character memo or the piece cache. */
function countPart(units: usize, length: i32): i32 {
  if (length == 1) {
    const code = <i32>load<u16>(units);
    let count = <i32>load<u8>(singleCharCounts + <usize>code);
    if (count == 0) {
      count = rankOfUnits(units, 1) != NO_TOKEN ? 1 : merge(units, 1);
      store<u8>(singleCharCounts + <usize>code, <u8>count);
    }
    return count;
  }
  const hash = unitsHash(units, length);
  let count = pieceCache.get(units, length, hash);
  if (count < 0) {
    count = rankOfUnits(units, length) != NO_TOKEN ? 1 : merge(units, length);
    pieceCache.set(units, length, hash, count);
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
    const units = text + (<usize>start << 1);
    const length = end - start;
    const hash = unitsHash(units, length);
    let count = pieceCache.get(units, length, hash);
    if (count < 0) {
      count = rankOfUnits(units, length) != NO_TOKEN ? 1 : countByCuts(units, length);
      pieceCache.set(units, length, hash, count);
    }
    total += count;
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

/** Ids of `units`'s tokens appended to out[n…); returns the new length. */
function encodeUnits(units: usize, length: i32, n: i32): i32 {
  const rank = rankOfUnits(units, length);
  if (rank != NO_TOKEN) return emit(n, rank);
  const count = merge(units, length);
  for (let i: i32 = 0; i < count; i++) n = emit(n, i32At(parts, i));
  return n;
}

/** Token ids of the batch's pieces, at outAddress(); returns their number. */
export function encodePieces(pieces: i32): i32 {
  let n: i32 = 0;
  let start: i32 = 0;
  for (let k: i32 = 0; k < pieces; k++) {
    const end = i32At(ends, k);
    const units = text + (<usize>start << 1);
    const length = end - start;
    const rank = rankOfUnits(units, length);
    if (rank != NO_TOKEN) {
      n = emit(n, rank);
    } else {
      const cutCount = findCuts(units, length);
      if (cutCount <= 0) {
        n = encodeUnits(units, length, n);
      } else {
        // encodeUnits never writes `cuts`: it is read in place.
        let from: i32 = 0;
        for (let k2: i32 = 0; k2 < cutCount; k2++) {
          const to = i32At(cuts, k2);
          n = encodeUnits(units + (<usize>from << 1), to - from, n);
          from = to;
        }
        n = encodeUnits(units + (<usize>from << 1), length - from, n);
      }
    }
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
  return cutMemo.get(a, b);
}

/** How many set bits the span index has. */
export function spanBitsInIndex(): i32 {
  return spanBitCount;
}
