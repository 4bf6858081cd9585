/**
 * The panel's Production view of one prompt: per source, each version production saw (its revision,
 * requests, error rate, TTFT and E2E percentiles, whether it is the text in the editor), the hourly
 * timeline per version with the version changes and the before/after figures around each, and the
 * dynamic baseline band of the hourly TTFT p99 — with its method, or what it still needs. Plain data:
 * the webview draws it, the standalone page embeds it.
 */
import type { FileProduction } from './prodForEditor';
import type { ProdVersion } from './prodReport';
import type { ProdHallucination } from './prodAdherence';
import type { TimelineData } from './prodTimeline';
import type { ProductionAnomaly } from './productionAnomalyData';

export interface ProductionVersionRow {
  version: string;
  revision: string | null;
  revisionSubject: string | null;
  inGitHistory: boolean;
  thisText: boolean;
  requests: number;
  errorRate: number;
  ttftP50Ms: number | null;
  ttftP99Ms: number | null;
  e2eP50Ms: number | null;
  e2eP99Ms: number | null;
  /** Sampled production answers scored with the tests file's checks (the editor: judge-free ones); null when none were scored. */
  adherence: { rate: number; low: number; high: number; passed: number; scored: number; withAnswer: number } | null;
  /** Judged against the passages each answer's trace retrieved (`prod --report` with a judge); null otherwise. */
  hallucination: { rate: number; low: number; high: number; hallucinated: number; judged: number } | null;
}

export interface ProductionSourceView {
  label: string;
  since: string;
  kind: 'traces' | 'prometheus';
  error: string | null;
  notes: string[];
  versions: ProductionVersionRow[];
  timeline: TimelineData | null;
  /** The band's method in words, or what it still needs. */
  baseline: string;
  /** The time the figures cover, in words (the versions table and the hourly chart may cover different ranges). */
  range?: string;
  /** `watch`'s anomalies against the dynamic baseline that overlap the chart's time (trace sources). */
  anomalies?: ProductionAnomaly[];
}

/** The time the page shows: the picker's choices. */
export const PRODUCTION_WINDOWS = ['24h', '7d', '30d', 'since-change'] as const;
export type ProductionWindow = (typeof PRODUCTION_WINDOWS)[number];

export function isProductionWindow(value: unknown): value is ProductionWindow {
  return typeof value === 'string' && (PRODUCTION_WINDOWS as readonly string[]).includes(value);
}

export interface ProductionView {
  kind: 'production';
  file: string;
  prompt: string;
  sources: ProductionSourceView[];
  /** The window the page shows (absent: the sources' own `since`). */
  window?: ProductionWindow;
}

const BAND_WORDS: Record<string, string> = {
  'same-hour-of-week': 'the same hour of the week over the last weeks (median ± 3 scaled MADs)',
  'same-hour-of-day': 'the same hour of the day over the last days (median ± 3 scaled MADs)',
  'rolling-day': "the last day's range",
};

export function productionView(file: string, production: FileProduction, promptName: string, isThisText: (v: ProdVersion) => boolean, window?: ProductionWindow, anomaliesOf?: (reading: FileProduction['readings'][number], fromMs: number, untilMs: number) => ProductionAnomaly[]): ProductionView {
  const sources = production.readings.map((reading): ProductionSourceView => {
    const versions = (reading.report?.versions ?? [])
      .filter((v) => v.promptName === promptName || v.promptName === null)
      .map((v) => ({
        version: v.version,
        revision: v.revision,
        revisionSubject: v.revisionSubject ?? null,
        inGitHistory: v.inGitHistory,
        thisText: isThisText(v),
        requests: v.requests,
        errorRate: v.errorRate,
        ttftP50Ms: v.ttftMs.p50?.value ?? null,
        ttftP99Ms: v.ttftMs.p99?.value ?? null,
        e2eP50Ms: v.e2eMs.p50?.value ?? null,
        e2eP99Ms: v.e2eMs.p99?.value ?? null,
        adherence: v.adherence?.rate != null && v.adherence.ci95 ? { rate: v.adherence.rate, low: v.adherence.ci95[0], high: v.adherence.ci95[1], passed: v.adherence.passed, scored: v.adherence.scored, withAnswer: v.adherence.withAnswer } : null,
        hallucination: hallucinationOf(v.adherence?.hallucination),
      }));
    const shown = new Set(versions.map((v) => v.version));
    const timeline = reading.timeline ? { ...reading.timeline, versions: reading.timeline.versions.filter((v) => shown.has(v.version)), changes: reading.timeline.changes.filter((c) => shown.has(c.version)) } : null;
    const band = timeline?.band;
    const baseline = !band ? 'no hourly figures from this source' : band.method === 'none' ? (band.note ?? 'no baseline yet') : `dynamic baseline: ${BAND_WORDS[band.method] ?? band.method}${band.note ? ` — ${band.note}` : ''}`;
    const fromMs = timeline?.sinceMs ?? (reading.report?.window.since ? Date.parse(reading.report.window.since) : 0);
    const anomalies = anomaliesOf?.(reading, fromMs, timeline?.untilMs ?? production.readAtMs) ?? [];
    return { label: reading.label, since: reading.source.since, kind: reading.source.kind, error: reading.error ?? null, notes: reading.notes, versions, timeline, baseline, range: rangeWords(reading), anomalies };
  });
  return { kind: 'production', file, prompt: promptName, sources, ...(window ? { window } : {}) };
}

const utc = (ms: number | string) => `${new Date(ms).toISOString().slice(0, 16).replace('T', ' ')} UTC`;

/** What the figures cover: the window asked for, or — trace files read whole — the first and last span, said apart from the chart's range. */
function rangeWords(reading: FileProduction['readings'][number]): string {
  const report = reading.report;
  const chart = reading.timeline ? `hourly chart: ${utc(reading.timeline.sinceMs)} – ${utc(reading.timeline.untilMs)}` : null;
  if (report?.source.kind === 'otlp-files' && report.window.since === null) {
    const seen = report.versions.flatMap((v) => [v.firstSeen, v.lastSeen]).filter((t): t is string => t !== null).sort();
    const versions = seen.length ? `versions: every span in the files, ${utc(seen[0]!)} – ${utc(seen.at(-1)!)}` : 'versions: every span in the files';
    return chart ? `${versions}; ${chart}` : versions;
  }
  return reading.timeline ? `last ${reading.source.since}: ${utc(reading.timeline.sinceMs)} – ${utc(reading.timeline.untilMs)}` : `last ${reading.source.since}`;
}

export function isProductionView(value: unknown): value is ProductionView {
  const v = value as Partial<ProductionView> | null;
  return (
    typeof v === 'object' && v !== null && v.kind === 'production' && typeof v.file === 'string' && typeof v.prompt === 'string' && Array.isArray(v.sources) &&
    v.sources.every((s) => typeof s?.label === 'string' && Array.isArray(s.versions) && Array.isArray(s.notes) && (s.anomalies === undefined || (Array.isArray(s.anomalies) && s.anomalies.every((a) => typeof a?.sentence === 'string' && Array.isArray(a.spans)))) && (s.timeline === null || (Array.isArray(s.timeline?.versions) && Array.isArray(s.timeline.changes) && Array.isArray(s.timeline.band?.points))))
  );
}

function hallucinationOf(h: ProdHallucination | undefined): ProductionVersionRow['hallucination'] {
  return h && h.judged > 0 && h.ci95 ? { rate: h.hallucinated / h.judged, low: h.ci95[0], high: h.ci95[1], hallucinated: h.hallucinated, judged: h.judged } : null;
}
