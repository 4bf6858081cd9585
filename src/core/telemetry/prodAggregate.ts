/**
 * Production spans grouped by prompt version as they stream by: counts and sums, and the latency
 * values themselves for percentiles with intervals. Values are kept in typed arrays (8 bytes each);
 * past `maxValues` per series a seeded reservoir sample of that size is kept instead, so memory
 * has a bound whatever the traffic (the sample is said in the result).
 */
import { seededRandom } from '../stats/random';
import { mergeReservoirs } from '../stats/reservoir';
import type { SourceId } from './conventions';
import type { ImportedSpan, SkipReason } from './importOtlpSpans';
import { JSON_LINE_REFUSALS } from './importLines';
import type { VersionOrigin } from './traceJoin';
import { HourlyValues } from './matchedHours';

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

  /** Another series' values pooled with this one's (two production labels of one revision), each in proportion to what it saw. */
  absorb(other: ValueSeries): void {
    const merged = mergeReservoirs([...this.values.subarray(0, this.kept)], this.seen, [...other.values.subarray(0, other.kept)], other.seen, this.maxValues, this.random);
    this.values = Float64Array.from(merged);
    this.kept = merged.length;
    this.seen += other.seen;
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
  /** Requests per hour, for comparisons over matched time (matchedHours.ts). */
  hourly: HourlyValues;
  /** The labels production gave this version (a registry integer, a deploy commit, …), with their requests. */
  labels: Map<string, number>;
  /** Where each request's version came from, and which convention its span was read with. */
  versionFrom: Map<VersionOrigin, number>;
  sources: Map<SourceId, number>;
}

/** Per convention (conventions.ts): model calls read, with a TTFT, and left out by reason. */
export interface SourceCounts {
  read: number;
  withTtft: number;
  failed: number;
  skipped: Partial<Record<SkipReason, number>>;
}

export interface SkipCounts {
  /** Lines that could not be read as a TracesData object. */
  lines: number;
  /** Spans of GenAI inference calls that were left out. */
  spans: number;
  reasons: Partial<Record<SkipReason, number>>;
}

/** A production label (and name) → the version it is counted under. */
export type Relabel = (name: string | null, version: string) => { name: string | null; version: string };

/** A reader of spans that counts per version and can rename them after the read (versionResolver.ts revisionRename). */
export interface Relabelable {
  relabel(rename: Relabel): void;
}

/** The key of a prompt name and version in the per-version maps. */
export const versionKey = (name: string | null, version: string): string => `${name ?? ''}\u0000${version}`;

/** Re-keys a per-version map after a rename; an entry that lands on a key already taken is merged into it. */
export function relabelMap<T>(map: Map<string, T>, rename: Relabel, identityOf: (entry: T) => { name: string | null; version: string }, renamed: (entry: T, name: string | null, version: string) => T, merge: (into: T, from: T) => void): void {
  const old = [...map.values()];
  map.clear();
  for (const entry of old) {
    const was = identityOf(entry);
    const { name, version } = rename(was.name, was.version);
    const key = versionKey(name, version);
    const into = map.get(key);
    if (into) merge(into, entry);
    else map.set(key, renamed(entry, name, version));
  }
}

function addCounts<K>(into: Map<K, number>, from: ReadonlyMap<K, number>): void {
  for (const [k, n] of from) into.set(k, (into.get(k) ?? 0) + n);
}

function mergeAggregate(into: VersionAggregate, from: VersionAggregate): void {
  into.requests += from.requests;
  into.errors += from.errors;
  addCounts(into.errorsByType, from.errorsByType);
  into.firstSeenMs = Math.min(into.firstSeenMs, from.firstSeenMs);
  into.lastSeenMs = Math.max(into.lastSeenMs, from.lastSeenMs);
  into.ttftMs.absorb(from.ttftMs);
  into.e2eMs.absorb(from.e2eMs);
  into.tpotMs.absorb(from.tpotMs);
  into.hourly.absorb(from.hourly);
  into.inputTokens += from.inputTokens;
  into.outputTokens += from.outputTokens;
  into.cacheReadTokens += from.cacheReadTokens;
  into.withInputTokens += from.withInputTokens;
  into.cacheReadOfReported += from.cacheReadOfReported;
  into.inputOfCacheReported += from.inputOfCacheReported;
  addCounts(into.labels, from.labels);
  addCounts(into.versionFrom, from.versionFrom);
  addCounts(into.sources, from.sources);
}

const LINE_REASONS: ReadonlySet<SkipReason> = new Set([...JSON_LINE_REFUSALS, 'not-traces-data', 'corrupt-gzip']);

export class ProdAggregator {
  readonly versions = new Map<string, VersionAggregate>();
  readonly skipped: SkipCounts = { lines: 0, spans: 0, reasons: {} };
  readonly bySource = new Map<SourceId, SourceCounts>();
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
    const key = versionKey(span.promptName, span.promptVersion);
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
        hourly: new HourlyValues(seed * 3 + 3),
        labels: new Map([[span.promptVersion, 0]]),
        versionFrom: new Map(),
        sources: new Map(),
      };
      this.versions.set(key, agg);
    }
    agg.requests++;
    agg.labels.set(span.promptVersion, (agg.labels.get(span.promptVersion) ?? 0) + 1);
    agg.versionFrom.set(span.versionFrom, (agg.versionFrom.get(span.versionFrom) ?? 0) + 1);
    agg.sources.set(span.source, (agg.sources.get(span.source) ?? 0) + 1);
    const source = this.source(span.source);
    source.read++;
    if (span.ttftMs !== null) source.withTtft++;
    if (span.errorType !== null) source.failed++;
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
    agg.hourly.add(span.startMs, span.errorType !== null, span.ttftMs, span.e2eMs);
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

  skip(reason: SkipReason, sourceId?: SourceId): void {
    if (LINE_REASONS.has(reason)) this.skipped.lines++;
    else this.skipped.spans++;
    this.skipped.reasons[reason] = (this.skipped.reasons[reason] ?? 0) + 1;
    if (sourceId) {
      const source = this.source(sourceId);
      source.skipped[reason] = (source.skipped[reason] ?? 0) + 1;
    }
  }

  /** Versions renamed (labels of one revision become that revision), aggregates of one name merged. */
  relabel(rename: Relabel): void {
    relabelMap(this.versions, rename, (agg) => ({ name: agg.promptName, version: agg.version }), (agg, promptName, version) => ({ ...agg, promptName, version }), mergeAggregate);
  }

  private source(id: SourceId): SourceCounts {
    let counts = this.bySource.get(id);
    if (!counts) this.bySource.set(id, (counts = { read: 0, withTtft: 0, failed: 0, skipped: {} }));
    return counts;
  }

  other(): void {
    this.otherSpans++;
  }
}
