/**
 * The rank file's tokens, read by JavaScript straight into this memory, and the index over them:
 * token bytes → id.
 *
 * Start-up is mostly first touches of fresh memory (~4 ms per MB on the machines measured), so the
 * index is kept small: a byte offset per 16 ids instead of per id (50 KB, not 800 KB), and 1 MB of
 * slots at a load of ~0.76 instead of 2 MB at 0.38, each slot holding the id and 14 bits of the
 * hash so that a probe rarely needs the token's bytes.
 */
import { allocBytes, allocZeroed, i32At, setI32 } from './memory';

export const NO_TOKEN: i32 = -1;
export const MAX_TOKEN_BYTES: i32 = 255;

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
export function reserveRankFile(bytes: i32): usize {
  return allocBytes(bytes);
}

/**
 * Starts the index over the rank file where it was read (../rankFile.ts has the layout; JavaScript
 * has checked the header and the sizes); then indexTokens(from, to) in chunks. Returns 0, or -3
 * for more ids than a slot holds.
 */
export function beginIndex(count: i32, lengthsAt: usize, blobAt: usize): i32 {
  if (<u32>count >= ID_MASK) return -3;
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

/** Ids indexed so far, as bytes of the blob. */
export function indexedByteCount(): i32 {
  return indexedBytes;
}

/** The id of each single byte; -1 when done, else the byte that has no token. */
export function buildByteRanks(): i32 {
  byteRanks = allocBytes(256 << 2);
  const single = allocBytes(1);
  for (let b: i32 = 0; b < 256; b++) {
    store<u8>(single, <u8>b);
    const rank = rankOf(single, 1);
    if (rank == NO_TOKEN) return b;
    setI32(byteRanks, b, rank);
  }
  return -1;
}

/** The id of the single byte b. */
@inline export function byteRank(b: i32): i32 {
  return i32At(byteRanks, b);
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
export function rankOf(bytes: usize, length: i32): i32 {
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
export function joinedRank(a: i32, b: i32): i32 {
  const aLength = tokenLength(a);
  const bLength = tokenLength(b);
  if (aLength + bLength > MAX_TOKEN_BYTES) return NO_TOKEN;
  memory.copy(joined, blob + <usize>tokenOffset(a), <usize>aLength);
  memory.copy(joined + <usize>aLength, blob + <usize>tokenOffset(b), <usize>bLength);
  return rankOf(joined, aLength + bLength);
}

const joined: usize = heap.alloc(2 * MAX_TOKEN_BYTES + 8);
