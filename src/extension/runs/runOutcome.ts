/**
 * How a finished batch is told: the figures and the CodeLens note written into the run document,
 * failures logged, and one notification — cancelled, failed (with the first error), or the summary line.
 */
import * as vscode from 'vscode';
import { runLensLine } from '../../core/metrics/format';
import { fitLatency } from '../../core/metrics/latencyModel';
import { runReportMarkdown } from '../../core/metrics/runReport';
import type { ExecutedRuns, PromptRunPlan } from '../../core/run/promptRun';
import type { ResultsStore } from '../../core/store/resultsStore';
import type { EndpointChoice } from '../endpoints/endpoints';
import type { LiveRunDocument } from './liveRunDocument';
import { runToastLine } from './runDocument';
import { lensSummary } from './runStore';

export interface FinishedBatch {
  plan: PromptRunPlan;
  choice: EndpointChoice;
  result: ExecutedRuns;
  concurrency: number;
  cancelled: boolean;
  store: ResultsStore;
}

export function tellRunOutcome(batch: FinishedBatch, output: LiveRunDocument, log: vscode.LogOutputChannel): void {
  const { plan, choice, result, store } = batch;
  const state = output.state;
  const records = result.outcomes.map((o) => o.record);
  const simulated = choice.config.simulated === true || records.some((r) => r.simulated);
  state.cancelled = batch.cancelled;
  state.summary = result.summary;
  state.report = runReportMarkdown({ records, summary: result.summary, summaryWarm: result.summaryWarm, serverKind: result.serverKind, serverMetrics: result.serverMetrics, startedAt: result.startedAt, fit: fitLatency(records), concurrency: batch.concurrency, simulated });
  // The CodeLens sums up every stored run of this exact text on this endpoint, not only this batch: say so, with its numbers.
  const lens = lensSummary(store, plan);
  if (lens && lens.current && lens.current.runs !== result.summary.runs) {
    state.lensNote = `The CodeLens above the prompt sums up all ${lens.current.runs} stored runs of this exact text on ${lens.endpointName}: ${runLensLine(lens.current, lens.simulated)}.`;
  }
  void output.finish();
  const failures = records.filter((r) => r.error && r.error.kind !== 'cancelled');
  if (failures.length > 0) log.warn(`Runs of '${plan.prompt.name}' on ${choice.config.name}: ${failures.length} failed; first: ${failures[0]!.error!.message}`);
  if (batch.cancelled) {
    void vscode.window.showInformationMessage(`Prompt Insight: cancelled after ${result.summary.runs} run(s); finished runs are kept.`);
  } else if (result.summary.ok === 0 && failures.length > 0) {
    void vscode.window.showErrorMessage(`Prompt Insight: '${plan.prompt.name}' failed on ${choice.config.name}: ${failures[0]!.error!.message}`, 'Show Output').then((c) => c && log.show());
  } else {
    void vscode.window.showInformationMessage(`Prompt Insight: '${plan.prompt.name}' · ${runToastLine(result.summary, lens?.current, state.entries)}${simulated ? ' · simulated' : ''}`);
  }
}
