/**
 * tiktoken's merge for long pieces in O(n log n): parts in a linked list, candidate pairs in a
 * binary min-heap keyed by (merged id, position). tiktoken's loop joins, at every step, the
 * adjacent pair whose merged token has the lowest id, the leftmost on ties; popping the heap's
 * smallest (id, position) that is still current is that same pair, since a surviving part keeps
 * the position it started at and positions grow left to right. Stale entries (a neighbour was
 * merged away, or its pair changed) are skipped on pop. The linear scan (merge.ts) stays the faster one
 * for the short pieces of ordinary text; this one is for runs like 'A'×200,000, where the scan is
 * quadratic (111 s).
 */
import { allocBytes, i32At, setI32 } from './memory';
import { NONE, pairRank } from './pairs';

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

/** Merges parts[0, n) in place; returns the token count, ids in parts[0, count). */
export function heapMerge(parts: usize, n: i32): i32 {
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
