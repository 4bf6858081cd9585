/**
 * Dynamic baselines: what a metric usually is at this time — the same hour of the week over the last
 * weeks (robust: median and MAD, so one bad week does not move it); with less history the same hour
 * of the day over the last week's days of the same kind (weekdays or weekend days), then the last day's
 * windows; and nothing (said, with how much more history it needs) when even that is missing. The band is the median ± k scaled
 * MADs, at least a practical margin wide, so a perfectly steady metric is not alarmed by noise.
 */

export interface SeriesPoint {
  /** ms since the epoch, the start of the window. */
  t: number;
  value: number;
}

export type BaselineMethod = 'same-hour-of-week' | 'same-hour-of-day' | 'rolling-day' | 'none';

export interface Band {
  method: BaselineMethod;
  median: number | null;
  lower: number | null;
  upper: number | null;
  /** Values the baseline rests on. */
  n: number;
  /** Why there is none, or what it fell back from. */
  note?: string;
}

export interface BaselineOptions {
  /** Window length (ms); default one hour. */
  windowMs?: number;
  /** Weeks of history for the same hour of the week; default 4, at least 2 needed. */
  weeks?: number;
  /** Scaled MADs either side; default 3. */
  k?: number;
  /** The band is at least this share of the median either side (practical margin); default 0.1. */
  minRelativeWidth?: number;
  /** …and at least this much in the metric's own unit (for rates whose usual value is 0); default 0. */
  minAbsoluteWidth?: number;
  /** Days looked back for the same hour of the day; default 7 (14 when judging against the days before a deploy). */
  daysBack?: number;
  /** With too few days of the same kind (weekday or weekend), use days of either kind before giving up. */
  mixDayKinds?: boolean;
  /** The rolling fallback takes the day before this moment instead of the day before `t`. */
  rollingEndMs?: number;
}

const HOUR_MS = 3_600_000;
const WEEK_MS = 7 * 24 * HOUR_MS;
const DAY_MS = 24 * HOUR_MS;
/** MAD × 1.4826 estimates a normal distribution's standard deviation. */
const MAD_SCALE = 1.4826;
const MIN_WEEKS = 2;
/** A whole day of windows: a rolling band that has not seen the day's peak would call the peak a regression. */
const MIN_ROLLING = 24;
const MIN_DAYS = 3;

function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

function band(values: readonly number[], method: BaselineMethod, k: number, minRelativeWidth: number, note?: string, minAbsoluteWidth = 0): Band {
  const m = median(values);
  const mad = median(values.map((v) => Math.abs(v - m))) * MAD_SCALE;
  const half = Math.max(k * mad, Math.abs(m) * minRelativeWidth, minAbsoluteWidth);
  // Every watched metric is non-negative (latencies, rates): a band below 0 says nothing, and printed it confuses.
  return { method, median: m, lower: Math.max(0, m - half), upper: m + half, n: values.length, ...(note ? { note } : {}) };
}

/** Without a rhythm to go by, the band is the last day's whole range (widened by the margin): its peak is normal. */
function dayRangeBand(values: readonly number[], minRelativeWidth: number, note: string): Band {
  const m = median(values);
  return { method: 'rolling-day', median: m, lower: Math.min(...values) * (1 - minRelativeWidth), upper: Math.max(...values) * (1 + minRelativeWidth), n: values.length, note };
}

function isWeekend(t: number): boolean {
  const day = new Date(t).getUTCDay();
  return day === 0 || day === 6;
}

/** The baseline for the window starting at `t`, from the history before it (points at or after `t` are ignored). */
export function baselineAt(history: readonly SeriesPoint[], t: number, options: BaselineOptions = {}): Band {
  const windowMs = options.windowMs ?? HOUR_MS;
  const weeks = options.weeks ?? 4;
  const k = options.k ?? 3;
  const minRelativeWidth = options.minRelativeWidth ?? 0.1;
  const sameHour: number[] = [];
  for (let w = 1; w <= weeks; w++) {
    const at = t - w * WEEK_MS;
    const found = history.find((p) => p.t >= at && p.t < at + windowMs);
    if (found && Number.isFinite(found.value)) sameHour.push(found.value);
  }
  const minAbsoluteWidth = options.minAbsoluteWidth ?? 0;
  if (sameHour.length >= MIN_WEEKS) return band(sameHour, 'same-hour-of-week', k, minRelativeWidth, undefined, minAbsoluteWidth);
  const weeksShort = `the weekly rhythm needs ${MIN_WEEKS - sameHour.length} more week${MIN_WEEKS - sameHour.length === 1 ? '' : 's'} of history at this hour`;
  // Days of the same kind only (weekday or weekend, UTC): a Monday judged by the weekend's hours would
  // call its usual peak a regression.
  const sameHourOfDay: number[] = [];
  const anyKind: number[] = [];
  for (let d = 1; d <= (options.daysBack ?? 7); d++) {
    const at = t - d * DAY_MS;
    const found = history.find((p) => p.t >= at && p.t < at + windowMs);
    if (!found || !Number.isFinite(found.value)) continue;
    anyKind.push(found.value);
    if (isWeekend(at) === isWeekend(t)) sameHourOfDay.push(found.value);
  }
  if (sameHourOfDay.length < MIN_DAYS && options.mixDayKinds && anyKind.length >= MIN_DAYS) return band(anyKind, 'same-hour-of-day', k, minRelativeWidth, `${weeksShort}; the same hour of the last ${anyKind.length} days before the version change is used (weekdays and weekend days)`, minAbsoluteWidth);
  if (sameHourOfDay.length >= MIN_DAYS) return band(sameHourOfDay, 'same-hour-of-day', k, minRelativeWidth, `${weeksShort}; the same hour of the last ${sameHourOfDay.length} days is used meanwhile`, minAbsoluteWidth);
  const rollingEnd = Math.min(t, options.rollingEndMs ?? t);
  const rolling = history.filter((p) => p.t < rollingEnd && p.t >= rollingEnd - DAY_MS && Number.isFinite(p.value)).map((p) => p.value);
  if (rolling.length >= MIN_ROLLING) return dayRangeBand(rolling, minRelativeWidth, `${weeksShort}, and the daily rhythm ${MIN_DAYS - sameHourOfDay.length} more day${MIN_DAYS - sameHourOfDay.length === 1 ? '' : 's'}; the last day's windows are used meanwhile`);
  const hoursShort = Math.ceil(((MIN_ROLLING - rolling.length) * windowMs) / HOUR_MS);
  return { method: 'none', median: null, lower: null, upper: null, n: rolling.length, note: `no baseline yet: ${weeksShort}, or ${hoursShort} more hour${hoursShort === 1 ? '' : 's'} for a rolling one` };
}
