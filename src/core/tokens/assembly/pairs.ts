/** Merge priority of a pair of tokens: the id their bytes join into, memoised; NONE when they join into none. */
import { i32At, allocZeroed, setI32 } from './memory';
import { PairMemo } from './pairMemo';
import { joinedRank, NO_TOKEN } from './rankIndex';

/** Merge priority of a pair that joins into no token: above every id. */
export const NONE: i32 = 0x7fffffff;

/** Pairs of single-byte tokens, the first lookups of every byte-level merge: 0 = unknown, -1 = NONE, else id + 1. */
let bytePairs: usize = 0;
let pairMemo!: PairMemo;

function joinedPriority(a: i32, b: i32): i32 {
  const joined = joinedRank(a, b);
  return joined == NO_TOKEN ? NONE : joined;
}

export function initPairs(): void {
  bytePairs = allocZeroed(65536 << 2);
  pairMemo = new PairMemo(joinedPriority);
}

/** Merge priority of the pair (a, b): the id their bytes join into, or NONE. */
export function pairRank(a: i32, b: i32): i32 {
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
