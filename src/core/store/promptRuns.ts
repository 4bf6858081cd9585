/**
 * The stored runs behind one prompt's lens and hover: the runs of exactly this content on the
 * endpoint used last (their summary), and all runs of the prompt on that endpoint across edits
 * (the latency fit against input tokens).
 */
import { attributionHints, type AttributionHint } from '../metrics/attribution';
import { fitLatency, type LatencyFit } from '../metrics/latencyModel';
import { summarizeRuns, type RunSummary } from '../metrics/summary';
import type { StoredRun } from './resultsStore';

export interface PromptRunsView {
  endpointName: string;
  model: string;
  simulated: boolean;
  /** Runs of the current content; undefined when this exact text has not been run. */
  current?: RunSummary;
  /** Runs of this prompt on the endpoint, any content version. */
  fit?: LatencyFit;
  hints: AttributionHint[];
  lastRunAt: string;
}

export function promptRunsView(records: readonly StoredRun[], match: { file: (stored: string) => boolean; prompt: string; promptHash: string }): PromptRunsView | undefined {
  const ofPrompt = records.filter((r) => r.prompt === match.prompt && match.file(r.file) && r.testCase === undefined);
  const latest = ofPrompt.at(-1);
  if (!latest) return undefined;
  const onEndpoint = ofPrompt.filter((r) => r.key.endpoint === latest.key.endpoint && r.key.model === latest.key.model);
  const current = onEndpoint.filter((r) => r.key.promptHash === match.promptHash).map((r) => r.run);
  const fit = fitLatency(onEndpoint.map((r) => r.run));
  const summary = current.length > 0 ? summarizeRuns(current) : undefined;
  return {
    endpointName: latest.endpointName,
    model: latest.key.model,
    simulated: latest.simulated,
    ...(summary ? { current: summary } : {}),
    ...(fit ? { fit } : {}),
    hints: summary ? attributionHints(summary, fit, 1) : [],
    lastRunAt: latest.at,
  };
}
