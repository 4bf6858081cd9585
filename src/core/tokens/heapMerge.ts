/**
 * tiktoken's merge for long pieces in O(n log n): parts in a linked list, candidate pairs in a
 * binary min-heap keyed by (merged id, position). tiktoken's loop joins, at every step, the
 * adjacent pair whose merged token has the lowest id, the leftmost on ties; popping the heap's
 * smallest (id, position) that is still current is that same pair, since a surviving part keeps
 * the position it started at and positions grow left to right. Stale entries (a neighbour was
 * merged away, or its pair changed) are skipped on pop. The linear-scan merge in bpe.ts stays the
 * faster one for the short pieces of ordinary text; this one is for runs like 'A'×200,000, where the
 * scan was quadratic (111 s).
 */
import { NONE } from './intPairMemo';

export interface PairLookup {
  get(a: number, b: number): number;
}

/** 2^32: a heap key is id · 2^32 + position, exact in a double for ids < 2^21. */
const POSITION_SPAN = 4294967296;

export class HeapMerge {
  private next = new Int32Array(0);
  private prev = new Int32Array(0);
  private pairOf = new Int32Array(0);
  private heap = new Float64Array(0);

  /**
   * Merges `parts[0..n)` in place and returns the token count; the ids are then `parts[0..count)`.
   */
  merge(parts: Int32Array, n: number, pairs: PairLookup): number {
    if (this.next.length < n) {
      this.next = new Int32Array(n);
      this.prev = new Int32Array(n);
      this.pairOf = new Int32Array(n);
      this.heap = new Float64Array(n * 3 + 8);
    }
    const { next, prev, pairOf } = this;
    let size = 0;
    let heap = this.heap;
    const push = (key: number): void => {
      if (size === heap.length) {
        const grown = new Float64Array(heap.length * 2);
        grown.set(heap);
        heap = this.heap = grown;
      }
      let i = size++;
      while (i > 0) {
        const parent = (i - 1) >> 1;
        if (heap[parent]! <= key) break;
        heap[i] = heap[parent]!;
        i = parent;
      }
      heap[i] = key;
    };
    const pop = (): number => {
      const top = heap[0]!;
      const last = heap[--size]!;
      let i = 0;
      for (;;) {
        let child = 2 * i + 1;
        if (child >= size) break;
        if (child + 1 < size && heap[child + 1]! < heap[child]!) child++;
        if (heap[child]! >= last) break;
        heap[i] = heap[child]!;
        i = child;
      }
      heap[i] = last;
      return top;
    };

    for (let i = 0; i < n; i++) {
      next[i] = i + 1 < n ? i + 1 : -1;
      prev[i] = i - 1;
    }
    for (let i = 0; i + 1 < n; i++) {
      const id = pairs.get(parts[i]!, parts[i + 1]!);
      pairOf[i] = id;
      if (id !== NONE) push(id * POSITION_SPAN + i);
    }
    if (n > 0) pairOf[n - 1] = NONE;

    while (size > 0) {
      const key = pop();
      const id = Math.floor(key / POSITION_SPAN);
      const at = key - id * POSITION_SPAN;
      // Stale: the part was merged into its left neighbour, or its pair is no longer this one.
      if (pairOf[at] !== id || next[at]! < 0) continue;
      const right = next[at]!;
      parts[at] = id;
      // Remove `right`: it joined `at`.
      const after = next[right]!;
      next[at] = after;
      if (after >= 0) prev[after] = at;
      next[right] = -1;
      pairOf[right] = NONE;
      prev[right] = -2;
      const rightPair = after >= 0 ? pairs.get(id, parts[after]!) : NONE;
      pairOf[at] = rightPair;
      if (rightPair !== NONE) push(rightPair * POSITION_SPAN + at);
      const left = prev[at]!;
      if (left >= 0) {
        const leftPair = pairs.get(parts[left]!, id);
        pairOf[left] = leftPair;
        if (leftPair !== NONE) push(leftPair * POSITION_SPAN + left);
      }
    }
    // Compact the surviving parts, left to right.
    let count = 0;
    for (let i = 0; i >= 0 && i < n; i = next[i]!) parts[count++] = parts[i]!;
    return count;
  }
}
