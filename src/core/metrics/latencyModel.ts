/**
 * Latency expected for the current text, fitted from stored runs: TTFT = a + b × input tokens
 * (least squares; a flat fit when the inputs do not vary), E2E = TTFT + (output tokens − 1) × TPOT
 * with the medians of output tokens and TPOT. Always reported with the runs behind it.
 */
import type { RunRecord } from './runRecord';
import { percentile } from '../stats/percentile';

export interface LatencyFit {
  runs: number;
  interceptMs: number;
  msPerInputToken: number;
  /** Pearson correlation of TTFT with input tokens; null when the inputs do not vary. */
  correlation: number | null;
  medianTpotMs: number | null;
  medianOutputTokens: number | null;
}

export interface LatencyEstimate {
  ttftMs: number;
  e2eMs: number | null;
  basedOnRuns: number;
}

export function fitLatency(runs: readonly RunRecord[]): LatencyFit | undefined {
  const points = runs.filter((r) => r.ok && r.ttftMs !== null && r.inputTokens !== null).map((r) => ({ x: r.inputTokens!, y: r.ttftMs! }));
  if (points.length === 0) return undefined;
  const n = points.length;
  const meanX = points.reduce((s, p) => s + p.x, 0) / n;
  const meanY = points.reduce((s, p) => s + p.y, 0) / n;
  let sxx = 0;
  let sxy = 0;
  let syy = 0;
  for (const { x, y } of points) {
    sxx += (x - meanX) ** 2;
    sxy += (x - meanX) * (y - meanY);
    syy += (y - meanY) ** 2;
  }
  const varies = sxx > 0 && n >= 3;
  const slope = varies ? sxy / sxx : 0;
  const tpot = runs.map((r) => r.tpotMs).filter((v): v is number => v !== null).sort((a, b) => a - b);
  const outputs = runs.filter((r) => r.ok).map((r) => r.outputTokens).filter((v): v is number => v !== null).sort((a, b) => a - b);
  return {
    runs: n,
    interceptMs: varies ? meanY - slope * meanX : percentile(points.map((p) => p.y).sort((a, b) => a - b), 0.5),
    msPerInputToken: slope,
    correlation: varies && syy > 0 ? sxy / Math.sqrt(sxx * syy) : null,
    medianTpotMs: tpot.length > 0 ? percentile(tpot, 0.5) : null,
    medianOutputTokens: outputs.length > 0 ? percentile(outputs, 0.5) : null,
  };
}

export function estimateLatency(fit: LatencyFit, inputTokens: number): LatencyEstimate {
  const ttftMs = Math.max(0, fit.interceptMs + fit.msPerInputToken * inputTokens);
  const e2eMs = fit.medianTpotMs !== null && fit.medianOutputTokens !== null ? ttftMs + Math.max(0, fit.medianOutputTokens - 1) * fit.medianTpotMs : null;
  return { ttftMs, e2eMs, basedOnRuns: fit.runs };
}
