import { IntPairMemo, NONE } from './intPairMemo';

interface Pairs {
  get(a: number, b: number): number;
}

const UNSEEN = -1;
const NO_SHORTCUT = -2;

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
export class CharLevelStart {
  // Allocated on the first non-ASCII piece: fresh memory costs start-up time (a page fault per 4 KB).
  private bmpToken: Int32Array | undefined;
  private bmpIntraMax = new Int32Array(0);
  private readonly astral = new Map<number, { token: number; intraMax: number }>();
  private readonly partials = new Map<number, { leading: number[]; trailing: number[] }>();
  private readonly crossMin: IntPairMemo;
  private codePoints = new Int32Array(256);

  constructor(private readonly pairs: Pairs, private readonly byteRanks: Int32Array) {
    this.crossMin = new IntPairMemo((c, d) => this.computeCrossMin(c, d));
  }

  /**
   * Writes the starting parts of `piece` into `out` (whole-character tokens where safe, bytes
   * elsewhere) and returns their number, or -1 when no character can start whole.
   */
  tryStart(piece: string, out: Int32Array): number {
    if (this.codePoints.length < piece.length) this.codePoints = new Int32Array(piece.length * 2);
    const codePoints = this.codePoints;
    let n = 0;
    for (let i = 0; i < piece.length; i++) {
      let cp = piece.charCodeAt(i);
      if (cp >= 0xd800 && cp <= 0xdfff) {
        const low = piece.charCodeAt(i + 1);
        if (cp > 0xdbff || !(low >= 0xdc00 && low <= 0xdfff)) return -1; // lone surrogate: bytes path
        cp = 0x10000 + ((cp - 0xd800) << 10) + (low - 0xdc00);
        i++;
      }
      codePoints[n++] = cp;
    }
    let lowestCross = NONE;
    for (let j = 0; j + 1 < n; j++) {
      const cross = this.crossMin.get(codePoints[j]!, codePoints[j + 1]!);
      if (cross < lowestCross) lowestCross = cross;
    }
    let parts = 0;
    let anyWhole = false;
    for (let j = 0; j < n; j++) {
      const cp = codePoints[j]!;
      const { token, intraMax } = this.info(cp);
      if (token !== NO_SHORTCUT && intraMax < lowestCross) {
        out[parts++] = token;
        if (intraMax >= 0) anyWhole = true;
      } else {
        for (const byte of utf8Bytes(cp)) out[parts++] = this.byteRanks[byte]!;
      }
    }
    return anyWhole ? parts : -1;
  }

  private info(cp: number): { token: number; intraMax: number } {
    if (cp < 0x10000) {
      if (!this.bmpToken) {
        this.bmpToken = new Int32Array(0x10000).fill(UNSEEN);
        this.bmpIntraMax = new Int32Array(0x10000);
      }
      if (this.bmpToken[cp] === UNSEEN) {
        const learned = this.learn(cp);
        this.bmpToken[cp] = learned.token;
        this.bmpIntraMax[cp] = learned.intraMax;
      }
      return { token: this.bmpToken[cp]!, intraMax: this.bmpIntraMax[cp]! };
    }
    let entry = this.astral.get(cp);
    if (!entry) {
      entry = this.learn(cp);
      this.astral.set(cp, entry);
    }
    return entry;
  }

  /** Runs the byte-level merge on the character alone, recording the leading and trailing parts it passes through. */
  private learn(cp: number): { token: number; intraMax: number } {
    const parts = utf8Bytes(cp).map((b) => this.byteRanks[b]!);
    const leading: number[] = [];
    const trailing: number[] = [];
    let intraMax = -1;
    while (parts.length > 1) {
      leading.push(parts[0]!);
      trailing.push(parts[parts.length - 1]!);
      let best = NONE;
      let at = -1;
      for (let i = 0; i + 1 < parts.length; i++) {
        const rank = this.pairs.get(parts[i]!, parts[i + 1]!);
        if (rank < best) {
          best = rank;
          at = i;
        }
      }
      if (at < 0) break; // the character alone ends in several tokens
      parts.splice(at, 2, best);
      if (best > intraMax) intraMax = best;
    }
    leading.push(parts[0]!);
    trailing.push(parts[parts.length - 1]!);
    this.partials.set(cp, { leading, trailing });
    return { token: parts.length === 1 ? parts[0]! : NO_SHORTCUT, intraMax };
  }

  /** Lowest merge id of any pair that can form across the boundary c|d before a cross merge, final parts included. */
  private computeCrossMin(c: number, d: number): number {
    this.info(c);
    this.info(d);
    const trailing = this.partials.get(c)!.trailing;
    const leading = this.partials.get(d)!.leading;
    let min = NONE;
    for (const s of trailing) {
      for (const p of leading) {
        const rank = this.pairs.get(s, p);
        if (rank < min) min = rank;
      }
    }
    return min;
  }
}

function utf8Bytes(cp: number): number[] {
  if (cp < 0x80) return [cp];
  if (cp < 0x800) return [0xc0 | (cp >> 6), 0x80 | (cp & 0x3f)];
  if (cp < 0x10000) return [0xe0 | (cp >> 12), 0x80 | ((cp >> 6) & 0x3f), 0x80 | (cp & 0x3f)];
  return [0xf0 | (cp >> 18), 0x80 | ((cp >> 12) & 0x3f), 0x80 | ((cp >> 6) & 0x3f), 0x80 | (cp & 0x3f)];
}
