/**
 * Production spans of one prompt → hourly series for the dynamic baseline: TTFT and E2E p99 and the
 * error rate per window (the lower end of its Wilson interval, so a window of few requests needs more
 * than one error to count), and when each prompt version was first seen (version changes). Memory is
 * bounded: at most `maxPerWindow` latency values per window and metric (a fixed-seed reservoir
 * beyond), so a month of busy traffic stays small.
 */
import type { ImportedSpan, SkipReason, SpanSink } from '../telemetry/importOtlpSpans';
import { wilsonInterval } from '../stats/proportions';
import { seededRandom } from '../stats/random';
import { reservoirKeep } from '../stats/reservoir';
import type { VersionChange } from './anomalies';
import type { SeriesPoint } from '../stats/seasonalBaseline';

export type WatchMetric = 'ttft.p99' | 'e2e.p99' | 'error-rate';
export const WATCH_METRICS: readonly WatchMetric[] = ['ttft.p99', 'e2e.p99', 'error-rate'];

interface Window {
  requests: number;
  errors: number;
  ttft: number[];
  e2e: number[];
  tpot: number[];
  /** Values offered to each reservoir (successful requests with that figure): Algorithm R's count, not `requests`. */
  seen: { ttft: number; e2e: number; tpot: number };
  inputTokens: number;
  withInput: number;
}

/** Windows with fewer requests than this give no percentile (a p99 of 5 requests is their maximum). */
const MIN_REQUESTS_PER_WINDOW = 10;

/** A span may end this far after this machine's clock before it is "in the future" (not counted). */
export const FUTURE_TOLERANCE_MS = 5 * 60_000;
/** The same span in two files may differ this much before the sources' clocks are said to disagree. */
export const SKEW_TOLERANCE_MS = 1000;
/** Span ids remembered for spotting the same span in several files. */
const MAX_REMEMBERED_IDS = 200_000;

export class SpanWindows implements SpanSink {
  private readonly windows = new Map<number, Window>();
  private readonly seenIds = new Map<string, { file: number; endMs: number }>();
  /** Which of the trace files is being read (set by the reader between files). */
  file = 0;
  /** Spans ending after now + tolerance: a clock ahead of ours; not counted (an hour that has not happened is not "ongoing"). */
  future = { spans: 0, maxAheadMs: 0 };
  /** The same span (trace and span id) in more than one file: counted once; how many disagree on time, and by how much. */
  repeated = { spans: 0, skewed: 0, maxSkewMs: 0 };
  private readonly firstSeen = new Map<string, number>();
  private readonly random = seededRandom(7);
  readonly skipped = new Map<SkipReason, number>();
  matched = 0;
  others = 0;

  constructor(
    private readonly promptNames: ReadonlySet<string>,
    private readonly windowMs = 3_600_000,
    private readonly maxPerWindow = 5000,
    private readonly nowMs = Date.now(),
    /** Spot the same span in several files (watch's sources' clocks); the editor's reader, which counts spans once per read, skips the cost. */
    private readonly rememberIds = true,
  ) {}

  span(span: ImportedSpan): void {
    if (span.promptName === null || !this.promptNames.has(span.promptName)) {
      this.others++;
      return;
    }
    if (span.endMs > this.nowMs + FUTURE_TOLERANCE_MS) {
      this.future.spans++;
      this.future.maxAheadMs = Math.max(this.future.maxAheadMs, span.endMs - this.nowMs);
      return;
    }
    if (this.rememberIds && span.traceId && span.spanId) {
      const id = `${span.traceId}/${span.spanId}`;
      const seen = this.seenIds.get(id);
      if (seen) {
        this.repeated.spans++;
        const skew = Math.abs(span.endMs - seen.endMs);
        if (seen.file !== this.file && skew > SKEW_TOLERANCE_MS) {
          this.repeated.skewed++;
          this.repeated.maxSkewMs = Math.max(this.repeated.maxSkewMs, skew);
        }
        return;
      }
      if (this.seenIds.size < MAX_REMEMBERED_IDS) this.seenIds.set(id, { file: this.file, endMs: span.endMs });
    }
    this.matched++;
    const start = Math.floor(span.startMs / this.windowMs) * this.windowMs;
    let w = this.windows.get(start);
    if (!w) this.windows.set(start, (w = { requests: 0, errors: 0, ttft: [], e2e: [], tpot: [], seen: { ttft: 0, e2e: 0, tpot: 0 }, inputTokens: 0, withInput: 0 }));
    w.requests++;
    if (span.inputTokens !== null) (w.inputTokens += span.inputTokens), w.withInput++;
    if (span.errorType !== null) w.errors++;
    else {
      this.keep(w, 'ttft', span.ttftMs);
      this.keep(w, 'e2e', span.e2eMs);
      this.keep(w, 'tpot', span.tpotMs);
    }
    const seen = this.firstSeen.get(span.promptVersion);
    if (seen === undefined || span.startMs < seen) this.firstSeen.set(span.promptVersion, span.startMs);
  }

  skip(reason: SkipReason): void {
    this.skipped.set(reason, (this.skipped.get(reason) ?? 0) + 1);
  }

  other(): void {
    this.others++;
  }

  private keep(w: Window, metric: 'ttft' | 'e2e' | 'tpot', value: number | null): void {
    if (value === null || !Number.isFinite(value)) return;
    // Counted per metric: errors and spans without the figure were never offered, and counting them would keep
    // later values too rarely (a window's percentiles leaning towards its start).
    reservoirKeep(w[metric], this.maxPerWindow, ++w.seen[metric], value, this.random);
  }

  series(metric: WatchMetric): SeriesPoint[] {
    const out: SeriesPoint[] = [];
    for (const [t, w] of [...this.windows].sort((a, b) => a[0] - b[0])) {
      if (metric === 'error-rate') {
        // The lower end of the window's 95% interval: one error in 20 requests is not a 5% error rate yet.
        if (w.requests >= MIN_REQUESTS_PER_WINDOW) out.push({ t, value: wilsonInterval(w.errors, w.requests)[0] });
        continue;
      }
      const values = metric === 'ttft.p99' ? w.ttft : w.e2e;
      if (values.length < MIN_REQUESTS_PER_WINDOW) continue;
      const sorted = [...values].sort((a, b) => a - b);
      out.push({ t, value: sorted[Math.min(sorted.length - 1, Math.ceil(0.99 * sorted.length) - 1)]! });
    }
    return out;
  }

  /** What moves with an anomaly (anomalyCause.ts): input tokens per request (mean), TPOT p50, per window. */
  companions(): { 'input-tokens': SeriesPoint[]; 'tpot.p50': SeriesPoint[] } {
    const out = { 'input-tokens': [] as SeriesPoint[], 'tpot.p50': [] as SeriesPoint[] };
    for (const [t, w] of [...this.windows].sort((a, b) => a[0] - b[0])) {
      if (w.withInput >= MIN_REQUESTS_PER_WINDOW) out['input-tokens'].push({ t, value: w.inputTokens / w.withInput });
      if (w.tpot.length >= MIN_REQUESTS_PER_WINDOW) out['tpot.p50'].push({ t, value: [...w.tpot].sort((a, b) => a - b)[w.tpot.length >> 1]! });
    }
    return out;
  }

  /** Version changes: each version at the time it was first seen, in order. */
  versionChanges(): VersionChange[] {
    return [...this.firstSeen].map(([version, t]) => ({ version, t })).sort((a, b) => a.t - b.t);
  }
}
