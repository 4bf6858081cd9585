/**
 * The end of a run document in the editor: the figures (cold apart from warm, both rates with their
 * formulas), where TTFT went by the server's own phases, what its metrics said over the batch's
 * clock, and the hints. Markdown; no `vscode` here.
 */
import { chainMarkdown } from './chain';
import type { MetricsGap, MetricsSample } from '../endpoint/serverMetrics';
import { attributionHints, serverEvidenceHints } from './attribution';
import { formatMs, phaseLine, promptCacheSentence, runSummaryLine } from './format';
import type { LatencyFit } from './latencyModel';
import type { RunRecord } from './runRecord';
import type { MetricSummary, RunSummary } from './summary';

export interface RunReportInput {
  records: readonly RunRecord[];
  summary: RunSummary;
  summaryWarm: RunSummary | null;
  serverKind: string;
  serverMetrics: { samples: readonly MetricsSample[]; gaps: readonly MetricsGap[] } | null;
  /** When each run's request started, ms from the batch's start (the metrics' clock), aligned with records. */
  startedAt?: readonly number[];
  fit: LatencyFit | undefined;
  concurrency: number;
  simulated: boolean;
}

const MAX_METRIC_ROWS = 16;

function table(summary: RunSummary): string {
  const cell = (v: number | null, f: (x: number) => string): string => (v === null ? 'n/a' : f(v));
  const row = (name: string, m: MetricSummary, f: (x: number) => string): string => `| ${name} | ${m.n} | ${cell(m.p50, f)} | ${cell(m.p90, f)} | ${cell(m.p99, f)} | ${cell(m.min, f)} | ${cell(m.max, f)} |`;
  return [
    '| metric | n | p50 | p90 | p99 | min | max |',
    '|---|---:|---:|---:|---:|---:|---:|',
    row('TTFT', summary.ttftMs, formatMs),
    row('E2E', summary.e2eMs, formatMs),
    row('TPOT', summary.tpotMs, (v) => `${v.toFixed(1)} ms`),
    row('out/E2E tok/s', summary.outputTokensPerSec, (v) => v.toFixed(1)),
    row('decode tok/s', summary.decodeTokensPerSec, (v) => v.toFixed(1)),
  ].join('\n');
}

export function runReportMarkdown(input: RunReportInput): string {
  const { summary, summaryWarm, records } = input;
  const { cold, warm, unknown } = summary.cache;
  const out = [
    `## Metrics${input.simulated ? ' — SIMULATED endpoint (scripted answers and timings, not a real model)' : ''}`,
    '',
    runSummaryLine(summary),
    '',
    `${promptCacheSentence(cold, warm, unknown)}${input.serverKind !== 'unknown' ? ` Server: ${input.serverKind}.` : ''}`,
    '',
    table(summary),
    '',
    'TPOT = (E2E − TTFT) / (output tokens − 1) · out/E2E = output tokens / E2E · decode = 1000 / TPOT (vLLM bench serve).',
  ];
  if (summary.chain) out.push('', ...chainMarkdown(summary.chain));
  if (summaryWarm) out.push('', `### Warm runs (${warm}, prompt partly from the server's prefix cache)`, '', table(summaryWarm));
  const phases = summary.phases;
  if (phases) {
    out.push('', `### Where TTFT went (${phases.sources.join(', ')}; ${phases.n} run${phases.n === 1 ? '' : 's'}, medians)`, '', phaseLine(phases));
  }
  const metrics = input.serverMetrics;
  if (metrics && (metrics.samples.length > 0 || metrics.gaps.length > 0)) {
    out.push('', '### The server during the runs (its /metrics; t from the start of the batch)', '');
    if (metrics.samples.length > 0) {
      const step = Math.max(1, Math.ceil(metrics.samples.length / MAX_METRIC_ROWS));
      const shown = metrics.samples.filter((_, i) => i % step === 0 || i === metrics.samples.length - 1);
      const value = (v: number | undefined, digits = 0): string => (v === undefined ? '—' : v.toFixed(digits));
      // Each run's first token on the same clock: TTFT beside what the server was doing then.
      const firstTokens = input.startedAt ? records.map((r, i) => (r.ttftMs !== null && input.startedAt![i] !== undefined ? { at: input.startedAt![i]! + r.ttftMs, run: i + 1, ttft: r.ttftMs } : undefined)).filter((x) => x !== undefined) : [];
      out.push('| t | running | waiting | KV cache | prompt tok/s | gen tok/s | first tokens (run: TTFT) |', '|---:|---:|---:|---:|---:|---:|---|');
      let from = -Infinity;
      shown.forEach((s, i) => {
        const until = i === shown.length - 1 ? Infinity : s.t;
        const arrived = firstTokens.filter((f) => f.at > from && f.at <= until).map((f) => `${f.run}: ${formatMs(f.ttft)}`);
        from = until;
        out.push(`| ${(s.t / 1000).toFixed(1)} s | ${value(s.requestsRunning)} | ${value(s.requestsWaiting)} | ${s.kvCacheUsage === undefined ? '—' : `${(s.kvCacheUsage * 100).toFixed(0)}%`} | ${value(s.promptTokensPerSec)} | ${value(s.generationTokensPerSec, 1)} | ${arrived.length > 0 ? arrived.join(', ') : ''} |`);
      });
    }
    if (metrics.gaps.length > 0) out.push('', `${metrics.gaps.length} sample${metrics.gaps.length === 1 ? '' : 's'} missing: ${metrics.gaps[0]!.error}.`);
    const dropped = Math.max(0, ...metrics.samples.map((s) => s.rawDropped ?? 0));
    if (dropped > 0) out.push('', `The server exposed more metric families than are kept: up to ${dropped} per sample were dropped (the mapped ones above are always kept).`);
  }
  const overlapped = records.filter((r) => r.overlappedLeftover);
  if (overlapped.length > 0) out.push('', `${overlapped.length} run${overlapped.length === 1 ? '' : 's'} left out of the figures: ${overlapped[0]!.overlappedLeftover}.`);
  const hints = [
    ...attributionHints(summary, input.fit, input.concurrency),
    ...serverEvidenceHints(summary, { records, ...(metrics ? { samples: metrics.samples } : {}), summaryWarm }),
  ];
  for (const hint of hints) out.push('', `- ${hint.message}`);
  return `${out.join('\n')}\n`;
}
