/**
 * Character-level start of a merge: from whole characters instead of bytes where that provably
 * gives the same tokens.
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
import { allocBytes, allocZeroed, i32At, setI32 } from './memory';
import { PairMemo } from './pairMemo';
import { NONE, pairRank } from './pairs';
import { byteRank } from './rankIndex';
import { utf8Into } from './utf8';

const NO_SHORTCUT: i32 = -2;

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
/** One character's UTF-8 bytes. */
const charBytes: usize = heap.alloc(8);
let crossMemo!: PairMemo;
let astralMemo!: PairMemo;

export function initCharLevel(): void {
  crossMemo = new PairMemo(computeCrossMin);
  astralMemo = new PairMemo(learnAstral);
}

function learnAstral(cp: i32, _unused: i32): i32 {
  return learn(cp);
}

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
  for (let i: i32 = 0; i < n; i++) setI32(learnParts, i, byteRank(<i32>load<u8>(learnParts + 16 + <usize>i)));
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
export function charLevelStart(codePoints: usize, n: i32, parts: usize): i32 {
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
      const length = utf8Into(cp, charBytes);
      for (let k: i32 = 0; k < length; k++) setI32(parts, count++, byteRank(<i32>load<u8>(charBytes + <usize>k)));
    }
  }
  return anyWhole ? count : -1;
}
