/** Run metrics in the editor: the lens line above each prompt and the hover section with the estimate. */
import type { PromptAnalysis } from '../core/analysis';
import { formatMs, formatRate, percentileCells, phaseLine, promptCacheSentence, runLensLine } from '../core/metrics/format';
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

export function runHoverSection(view: PromptRunsView, prompt: PromptAnalysis): string {
  const lines: string[] = [];
  const endpoint = `\`${view.endpointName.replace(/`/g, "'")}\`${view.simulated ? ' (**simulated** endpoint, not a real model)' : ''}`;
  if (view.current) {
    const s = view.current;
    const { cold, warm, unknown } = s.cache;
    lines.push(`**Runs of this text** on ${endpoint} · ${view.model} · ${s.ok}/${s.runs} ok`, '', promptCacheSentence(cold, warm, unknown), '', '| | p50 | p90 | p99 | p99.9 | n |', '|---|---:|---:|---:|---:|---:|');
    lines.push(`| TTFT | ${percentileCells(s.ttftMs, formatMs).join(' | ')} | ${s.ttftMs.n} |`);
    lines.push(`| E2E | ${percentileCells(s.e2eMs, formatMs).join(' | ')} | ${s.e2eMs.n} |`);
    lines.push(`| TPOT | ${percentileCells(s.tpotMs, (v) => `${v.toFixed(1)} ms`).join(' | ')} | ${s.tpotMs.n} |`);
    lines.push(`| out/E2E tok/s | ${percentileCells(s.outputTokensPerSec, formatRate).join(' | ')} | ${s.outputTokensPerSec.n} |`);
    lines.push(`| decode tok/s (1000/TPOT) | ${percentileCells(s.decodeTokensPerSec, formatRate).join(' | ')} | ${s.decodeTokensPerSec.n} |`);
    if (s.chain) lines.push('', chainLine(s.chain));
    if ('hallucination' in view && typeof view.hallucination === 'string') lines.push('', view.hallucination);
    if (s.phases) lines.push('', `${phaseLine(s.phases)} (medians of ${s.phases.n} run${s.phases.n === 1 ? '' : 's'}, ${s.phases.sources.join(', ')})`);
    const errors = Object.entries(s.errors);
    if (errors.length > 0) lines.push('', `errors: ${errors.map(([k, n]) => `${k} ×${n}`).join(', ')}`);
  } else {
    lines.push(`**No runs of this exact text yet** (last run on ${endpoint} · ${view.model})`);
  }
  if (view.fit) {
    const estimate = estimateLatency(view.fit, prompt.totalTokens);
    const slope = view.fit.msPerInputToken !== 0 ? `, ${view.fit.msPerInputToken >= 0 ? '+' : ''}${(view.fit.msPerInputToken * 1000).toFixed(0)} ms per 1k input tokens` : ', input length did not vary';
    lines.push('', `Estimate for the current text (${prompt.totalTokens.toLocaleString('en-US')} input tokens): TTFT ≈ ${formatMs(estimate.ttftMs)}${estimate.e2eMs !== null ? `, E2E ≈ ${formatMs(estimate.e2eMs)}` : ''} — fitted from ${estimate.basedOnRuns} run${estimate.basedOnRuns === 1 ? '' : 's'}${slope}.`);
  }
  for (const hint of view.hints) lines.push('', `💡 ${hint.message}`);
  return lines.join('\n');
}
