/**
 * Production spans grouped by prompt version as they stream by: counts and sums, and the latency
 * values themselves for percentiles with intervals. Values are kept in typed arrays (8 bytes each);
 * past `maxValues` per series a seeded reservoir sample of that size is kept instead, so memory
 * has a bound whatever the traffic (the sample is said in the result).
 */
import { seededRandom } from '../stats/random';
import type { ImportedSpan, SkipReason } from './importOtlpSpans';
import { JSON_LINE_REFUSALS } from './importLines';

export const DEFAULT_MAX_VALUES = 1_000_000;

export class ValueSeries {
  private values = new Float64Array(1024);
  private kept = 0;
  /** Every value offered, kept or not. */
  seen = 0;
  private readonly random: () => number;

  constructor(private readonly maxValues = DEFAULT_MAX_VALUES, seed = 1) {
    this.random = seededRandom(seed);
  }

  add(value: number): void {
    this.seen++;
    if (this.kept < this.maxValues) {
      if (this.kept === this.values.length) {
        const grown = new Float64Array(Math.min(this.maxValues, this.values.length * 2));
        grown.set(this.values);
        this.values = grown;
      }
      this.values[this.kept++] = value;
      return;
    }
    // Algorithm R: the i-th value replaces a kept one with probability maxValues / i.
    const slot = Math.floor(this.random() * this.seen);
    if (slot < this.maxValues) this.values[slot] = value;
  }

  get sampled(): boolean {
    return this.seen > this.kept;
  }

  /** The kept values, sorted ascending (a copy). */
  sorted(): Float64Array {
    return this.values.slice(0, this.kept).sort();
  }
}

export interface VersionAggregate {
  promptName: string | null;
  version: string;
  requests: number;
  errors: number;
  errorsByType: Map<string, number>;
  firstSeenMs: number;
  lastSeenMs: number;
  ttftMs: ValueSeries;
  e2eMs: ValueSeries;
  tpotMs: ValueSeries;
  inputTokens: number;
  outputTokens: number;
  cacheReadTokens: number;
  /** Requests that reported input tokens (the denominator of the cache-read share). */
  withInputTokens: number;
  /** Cache-read tokens over the requests that reported both. */
  cacheReadOfReported: number;
  inputOfCacheReported: number;
}

export interface SkipCounts {
  /** Lines that could not be read as a TracesData object. */
  lines: number;
  /** Spans of GenAI inference calls that were left out. */
  spans: number;
  reasons: Partial<Record<SkipReason, number>>;
}

const LINE_REASONS: ReadonlySet<SkipReason> = new Set([...JSON_LINE_REFUSALS, 'not-traces-data', 'corrupt-gzip']);

export class ProdAggregator {
  readonly versions = new Map<string, VersionAggregate>();
  readonly skipped: SkipCounts = { lines: 0, spans: 0, reasons: {} };
  /** Spans that are not GenAI inference calls (other operations, plain application spans). */
  otherSpans = 0;
  /** Inference spans outside the time window (before `--since`, or after `--now`). */
  outsideWindow = 0;

  constructor(private readonly options: { sinceMs?: number; untilMs?: number; maxValues?: number } = {}) {}

  span(span: ImportedSpan): void {
    if ((this.options.sinceMs !== undefined && span.endMs < this.options.sinceMs) || (this.options.untilMs !== undefined && span.endMs > this.options.untilMs)) {
      this.outsideWindow++;
      return;
    }
    const key = `${span.promptName ?? ''}\u0000${span.promptVersion}`;
    let agg = this.versions.get(key);
    if (!agg) {
      const seed = this.versions.size + 1;
      const max = this.options.maxValues;
      agg = {
        promptName: span.promptName,
        version: span.promptVersion,
        requests: 0,
        errors: 0,
        errorsByType: new Map(),
        firstSeenMs: span.startMs,
        lastSeenMs: span.endMs,
        ttftMs: new ValueSeries(max, seed * 3),
        e2eMs: new ValueSeries(max, seed * 3 + 1),
        tpotMs: new ValueSeries(max, seed * 3 + 2),
        inputTokens: 0,
        outputTokens: 0,
        cacheReadTokens: 0,
        withInputTokens: 0,
        cacheReadOfReported: 0,
        inputOfCacheReported: 0,
      };
      this.versions.set(key, agg);
    }
    agg.requests++;
    agg.firstSeenMs = Math.min(agg.firstSeenMs, span.startMs);
    agg.lastSeenMs = Math.max(agg.lastSeenMs, span.endMs);
    if (span.inputTokens !== null) {
      agg.inputTokens += span.inputTokens;
      agg.withInputTokens++;
      if (span.cacheReadTokens !== null) {
        agg.cacheReadOfReported += span.cacheReadTokens;
        agg.inputOfCacheReported += span.inputTokens;
      }
    }
    if (span.outputTokens !== null) agg.outputTokens += span.outputTokens;
    if (span.cacheReadTokens !== null) agg.cacheReadTokens += span.cacheReadTokens;
    if (span.errorType !== null) {
      agg.errors++;
      agg.errorsByType.set(span.errorType, (agg.errorsByType.get(span.errorType) ?? 0) + 1);
      return; // latency of a failed call is not the prompt's latency (as in `run`: successes only)
    }
    agg.e2eMs.add(span.e2eMs);
    if (span.ttftMs !== null) agg.ttftMs.add(span.ttftMs);
    if (span.tpotMs !== null) agg.tpotMs.add(span.tpotMs);
  }

  skip(reason: SkipReason): void {
    if (LINE_REASONS.has(reason)) this.skipped.lines++;
    else this.skipped.spans++;
    this.skipped.reasons[reason] = (this.skipped.reasons[reason] ?? 0) + 1;
  }

  other(): void {
    this.otherSpans++;
  }
}
