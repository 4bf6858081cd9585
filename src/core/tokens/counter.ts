import { commonPrefixLength, commonSuffixLength } from './commonAffix';
import type { TokenEncoder } from './engine';
import { safeCuts } from './segments';

const MAX_SLOTS = 4096;

interface SlotState {
  encoding: string;
  text: string;
  /** Start offset of every segment; the first is 0. */
  starts: number[];
  counts: number[];
  total: number;
}

function sum(values: number[]): number {
  let total = 0;
  for (const v of values) total += v;
  return total;
}

export interface CounterStats {
  /** Characters that went through the BPE encoder (cache misses). */
  charsEncoded: number;
  segmentsEncoded: number;
  cacheHits: number;
}

/**
 * Counts tokens with a per-encoding cache of segment counts. Text is cut at boundaries no BPE
 * piece crosses (see segments.ts), so after an edit only the segment that changed is encoded
 * again; everything else is a map lookup. The cache is bounded by total cached characters.
 */
export class TokenCounter {
  private readonly caches = new Map<string, Map<string, number>>();
  private cachedChars = 0;
  readonly stats: CounterStats = { charsEncoded: 0, segmentsEncoded: 0, cacheHits: 0 };

  private readonly slots = new Map<string, SlotState>();

  constructor(private readonly maxCachedChars = 16_000_000) {}

  /**
   * Counts a text that replaces an earlier version under the same `slot` (a message of an open
   * document). Only the region between the common prefix and suffix of the two versions is cut
   * and looked up again, so a one-character edit in a 200k-character message costs two string
   * scans and one segment's encoding, not a pass over every segment.
   */
  countVersion(encoder: TokenEncoder, text: string, slot: string): number {
    const previous = this.slots.get(slot);
    const next = previous && previous.encoding === encoder.name && encoder.segmentable ? this.reuse(encoder, previous, text) : this.fresh(encoder, text);
    if (!previous && this.slots.size >= MAX_SLOTS) this.slots.clear();
    this.slots.set(slot, next);
    return next.total;
  }

  private fresh(encoder: TokenEncoder, text: string): SlotState {
    const { starts, counts } = this.countRange(encoder, text, 0, text.length);
    return { encoding: encoder.name, text, starts, counts, total: sum(counts) };
  }

  /** Cuts text[from, to) at its safe boundaries and counts each segment; `from` must itself be a cut (or 0). Whole when the encoder may not be cut. */
  private countRange(encoder: TokenEncoder, text: string, from: number, to: number): { starts: number[]; counts: number[] } {
    const starts = encoder.segmentable ? [from, ...safeCuts(text, from, to)] : [from];
    const counts = starts.map((start, i) => this.countSegment(encoder, text.slice(start, i + 1 < starts.length ? starts[i + 1] : to)));
    return { starts, counts };
  }

  private reuse(encoder: TokenEncoder, previous: SlotState, text: string): SlotState {
    if (previous.text === text) return previous;
    const old = previous.text;
    const limit = Math.min(old.length, text.length);
    const prefix = commonPrefixLength(old, text);
    const suffix = commonSuffixLength(old, text, limit - prefix);
    const delta = text.length - old.length;
    const { starts, counts } = previous;
    // A cut at i depends on the characters at i-1 and i only. Keep leading segments whose end cut
    // lies in the common prefix, and trailing ones whose start cut lies in the common suffix.
    let head = 0;
    while (head + 1 < starts.length && starts[head + 1]! <= prefix - 1) head++;
    let tail = starts.length;
    while (tail - 1 > head && starts[tail - 1]! - 1 >= old.length - suffix) tail--;
    const middleStart = starts[head]!; // a kept cut (or 0), unchanged in the new text
    const middleEnd = tail < starts.length ? starts[tail]! + delta : text.length;
    const middle = this.countRange(encoder, text, middleStart, middleEnd);
    const nextStarts = [...starts.slice(0, head), ...middle.starts, ...starts.slice(tail).map((start) => start + delta)];
    const nextCounts = [...counts.slice(0, head), ...middle.counts, ...counts.slice(tail)];
    return { encoding: encoder.name, text, starts: nextStarts, counts: nextCounts, total: sum(nextCounts) };
  }

  count(encoder: TokenEncoder, text: string): number {
    if (text.length === 0) return 0;
    return sum(this.countRange(encoder, text, 0, text.length).counts);
  }

  private countSegment(encoder: TokenEncoder, segment: string): number {
    let cache = this.caches.get(encoder.name);
    if (!cache) {
      cache = new Map();
      this.caches.set(encoder.name, cache);
    }
    const cached = cache.get(segment);
    if (cached !== undefined) {
      this.stats.cacheHits++;
      return cached;
    }
    const tokens = encoder.count(segment);
    this.stats.charsEncoded += segment.length;
    this.stats.segmentsEncoded++;
    if (segment.length <= this.maxCachedChars / 4) {
      if (this.cachedChars + segment.length > this.maxCachedChars) this.evictOldest();
      cache.set(segment, tokens);
      this.cachedChars += segment.length;
    }
    return tokens;
  }

  /** Drops the older half of every cache (insertion order); cheap and good enough for editing. */
  private evictOldest(): void {
    for (const cache of this.caches.values()) {
      let drop = Math.ceil(cache.size / 2);
      for (const key of cache.keys()) {
        if (drop-- <= 0) break;
        cache.delete(key);
        this.cachedChars -= key.length;
      }
    }
  }
}
