/**
 * promptInsight.telemetry.otlpEndpoint: a batch's runs as OpenTelemetry GenAI spans (the SDK bundle
 * loads only now). Off unless the setting names an endpoint; headers come from OTEL_EXPORTER_OTLP_HEADERS only.
 */
import * as vscode from 'vscode';
import type { RunCheck } from '../../core/adherence/runChecks';
import type { RunOutcome } from '../../core/run/runOnce';
import { scrubSecrets } from '../../core/endpoint/secrets';
import type { ChatTransport } from '../../core/endpoint/transport';
import type { PromptRunPlan } from '../../core/run/promptRun';
import { telemetryRunsOf, type RunClock } from '../../core/telemetry/batchRuns';
import { loadTelemetry } from '../../core/telemetry/loadTelemetry';
import { otlpTargetOf } from '../../core/telemetry/otlpSettings';
import { committedRevisionOf } from '../../core/telemetry/promptRevision';
import type { TelemetryRun } from '../../core/telemetry/runSpans';

export interface BatchForTelemetry {
  document: vscode.TextDocument;
  transport: ChatTransport;
  runClock: RunClock;
  plan: PromptRunPlan;
  outcomes: readonly RunOutcome[];
  checkOf: (outcome: RunOutcome) => RunCheck | undefined;
}

/** Resolves the prompt's version, then sends the spans in the background (failures go to the log). */
export async function exportBatchTelemetry(batch: BatchForTelemetry, version: string, log: vscode.LogOutputChannel): Promise<void> {
  const endpoint = vscode.workspace.getConfiguration('promptInsight').get<string>('telemetry.otlpEndpoint');
  if (!endpoint) return;
  const { document, transport, runClock, plan } = batch;
  // The prompt's version: the file's commit when the saved file is committed and unchanged, else the content hash.
  const revision = !document.isDirty && document.uri.scheme === 'file' ? await committedRevisionOf(document.uri.fsPath) : undefined;
  const runs = telemetryRunsOf(
    transport,
    runClock,
    batch.outcomes.map((outcome) => {
      const check = batch.checkOf(outcome);
      return { outcome, plan, ...(revision ? { revision } : {}), ...(check ? { check } : {}) };
    }),
  );
  void sendTelemetry(endpoint, runs, version, log);
}

async function sendTelemetry(endpoint: string, runs: TelemetryRun[], version: string, log: vscode.LogOutputChannel): Promise<void> {
  const target = otlpTargetOf(endpoint);
  if (!target || runs.length === 0) return;
  if ('error' in target) {
    log.warn(`promptInsight.telemetry.otlpEndpoint: ${target.error}; runs were not exported.`);
    return;
  }
  try {
    const { exportRunsOtlpHttp } = await loadTelemetry();
    const outcome = await exportRunsOtlpHttp(runs, { endpoint: target.endpoint }, { version });
    if (outcome.errors.length) log.warn(`OTLP export to ${target.endpoint} failed: ${outcome.errors.join('; ')}`);
    else log.info(`Sent ${outcome.spans} span(s) and their metrics to ${target.endpoint} (OTLP/HTTP).`);
  } catch (error) {
    log.warn(`OTLP export could not start: ${scrubSecrets(String(error))}`);
  }
}
