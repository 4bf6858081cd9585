/**
 * What each measured figure is called on screen, in one place, so every view says it the same way:
 * a short name for lines and tables ("E2E latency p90 ≤ 30 s"), and for a reader new to the figures
 * a plain explanation with its unit ("Time to first token — how long until the answer starts").
 * The internal keys (`e2eMs`) stay in JSON that scripts read; people never see them.
 */

export type NamedMetric = 'ttftMs' | 'e2eMs' | 'tpotMs' | 'outputTokensPerSec';

export const METRIC_NAMES: Record<NamedMetric, string> = {
  ttftMs: 'TTFT',
  e2eMs: 'E2E latency',
  tpotMs: 'TPOT',
  outputTokensPerSec: 'throughput',
};

export interface MetricExplanation {
  /** The figure spelled out: "Time to first token". */
  title: string;
  /** What it tells, in words: "how long until the answer starts". */
  meaning: string;
  /** The unit its values are shown in. */
  unit: string;
}

export const METRIC_EXPLANATIONS: Record<NamedMetric, MetricExplanation> = {
  ttftMs: { title: 'Time to first token (TTFT)', meaning: 'how long until the answer starts', unit: 'ms or s' },
  e2eMs: { title: 'End-to-end latency (E2E)', meaning: 'how long until the whole answer is in', unit: 'ms or s' },
  tpotMs: { title: 'Time per output token (TPOT)', meaning: 'how fast the answer streams', unit: 'ms/token' },
  outputTokensPerSec: { title: 'Throughput', meaning: 'output tokens per second over the whole request', unit: 'tokens/s' },
};

/** The name of a verdict's or a row's metric key; a key this module does not know reads as itself, de-camelled. */
export function metricName(key: string): string {
  if (key in METRIC_NAMES) return METRIC_NAMES[key as NamedMetric];
  if (key === 'errorRate') return 'error rate';
  return key.replace(/([a-z])([A-Z])/g, '$1 $2').toLowerCase();
}

/** A limit as people write it: `30 s`, `800 ms`, `1.5 s` (no trailing zeros: a limit is a round number). */
export function formatLimitMs(ms: number): string {
  if (ms < 1000) return `${Number(ms.toFixed(1))} ms`;
  return `${Number((ms / 1000).toFixed(3))} s`;
}

/** A rate as a percentage; small rates keep a decimal, so a 2% ceiling is read against 0.5%, not 1%. */
export function percentText(rate: number): string {
  const p = rate * 100;
  return `${p >= 10 || Number.isInteger(p) ? Math.round(p) : p.toFixed(1)}%`;
}

/** A ceiling every request is held to under load: `TTFT ≤ 160 ms`, `E2E latency ≤ 30 s`. */
export function latencyLimitLabel(metric: 'ttftMs' | 'e2eMs' | 'tpotMs', maxMs: number): string {
  return `${METRIC_NAMES[metric]} ≤ ${formatLimitMs(maxMs)}`;
}
