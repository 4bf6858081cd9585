/**
 * A prompt's production over time, for the panel's Production view: per version and hour the request
 * count, errors and TTFT p50/p99; each version change (a version first seen) with the hours before and
 * after it; and the dynamic baseline band of the hourly TTFT p99 (core/baseline/seasonalBaseline.ts),
 * which needs weeks of history — so the sink keeps up to five weeks of hours before the shown window,
 * bounded per hour by a fixed-seed reservoir.
 */
import { baselineAt, type BaselineMethod, type SeriesPoint } from '../stats/seasonalBaseline';
import { percentile } from '../stats/percentile';
import { seededRandom } from '../stats/random';
import { mergeReservoirs, reservoirKeep } from '../stats/reservoir';
import type { ImportedSpan, SkipReason, SpanSink } from './importOtlpSpans';
import type { Relabel } from './prodAggregate';

export const HOUR_MS = 3_600_000;
/** History kept before the window for the baseline: its weekly rhythm needs at least two weeks, four are used. */
const BASELINE_HISTORY_MS = 5 * 7 * 24 * HOUR_MS;
/** TTFT values kept per version and hour. */
const MAX_PER_HOUR = 1000;
/** An hour with fewer successful requests gives no p99 for the baseline (as `watch`). */
export const MIN_REQUESTS_FOR_P99 = 10;
/** Hours either side of a version change that the before/after figures pool. */
export const CHANGE_WINDOW_HOURS = 6;

export interface TimelinePoint {
  /** Start of the hour (Unix ms). */
  t: number;
  requests: number;
  errors: number;
  ttftP50Ms: number | null;
  ttftP99Ms: number | null;
  /** The rest of the percentiles, for `prod --window` (the panel reads TTFT p50/p99 only). */
  ttftP90Ms?: number | null;
  e2eP50Ms?: number | null;
  e2eP90Ms?: number | null;
  e2eP99Ms?: number | null;
  tpotP50Ms?: number | null;
  tpotP90Ms?: number | null;
  tpotP99Ms?: number | null;
}

export interface WindowFigures {
  hours: number;
  requests: number;
  ttftP50Ms: number | null;
  ttftP99Ms: number | null;
  /** `pooled`: percentiles of the requests themselves (trace files); `median-of-hours`: of the hourly figures (Prometheus). */
  how: 'pooled' | 'median-of-hours';
  /** For the figures before a change: the previous version in the same hours (side by side) or a week earlier. */
  matched?: 'same-hours' | 'week-before';
}

export interface VersionChangeMark {
  t: number;
  version: string;
  previous: string | null;
  before: WindowFigures | null;
  after: WindowFigures | null;
  /** Why there are no figures before: the previous version served no matching hours. */
  beforeNote?: string;
}

export interface BaselineBandData {
  metric: 'ttftP99Ms';
  /** The method of the newest hour's band (the one the user reads first). */
  method: BaselineMethod;
  note: string | null;
  points: { t: number; lower: number | null; upper: number | null; median: number | null }[];
}

export interface TimelineData {
  source: 'traces' | 'prometheus';
  hourMs: number;
  sinceMs: number;
  untilMs: number;
  versions: { version: string; points: TimelinePoint[] }[];
  changes: VersionChangeMark[];
  band: BaselineBandData;
}

interface Hour {
  requests: number;
  errors: number;
  ttft: number[];
  seen: number;
  e2e: number[];
  e2eSeen: number;
  tpot: number[];
  tpotSeen: number;
}

export interface TimelineOptions {
  /** The width of each point (default an hour; `prod --window 6h` uses 6 h, `1d` a UTC day). */
  bucketMs?: number;
  /** The dynamic baseline band (hourly only; `prod --window` has no use for it). Default true. */
  band?: boolean;
}

export class ProdTimeline implements SpanSink {
  /** version → hour start → figures */
  private readonly hours = new Map<string, Map<number, Hour>>();
  private readonly firstSeen = new Map<string, number>();
  /** The prompt names each label was seen with (a rename is per name and label). */
  private readonly names = new Map<string, Set<string | null>>();
  private readonly random = seededRandom(11);

  private readonly bucketMs: number;
  private readonly withBand: boolean;

  constructor(
    private readonly promptNames: ReadonlySet<string>,
    private readonly sinceMs: number,
    private readonly untilMs = Date.now(),
    options: TimelineOptions = {},
  ) {
    this.bucketMs = options.bucketMs ?? HOUR_MS;
    this.withBand = options.band ?? true;
  }

  /** A fixed-seed reservoir: each bucket keeps at most MAX_PER_HOUR values of a metric. */
  private keep(values: number[], seen: number, value: number): void {
    reservoirKeep(values, MAX_PER_HOUR, seen, value, this.random);
  }

  span(span: ImportedSpan): void {
    if (span.promptName === null || !this.promptNames.has(span.promptName)) return;
    if (span.startMs < this.sinceMs - (this.withBand ? BASELINE_HISTORY_MS : 0) || span.startMs > this.untilMs) return;
    const t = Math.floor(span.startMs / this.bucketMs) * this.bucketMs;
    const names = this.names.get(span.promptVersion);
    if (names) names.add(span.promptName);
    else this.names.set(span.promptVersion, new Set([span.promptName]));
    let byHour = this.hours.get(span.promptVersion);
    if (!byHour) this.hours.set(span.promptVersion, (byHour = new Map()));
    let hour = byHour.get(t);
    if (!hour) byHour.set(t, (hour = { requests: 0, errors: 0, ttft: [], seen: 0, e2e: [], e2eSeen: 0, tpot: [], tpotSeen: 0 }));
    hour.requests++;
    const first = this.firstSeen.get(span.promptVersion);
    if (first === undefined || span.startMs < first) this.firstSeen.set(span.promptVersion, span.startMs);
    if (span.errorType !== null) {
      hour.errors++;
      return;
    }
    hour.e2eSeen++;
    this.keep(hour.e2e, hour.e2eSeen, span.e2eMs);
    if (span.tpotMs !== null) this.keep(hour.tpot, ++hour.tpotSeen, span.tpotMs);
    if (span.ttftMs === null) return;
    hour.seen++;
    this.keep(hour.ttft, hour.seen, span.ttftMs);
  }

  skip(_reason: SkipReason): void {}

  other(): void {}

  /** Labels of one revision merged under one name (versionResolver.ts revisionRename): their hours pooled. */
  relabel(rename: Relabel): void {
    for (const [label, byHour] of [...this.hours]) {
      const name = [...(this.names.get(label) ?? [null])].map((n) => rename(n, label).version).find((v) => v !== label);
      if (name === undefined) continue;
      this.hours.delete(label);
      const into = this.hours.get(name) ?? new Map<number, Hour>();
      for (const [t, h] of byHour) {
        const at = into.get(t);
        if (!at) into.set(t, h);
        else {
          // Each metric's reservoirs pooled in proportion to what each label saw, still at most MAX_PER_HOUR.
          at.requests += h.requests;
          at.errors += h.errors;
          at.ttft = mergeReservoirs(at.ttft, at.seen, h.ttft, h.seen, MAX_PER_HOUR, this.random);
          at.seen += h.seen;
          at.e2e = mergeReservoirs(at.e2e, at.e2eSeen, h.e2e, h.e2eSeen, MAX_PER_HOUR, this.random);
          at.e2eSeen += h.e2eSeen;
          at.tpot = mergeReservoirs(at.tpot, at.tpotSeen, h.tpot, h.tpotSeen, MAX_PER_HOUR, this.random);
          at.tpotSeen += h.tpotSeen;
        }
      }
      this.hours.set(name, into);
      const first = this.firstSeen.get(label)!;
      this.firstSeen.delete(label);
      this.firstSeen.set(name, Math.min(first, this.firstSeen.get(name) ?? first));
    }
  }

  data(): TimelineData {
    const versions = [...this.hours].map(([version, byHour]) => ({
      version,
      points: [...byHour]
        .filter(([t]) => t + this.bucketMs > this.sinceMs)
        .sort((a, b) => a[0] - b[0])
        .map(([t, h]) => ({ t, requests: h.requests, errors: h.errors, ...quantiles(h.ttft), ...this.detail(h) })),
    }));
    const allHours = new Map<number, number[]>();
    for (const byHour of this.hours.values()) for (const [t, h] of byHour) allHours.set(t, [...(allHours.get(t) ?? []), ...h.ttft]);
    const p99Series: SeriesPoint[] = [...allHours]
      .filter(([, values]) => values.length >= MIN_REQUESTS_FOR_P99)
      .sort((a, b) => a[0] - b[0])
      .map(([t, values]) => ({ t, value: quantiles(values).ttftP99Ms! }));
    const changes = versionChanges(this.firstSeen, this.sinceMs, (version, from, to) => {
      const values: number[] = [];
      let requests = 0;
      let hours = 0;
      for (const [t, h] of this.hours.get(version) ?? []) if (t >= from && t < to) (values.push(...h.ttft), (requests += h.requests), hours++);
      if (requests === 0) return null;
      return { hours, requests, ...quantiles(values), how: 'pooled' };
    });
    const band: BaselineBandData = this.withBand ? baselineBand(p99Series, this.sinceMs, this.untilMs) : { metric: 'ttftP99Ms', method: 'none', note: null, points: [] };
    return { source: 'traces', hourMs: this.bucketMs, sinceMs: this.sinceMs, untilMs: this.untilMs, versions, changes, band };
  }

  /** TTFT p90 and E2E/TPOT p50/p90/p99 of a bucket: only for buckets other than the panel's hours. */
  private detail(h: Hour): Partial<TimelinePoint> {
    if (this.withBand) return {};
    const q = (values: readonly number[], prefix: 'ttft' | 'e2e' | 'tpot') => {
      const sorted = [...values].sort((a, b) => a - b);
      const at = (p: number, min: number) => (sorted.length >= min ? round(percentile(sorted, p)) : null);
      return { [`${prefix}P50Ms`]: at(0.5, 1), [`${prefix}P90Ms`]: at(0.9, 1), [`${prefix}P99Ms`]: at(0.99, MIN_REQUESTS_FOR_P99) };
    };
    const ttft = q(h.ttft, 'ttft');
    return { ttftP90Ms: ttft.ttftP90Ms ?? null, ...q(h.e2e, 'e2e'), ...q(h.tpot, 'tpot') };
  }
}

function quantiles(values: readonly number[]): { ttftP50Ms: number | null; ttftP99Ms: number | null } {
  if (values.length === 0) return { ttftP50Ms: null, ttftP99Ms: null };
  const sorted = [...values].sort((a, b) => a - b);
  return { ttftP50Ms: round(percentile(sorted, 0.5)), ttftP99Ms: sorted.length >= MIN_REQUESTS_FOR_P99 ? round(percentile(sorted, 0.99)) : null };
}

const round = (ms: number) => Math.round(ms * 10) / 10;

/**
 * Each version first seen inside the window, with figures compared over matched time (as prod's comparison,
 * matchedHours.ts): after = the new version in the CHANGE_WINDOW_HOURS from its first hour; before = the previous
 * version in those same hours when it still served them (a gray release), else in the same hours a week earlier,
 * else none — with why: the hours before a deploy are other hours of the day, not a baseline.
 */
export function versionChanges(firstSeen: ReadonlyMap<string, number>, sinceMs: number, figures: (version: string, fromMs: number, toMs: number) => WindowFigures | null): VersionChangeMark[] {
  const ordered = [...firstSeen].sort((a, b) => a[1] - b[1]);
  const marks: VersionChangeMark[] = [];
  for (const [i, [version, t]] of ordered.entries()) {
    if (i === 0 || t < sinceMs) continue; // the first version ever seen is not a change
    const previous = ordered[i - 1]![0];
    const hour = Math.floor(t / HOUR_MS) * HOUR_MS;
    const end = hour + CHANGE_WINDOW_HOURS * HOUR_MS;
    const sideBySide = figures(previous, hour, end);
    const weekBefore = sideBySide ? null : figures(previous, hour - WEEK_MS, end - WEEK_MS);
    const before = sideBySide ? { ...sideBySide, matched: 'same-hours' as const } : weekBefore ? { ...weekBefore, matched: 'week-before' as const } : null;
    marks.push({
      t,
      version,
      previous,
      before,
      after: figures(version, hour, end),
      ...(before ? {} : { beforeNote: `${previous} served neither these hours nor the same hours a week before: no like-for-like figures` }),
    });
  }
  return marks;
}

const WEEK_MS = 7 * 24 * HOUR_MS;

/** The band for every hour of the window, from the hours before it. */
export function baselineBand(series: readonly SeriesPoint[], sinceMs: number, untilMs: number): BaselineBandData {
  const points: BaselineBandData['points'] = [];
  let method: BaselineMethod = 'none';
  let note: string | null = null;
  for (let t = Math.floor(sinceMs / HOUR_MS) * HOUR_MS; t <= untilMs; t += HOUR_MS) {
    const band = baselineAt(series, t, { minRelativeWidth: 0.1 });
    points.push({ t, lower: band.lower, upper: band.upper, median: band.median });
    method = band.method;
    note = band.note ?? null;
  }
  return { metric: 'ttftP99Ms', method, note, points };
}
