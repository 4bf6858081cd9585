/**
 * The Production view's anomalies as plain data (they cross the worker thread and the LSP): what
 * core/baseline/productionAnomalies.ts finds with `watch`'s analysis, and what the page shows of it.
 */

/** `watch`'s hourly metrics. */
export type WatchedMetric = 'ttft.p99' | 'e2e.p99' | 'error-rate';

export interface AnomalyRecord {
  metric: WatchedMetric;
  startMs: number;
  /** null: still going on at the newest window. */
  endMs: number | null;
  observed: number;
  usual: number | null;
  upper: number | null;
  version: string | null;
  /** The version change just before it (within its first window or the two before). */
  likelyCause: { t: number; version: string } | null;
  /** What moved with it and what that points at (anomalyCause.ts), in words; null when nothing moved. */
  movedWith: string | null;
  pointsAt: 'prompt' | 'capacity' | 'decoding' | null;
  /** Start of the newest window of the metric: an open anomaly is ongoing only while this is recent. */
  lastWindowMs: number | null;
}

/** One prompt's analysis as a source read it: every version change and anomaly over all its spans. */
export interface PromptWatchData {
  /** Each version at its first span, oldest first. */
  versions: { t: number; version: string }[];
  anomalies: AnomalyRecord[];
}

/** What the page lists and marks on the chart. */
export interface ProductionAnomaly {
  metric: WatchedMetric;
  /** "TTFT p99", "E2E latency p99", "error rate". */
  label: string;
  /** The hours it covers, one span per day for a recurring one; endMs null while ongoing. */
  spans: { startMs: number; endMs: number | null }[];
  /** Still departing in the last hours (the status bar's signal). */
  ongoing: boolean;
  version: string | null;
  /** The version that went live just before it, if one did. */
  causeVersion: string | null;
  /** One plain sentence: when, what, how far over the usual, the version live, the likely cause. */
  sentence: string;
}

