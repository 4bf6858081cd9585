/**
 * Production numbers for one prompt file in the editor: every configured source read once (the file's
 * git history loaded once for all of them), each bounded — trace files confined to the workspace and
 * read to a byte bound, Prometheus answers to the importer's time and size bounds — and each failure
 * kept as that source's message, never thrown. The language server caches the result (prodCache.ts).
 */
import type { ProductionSource } from './productionSettings';
import { describeProductionSource } from './productionSettings';
import { prodFromPrometheus } from './prodPrometheus';
import { prometheusTimeline } from './prodPrometheusTimeline';
import { prodFromTraces } from './prodFromTraces';
import type { ProdReport } from './prodReport';
import { ProdTimeline, type TimelineData } from './prodTimeline';
import { loadFileVersions, type FileVersions } from './prodVersions';
import { boundedTraceOpener, EDITOR_TRACE_MAX_BYTES, resolveTraceFiles } from './workspaceTraces';
import { editorAnswerSample, editorChecks, scoreVersions } from './editorAdherence';
import { fanOut } from './prodWindows';
import type { SpanSink } from './importOtlpSpans';
import type { PromptWatchData } from './productionAnomalyData';

/** Shorter than the CLI's 10 s: a hover's background read must not hold a refresh for long. */
export const EDITOR_PROMETHEUS_TIMEOUT_MS = 5000;
export const EDITOR_PROMETHEUS_MAX_BYTES = 4 * 1024 * 1024;
/**
 * Each source as a whole: a server that answers every query just inside its own timeout would otherwise
 * hold "reading…" for minutes (a report is some twenty queries); trace files are read to their byte bound.
 */
export const EDITOR_PROMETHEUS_DEADLINE_MS = 20_000;
export const EDITOR_TRACES_DEADLINE_MS = 60_000;

export interface SourceReading {
  source: ProductionSource;
  /** How the source is named to the user (no credentials). */
  label: string;
  report: ProdReport | null;
  /** Per-version hourly figures (the panel's Production view); absent when the source could not give them. */
  timeline: TimelineData | null;
  /** Why the source gave nothing (unreadable, outside the workspace, Prometheus down). */
  error?: string;
  /** What was left out or cut, said. */
  notes: string[];
  /** Per prompt name: `watch`'s anomalies — over every span the files hold, or Prometheus's five weeks; absent when they could not be read. */
  watch?: Record<string, PromptWatchData>;
}

export interface FileProduction {
  file: string;
  readings: SourceReading[];
  /** Content hash per prompt name at each revision (to find the version of the text in the editor). */
  versions: FileVersions;
  readAtMs: number;
}

export interface EditorProductionOptions {
  /** The workspace folder holding the file: trace paths are resolved and confined there. */
  root: string;
  nowMs?: number;
  maxTraceBytes?: number;
  prometheusTimeoutMs?: number;
  /** Per source (default EDITOR_PROMETHEUS_DEADLINE_MS / EDITOR_TRACES_DEADLINE_MS). */
  deadlineMs?: number;
  signal?: AbortSignal;
  /** `watch`'s hourly series per prompt, fed in the same pass (core/baseline/productionAnomalies.ts supplies it). */
  watch?: (promptNames: ReadonlySet<string>, nowMs: number) => WatchSinks;
  /** `watch`'s anomalies per prompt from a Prometheus source (core/baseline/productionAnomalies.ts supplies it). */
  watchPrometheus?: (url: string, promptNames: ReadonlySet<string>, call: PrometheusWatchCall) => Promise<Record<string, PromptWatchData>>;
}

export interface PrometheusWatchCall {
  nowMs: number;
  timeoutMs: number;
  maxBytes: number;
  signal?: AbortSignal;
}

/** Sinks that see every span of the trace files, and their analysis per prompt name once read. */
export interface WatchSinks {
  sink: SpanSink;
  data(): Record<string, PromptWatchData>;
}

const UNIT_MS: Record<string, number> = { s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000, w: 604_800_000 };

export function sinceToMs(since: string): number {
  const m = /^(\d+)([smhdw])$/.exec(since);
  return m ? Number(m[1]) * UNIT_MS[m[2]!]! : 86_400_000;
}

export async function readFileProduction(file: string, sources: readonly ProductionSource[], options: EditorProductionOptions): Promise<FileProduction> {
  const nowMs = options.nowMs ?? Date.now();
  const versionsPromise = loadFileVersions(file, options.signal ? { signal: options.signal } : {});
  const readings: SourceReading[] = [];
  for (const source of sources) readings.push(await readSource(file, source, versionsPromise, nowMs, options));
  return { file, readings, versions: await versionsPromise, readAtMs: nowMs };
}

async function readSource(file: string, source: ProductionSource, fileVersions: Promise<FileVersions>, nowMs: number, options: EditorProductionOptions): Promise<SourceReading> {
  const label = describeProductionSource(source);
  const notes: string[] = [];
  const deadlineMs = options.deadlineMs ?? (source.kind === 'traces' ? EDITOR_TRACES_DEADLINE_MS : EDITOR_PROMETHEUS_DEADLINE_MS);
  const deadline = AbortSignal.timeout(deadlineMs);
  const signal = options.signal ? AbortSignal.any([options.signal, deadline]) : deadline;
  const late = () => `${label} did not finish within ${Math.round(deadlineMs / 1000)} s; shown when it does (next read in a minute).`;
  try {
    if (source.kind === 'traces') {
      const resolved = await resolveTraceFiles(source.traces, options.root);
      notes.push(...resolved.problems);
      if (resolved.files.length === 0) return { source, label, report: null, timeline: null, notes, ...(resolved.problems[0] ? { error: resolved.problems[0] } : {}) };
      const names = (await fileVersions).promptNames;
      const sinceMs = nowMs - sinceToMs(source.since);
      const timeline = new ProdTimeline(names, sinceMs, nowMs);
      // Production adherence: answers sampled in the same pass, scored with the tests file's judge-free checks.
      const checks = await editorChecks(options.root, file);
      const answers = editorAnswerSample(checks, { sinceMs, untilMs: nowMs });
      // `watch`'s hourly series per prompt, in the same pass: the anomalies need the weeks before the window.
      const watched = options.watch?.(names, nowMs);
      const report = await prodFromTraces(file, resolved.files, {
        sinceMs,
        fileVersions,
        open: boundedTraceOpener(options.root, options.maxTraceBytes ?? EDITOR_TRACE_MAX_BYTES, (note) => notes.push(note)),
        alsoTo: fanOut(timeline, ...(watched ? [watched.sink] : []), ...(answers ? [answers] : [])),
        ...(answers ? { keepAnswers: true } : {}),
        signal,
      });
      if (answers) {
        await scoreVersions(report, answers, checks);
        if (checks.leftOut.length) notes.push(`production adherence leaves out ${checks.leftOut.join(', ')}.`);
      }
      return { source, label, report, timeline: timeline.data(), notes, ...(watched ? { watch: watched.data() } : {}) };
    }
    const call = { window: source.since, atMs: nowMs, timeoutMs: options.prometheusTimeoutMs ?? EDITOR_PROMETHEUS_TIMEOUT_MS, maxBytes: EDITOR_PROMETHEUS_MAX_BYTES, fileVersions, signal };
    const report = await prodFromPrometheus(file, source.prometheus, call);
    let timeline: TimelineData | null = null;
    try {
      // Its queries end by their own timeouts; the deadline stops the wait for them.
      const stopped = new Promise<never>((_, fail) => (signal.aborted ? fail(new Error(late())) : signal.addEventListener('abort', () => fail(new Error(late())), { once: true })));
      stopped.catch(() => undefined); // a deadline passing after the figures came is no error
      timeline = await Promise.race([prometheusTimeline(source.prometheus, report, { ...call, sinceMs: nowMs - sinceToMs(source.since) }), stopped]);
    } catch (error) {
      notes.push(`hourly figures unavailable: ${(error as Error).message}`);
    }
    // `watch`'s anomalies from the same server, over its own five weeks (the band needs the weeks before the window).
    let watch: Record<string, PromptWatchData> | undefined;
    if (options.watchPrometheus && !signal.aborted) {
      try {
        watch = await options.watchPrometheus(source.prometheus, (await fileVersions).promptNames, { nowMs, timeoutMs: call.timeoutMs, maxBytes: call.maxBytes, signal });
      } catch (error) {
        notes.push(`anomalies unavailable: ${signal.aborted ? late() : (error as Error).message}`);
      }
    }
    return { source, label, report, timeline, notes, ...(watch ? { watch } : {}) };
  } catch (error) {
    return { source, label, report: null, timeline: null, error: deadline.aborted ? late() : (error as Error).message, notes };
  }
}
