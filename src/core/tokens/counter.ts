import type { EncodingName, TokenEncoder } from './engine';
import { splitAtSafeBoundaries } from './segments';

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
  private readonly caches = new Map<EncodingName, Map<string, number>>();
  private cachedChars = 0;
  readonly stats: CounterStats = { charsEncoded: 0, segmentsEncoded: 0, cacheHits: 0 };

  constructor(private readonly maxCachedChars = 16_000_000) {}

  count(encoder: TokenEncoder, text: string): number {
    if (text.length === 0) return 0;
    let total = 0;
    for (const segment of splitAtSafeBoundaries(text)) total += this.countSegment(encoder, segment);
    return total;
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
