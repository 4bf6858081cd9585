/** How run metrics read in every view (CodeLens, hover, CLI, panel), so they always agree. */
import { METRIC_EXPLANATIONS, type NamedMetric } from '../text/metricNames';
import type { MetricSummary, RunSummary, PhaseSummary } from './summary';

export function formatMs(ms: number): string {
  return ms >= 1000 ? `${(ms / 1000).toFixed(2)} s` : `${Math.round(ms)} ms`;
}

export function formatRate(perSec: number): string {
  return perSec >= 100 ? perSec.toFixed(0) : perSec.toFixed(1);
}

/**
 * `TTFT 312 ms · E2E 1.84 s · 41 tok/s · p50 of 20 (p99 n/a)`; one run reads `… · 1 run`. `short`
 * (the CodeLens, which must fit beside the count lens in a split editor) leaves the rate, the p99
 * note and the error kinds to the hover.
 */
export function runSummaryLine(summary: RunSummary, { short = false } = {}): string {
  if (summary.ok === 0) {
    const errors = short ? '' : Object.entries(summary.errors).map(([kind, n]) => `${kind} ×${n}`).join(', ');
    return `${summary.runs} run${summary.runs === 1 ? '' : 's'} failed${errors ? ` (${errors})` : ''}`;
  }
  const parts: string[] = [];
  const ttft = summary.ttftMs.p50;
  const e2e = summary.e2eMs.p50;
  const rate = short ? null : summary.outputTokensPerSec.p50;
  if (ttft !== null) parts.push(`TTFT ${formatMs(ttft)}`);
  if (e2e !== null) parts.push(`E2E ${formatMs(e2e)}`);
  if (rate !== null) parts.push(`${formatRate(rate)} tok/s`);
  const n = summary.ttftMs.n;
  parts.push(n === 1 ? '1 run' : `p50 of ${n}${!short && summary.ttftMs.p99 === null ? ' (p99 n/a)' : ''}`);
  const failed = summary.runs - summary.ok;
  if (failed > 0) parts.push(`${failed} failed`);
  return parts.join(' · ');
}

/** The CodeLens after runs: the short summary line, labelled when the endpoint was the simulator. */
export function runLensLine(summary: RunSummary, simulated: boolean): string {
  return `${runSummaryLine(summary, { short: true })}${simulated ? ' · sim' : ''}`;
}

export function percentileCells(metric: MetricSummary, format: (v: number) => string): string[] {
  return [metric.p50, metric.p90, metric.p99, metric.p999].map((v) => (v === null ? 'n/a' : format(v)));
}

/** "TTFT = queue + transfer 12 ms + prefill 340 ms · then decode 1.20 s" from the phase medians. */
export function phaseLine(phases: PhaseSummary): string {
  const part = (ms: number | null): string => (ms === null ? '—' : formatMs(ms));
  return `TTFT = queue + transfer ${part(phases.queueMs)} + prefill ${formatMs(phases.prefillMs)} · then decode ${part(phases.decodeMs)}`;
}

const runs = (n: number): string => `${n} run${n === 1 ? '' : 's'}`;

/**
 * Whether the server reused an earlier request's work on the prompt (its prefix cache), in plain
 * words rather than "0 cold, 1 unknown": a cached prompt answers faster, so such runs are never
 * mixed into the figures. The run document says it this way; the hover can too.
 */
export function promptCacheSentence(cold: number, warm: number, unknown: number): string {
  const parts = [
    cold ? `${runs(cold)} processed the whole prompt afresh` : '',
    unknown ? `for ${runs(unknown)} the server did not say whether it reused a cached copy of the prompt` : '',
    warm ? `${runs(warm)} reused part of the prompt from the server's cache (faster: kept out of the figures, shown apart)` : '',
  ].filter(Boolean);
  return `Prompt cache: ${parts.join('; ')}.`;
}

/**
 * The figures for a reader new to them, one line each with what it means and its unit:
 * `Time to first token (TTFT) — how long until the answer starts: p50 320 ms · p90 410 ms`.
 * A figure no run measured is left out.
 */
export function plainFigureLines(summary: RunSummary): string[] {
  const formats: [NamedMetric, (v: number) => string][] = [
    ['ttftMs', formatMs],
    ['e2eMs', formatMs],
    ['tpotMs', (v) => `${v.toFixed(1)} ms/token`],
    ['outputTokensPerSec', (v) => `${formatRate(v)} tokens/s`],
  ];
  return formats.flatMap(([metric, format]) => {
    const m = summary[metric];
    if (m.p50 === null) return [];
    const { title, meaning } = METRIC_EXPLANATIONS[metric];
    return [`${title} — ${meaning}: p50 ${format(m.p50)}${m.p90 !== null && m.n > 1 ? ` · p90 ${format(m.p90)}` : ''}`];
  });
}
