/**
 * The batch run under a cancellable notification: where the first run is (identifying the server,
 * sending, waiting for the first token, streaming), then how many runs have finished.
 */
import * as vscode from 'vscode';
import type { ChatTransport } from '../../core/endpoint/transport';
import { executePromptRuns, type ExecutedRuns, type ExecuteOptions, type PromptRunPlan, type RunStage } from '../../core/run/promptRun';

/** Runs the batch; cancelling the notification aborts `controller`. Progress text names the endpoint. */
export function runWithProgress(transport: ChatTransport, plan: PromptRunPlan, endpointName: string, controller: AbortController, options: Omit<ExecuteOptions, 'signal' | 'onFirstRunStage'>): Promise<ExecutedRuns> {
  const { runs } = options;
  return Promise.resolve(
    vscode.window.withProgress({ location: vscode.ProgressLocation.Notification, title: `Prompt Insight: running '${plan.prompt.name}'`, cancellable: true }, async (progress, token) => {
      token.onCancellationRequested(() => controller.abort());
      progress.report({ message: `0/${runs} on ${endpointName}` });
      const stageText: Record<RunStage, string> = {
        'identifying-server': `identifying the server at ${endpointName}…`,
        sending: `connecting to ${endpointName}…`,
        waiting: 'sent; waiting for the first token…',
        streaming: 'streaming the answer…',
      };
      return executePromptRuns(transport, plan, {
        ...options,
        onFirstRunStage: (stage) => progress.report({ message: `${runs > 1 ? `run 1/${runs}: ` : ''}${stageText[stage]}` }),
        signal: controller.signal,
        onRun: (outcome, finished, index) => {
          options.onRun?.(outcome, finished, index);
          progress.report({ message: `${finished}/${runs} on ${endpointName}`, increment: 100 / runs });
        },
      });
    }),
  );
}
