/**
 * `prod --window 6h`: each version's figures per time window, read off the same timeline the panel's
 * Production view draws (ProdTimeline for trace files, prometheusTimeline for Prometheus) with its
 * bucket set to the window — no second aggregator.
 */
import type { ImportedSpan, SpanSink } from './importOtlpSpans';
import type { Relabel, Relabelable } from './prodAggregate';
import type { TimelineData, TimelinePoint } from './prodTimeline';

export interface WindowPercentiles {
  p50: number | null;
  p90: number | null;
  p99: number | null;
}

export interface VersionWindow {
  /** ISO start and end of the window (windows are aligned to UTC multiples of the size; the current one ends now). */
  start: string;
  end: string;
  /** The window still running: its figures cover its start until now. */
  partial?: true;
  requests: number;
  errors: number;
  errorRate: number;
  ttftMs: WindowPercentiles;
  e2eMs: WindowPercentiles;
  tpotMs: WindowPercentiles;
}

const WINDOW = /^(\d{1,4})([mhd])$/;
const UNIT_MS: Record<string, number> = { m: 60_000, h: 3_600_000, d: 86_400_000 };

/** `30m`, `1h`, `6h`, `1d` → ms, or null when it is not a window size (at least 1 min, at most 28 d). */
export function windowSizeMs(value: string): number | null {
  const m = WINDOW.exec(value.trim());
  if (!m) return null;
  const ms = Number(m[1]) * UNIT_MS[m[2]!]!;
  return ms >= 60_000 && ms <= 28 * 86_400_000 ? ms : null;
}

/** Windows per version (oldest first), windows without requests left out. */
export function versionWindows(timeline: TimelineData): Map<string, VersionWindow[]> {
  const size = timeline.hourMs;
  const out = new Map<string, VersionWindow[]>();
  for (const v of timeline.versions) out.set(v.version, v.points.map((p) => windowOf(p, size, timeline.untilMs)));
  return out;
}

function windowOf(p: TimelinePoint, size: number, untilMs: number): VersionWindow {
  const partial = p.t + size > untilMs;
  return {
    start: new Date(p.t).toISOString(),
    end: new Date(partial ? untilMs : p.t + size).toISOString(),
    ...(partial ? { partial: true as const } : {}),
    requests: p.requests,
    errors: p.errors,
    errorRate: p.requests ? Math.round((p.errors / p.requests) * 10_000) / 10_000 : 0,
    ttftMs: { p50: p.ttftP50Ms, p90: p.ttftP90Ms ?? null, p99: p.ttftP99Ms },
    e2eMs: { p50: p.e2eP50Ms ?? null, p90: p.e2eP90Ms ?? null, p99: p.e2eP99Ms ?? null },
    tpotMs: { p50: p.tpotP50Ms ?? null, p90: p.tpotP90Ms ?? null, p99: p.tpotP99Ms ?? null },
  };
}

/** Every span to each sink (the report's aggregate already takes one `alsoTo`). */
export function fanOut(...sinks: (SpanSink & Partial<Relabelable>)[]): SpanSink & Relabelable {
  return {
    span: (s: ImportedSpan) => sinks.forEach((k) => k.span(s)),
    skip: (...a: Parameters<SpanSink['skip']>) => sinks.forEach((k) => k.skip(...a)),
    other: (...a: Parameters<SpanSink['other']>) => sinks.forEach((k) => k.other(...a)),
    relabel: (rename: Relabel) => sinks.forEach((k) => k.relabel?.(rename)),
  };
}
