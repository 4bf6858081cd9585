/** Run metrics in the editor: the lens line above each prompt and the hover section with the estimate. */
import type { PromptAnalysis } from '../core/analysis';
import { formatMs, formatRate, runLensLine } from '../core/metrics/format';
import { METRIC_NAMES } from '../core/text/metricNames';
import type { RunSummary } from '../core/metrics/summary';
import { estimateLatency } from '../core/metrics/latencyModel';
import { chainLine } from '../core/metrics/chain';
import { hallucinationLine } from '../core/metrics/groundedRuns';
import type { StoredRun } from '../core/store/resultsStore';
import { promptRunsView, type PromptRunsView } from '../core/store/promptRuns';
import { requestOf } from '../core/run/promptRequest';
import { promptContentHash } from '../core/store/runKey';

export interface RunLookup {
  records: readonly StoredRun[];
  /** Whether a stored (workspace-relative or CLI-given) file path names this document. */
  isThisFile: (stored: string) => boolean;
}

/** The view of this prompt's runs, with the hallucination line of the runs of this text when they were judged. */
export function runsViewFor(prompt: PromptAnalysis, lookup: RunLookup): (PromptRunsView & { hallucination?: string }) | undefined {
  if (lookup.records.length === 0) return undefined;
  let promptHash: string;
  try {
    promptHash = promptContentHash(requestOf(prompt.prompt, prompt.messages, { endpointDefault: 'any' }));
  } catch {
    return undefined;
  }
  const view = promptRunsView(lookup.records, { file: lookup.isThisFile, prompt: prompt.prompt.name, promptHash });
  if (!view?.current) return view;
  const mine = lookup.records.filter((r) => r.key.promptHash === promptHash && r.prompt === prompt.prompt.name && r.endpointName === view.endpointName && lookup.isThisFile(r.file));
  const hallucination = hallucinationLine(mine.map((r) => r.run));
  return hallucination ? { ...view, hallucination } : view;
}

export function runLensTitle(view: PromptRunsView, prompt: PromptAnalysis): string {
  if (view.current) return runLensLine(view.current, view.simulated);
  const label = view.simulated ? ' · sim' : '';
  if (view.fit) return `edited · est. TTFT ${formatMs(estimateLatency(view.fit, prompt.totalTokens).ttftMs)}${label}`;
  return `edited since last run${label}`;
}

/**
 * The hover's runs, in two lines: where and how many, then the medians in words (or the RAG chain),
 * with a link to every figure (the runs document). An edited text gets the estimate instead.
 */
export function runHoverSection(view: PromptRunsView & { hallucination?: string }, prompt: PromptAnalysis, allRunsLink: string): string {
  const endpoint = `\`${view.endpointName.replace(/`/g, "'")}\`${view.simulated ? ' (**simulated** endpoint, not a real model)' : ''}`;
  if (view.current) {
    const s = view.current;
    const figures = s.chain ? [chainLine(s.chain)] : medianFigures(s);
    if (view.hallucination) figures.push(view.hallucination);
    const failed = Object.entries(s.errors).map(([kind, n]) => `${kind} ×${n}`);
    if (failed.length > 0) figures.push(`failed: ${failed.join(', ')}`);
    return [`**Runs of this text** on ${endpoint} · ${view.model} · ${s.ok} of ${s.runs} answered`, '', `${figures.join(' · ')} — ${allRunsLink}`].join('\n');
  }
  const lines = [`**No runs of this exact text yet** (last run on ${endpoint} · ${view.model}) — ${allRunsLink}`];
  if (view.fit) {
    const estimate = estimateLatency(view.fit, prompt.totalTokens);
    lines.push('', `Estimate for the current text (${prompt.totalTokens.toLocaleString('en-US')} input tokens): TTFT ≈ ${formatMs(estimate.ttftMs)}${estimate.e2eMs !== null ? `, ${METRIC_NAMES.e2eMs} ≈ ${formatMs(estimate.e2eMs)}` : ''} — fitted from ${estimate.basedOnRuns} run${estimate.basedOnRuns === 1 ? '' : 's'}.`);
  }
  return lines.join('\n');
}

/** `TTFT p50 312 ms · E2E latency p50 1.84 s · throughput p50 41 tok/s (20 runs)`. */
function medianFigures(s: RunSummary): string[] {
  const parts: string[] = [];
  if (s.ttftMs.p50 !== null) parts.push(`${METRIC_NAMES.ttftMs} p50 ${formatMs(s.ttftMs.p50)}`);
  if (s.e2eMs.p50 !== null) parts.push(`${METRIC_NAMES.e2eMs} p50 ${formatMs(s.e2eMs.p50)}`);
  if (s.outputTokensPerSec.p50 !== null) parts.push(`${METRIC_NAMES.outputTokensPerSec} p50 ${formatRate(s.outputTokensPerSec.p50)} tok/s`);
  parts.push(`${s.ttftMs.n} run${s.ttftMs.n === 1 ? '' : 's'}`);
  return parts;
}
