/**
 * Safe cuts: character boundaries no token spans, read from the rank file's span index
 * (../spanIndex.ts explains it and writes it; the same hashes here, so its bits mean the same).
 */
import { allocZeroed } from './memory';
import { PairMemo } from './pairMemo';
import { utf8Into } from './utf8';

const SPAN_INDEX_MASK: u32 = (1 << 24) - 1;

let spanSlots: usize = 0;
let spanMask: u32 = 0;
const unitBytes: usize = heap.alloc(16);

let spanBitCount: i32 = 0;
let cutMemo!: PairMemo;

/**
 * Places the span index's set bits in a hash set, decoding them from the file as they come: ascending
 * numbers stored as LEB128 varints of their gaps (rankFile.ts). False when the varints are corrupt.
 */
export function buildSpanSet(spans: usize, spanBytes: i32): bool {
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
  cutMemo = new PairMemo(computeCut);
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

/** True when no token spans the boundary between code points a and b. */
export function isCutBetween(a: i32, b: i32): bool {
  return cutMemo.get(a, b) == 1;
}

/** How many set bits the span index has. */
export function spanBitsInIndex(): i32 {
  return spanBitCount;
}
