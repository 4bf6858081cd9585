/** tiktoken's merge of a piece's UTF-8 bytes: lowest merged id first, leftmost on ties. */
import { charLevelStart } from './charLevel';
import { heapMerge } from './heapMerge';
import { allocBytes, i32At, setI32 } from './memory';
import { NONE, pairRank } from './pairs';
import { byteRank, MAX_TOKEN_BYTES, NO_TOKEN, rankOf } from './rankIndex';
import { decodeCodePoints, utf8OfUnits } from './utf8';

/** Above this many starting parts the heap merge wins over the linear scan (measured: bench tokenizers). */
const HEAP_MERGE_MIN_PARTS: i32 = 256;

let parts: usize = 0;
let pairRanks: usize = 0;
let codePoints: usize = 0;
let workCapacity: i32 = 0;
let bytes: usize = 0;
let bytesCapacity: i32 = 0;

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

/** The id of units[0, length) as one token, or NO_TOKEN. */
export function rankOfUnits(units: usize, length: i32): i32 {
  if (length > MAX_TOKEN_BYTES) return NO_TOKEN;
  ensureBytes(length);
  const written = utf8OfUnits(units, length, bytes);
  return written > MAX_TOKEN_BYTES ? NO_TOKEN : rankOf(bytes, written);
}

/** tiktoken's merge of units[0, length)'s UTF-8 bytes; returns the token count, ids in parts[0, count). */
export function merge(units: usize, length: i32): i32 {
  ensureWork(length);
  let n: i32 = -1;
  const points = decodeCodePoints(units, length, codePoints);
  if (points >= 0) n = charLevelStart(codePoints, points, parts);
  if (n < 0) {
    ensureBytes(length);
    const written = utf8OfUnits(units, length, bytes);
    for (let i: i32 = 0; i < written; i++) setI32(parts, i, byteRank(<i32>load<u8>(bytes + <usize>i)));
    n = written;
  }
  if (n <= 1) return n;
  if (n > HEAP_MERGE_MIN_PARTS) return heapMerge(parts, n);
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

/** Token id i of the last merge. */
@inline export function mergedId(i: i32): i32 {
  return i32At(parts, i);
}
