/**
 * `--otlp-endpoint URL` on `run`, `compare` and `load`: the runs just made, sent as OpenTelemetry GenAI
 * spans and client metrics (docs/telemetry.md). A failed export is said on stderr and never changes the
 * exit code; headers come only from OTEL_EXPORTER_OTLP_HEADERS and are never printed.
 */
import type { RunCheck } from '../core/adherence/runChecks';
import type { RunOutcome } from '../core/endpoint/runOnce';
import type { PromptRunPlan } from '../core/run/promptRun';
import type { ChatTransport } from '../core/endpoint/transport';
import type { ResultsStore } from '../core/store/resultsStore';
import { runKeyOf } from '../core/store/runKey';
import { loadTelemetry } from '../core/telemetry/loadTelemetry';
import { captureContentFromEnv, otlpTargetOf, type OtlpTarget } from '../core/telemetry/otlpSettings';
import type { TelemetryRun } from '../core/telemetry/runSpans';
import { stringFlag, UsageError, type ParsedArgs } from './args';
import type { CliIO } from './io';
import { VERSION } from './usage';

/** The flag, checked before any run (a bad URL is a usage error, not a lost export after the runs). */
export function otlpTargetFlag(args: ParsedArgs): OtlpTarget | undefined {
  const target = otlpTargetOf(stringFlag(args, 'otlp-endpoint'));
  if (target && 'error' in target) throw new UsageError(`--otlp-endpoint: ${target.error}`);
  return target;
}

/** When each run finished (wall clock), noted from the batch's onRun callback: the span's end. */
export class RunClock {
  private readonly ends = new Map<RunOutcome, number>();
  note = (outcome: RunOutcome): void => {
    this.ends.set(outcome, Date.now());
  };
  endOf(outcome: RunOutcome): string {
    return new Date(this.ends.get(outcome) ?? Date.now()).toISOString();
  }
}

export interface ExportedRun {
  outcome: RunOutcome;
  plan: PromptRunPlan;
  revision?: string;
  testCase?: number;
  check?: RunCheck;
}

/** The runs as the store keeps them, with their checks and the messages sent. */
export function telemetryRunsOf(transport: ChatTransport, clock: RunClock, runs: readonly ExportedRun[]): TelemetryRun[] {
  return runs
    .filter(({ outcome }) => outcome.record.error?.kind !== 'cancelled')
    .map(({ outcome, plan, revision, testCase, check }) => ({
      run: {
        at: clock.endOf(outcome),
        key: runKeyOf(transport.endpoint, plan.request),
        file: plan.file,
        prompt: plan.prompt.name,
        endpointName: transport.endpoint.name,
        simulated: transport.endpoint.simulated === true || outcome.record.simulated === true,
        ...(revision ? { revision } : {}),
        ...(testCase !== undefined ? { testCase } : {}),
        run: outcome.record,
        answer: outcome.text.answer,
      },
      ...(check ? { check } : {}),
      inputMessages: plan.request.messages,
    }));
}

export async function exportToOtlp(command: string, target: OtlpTarget, runs: readonly TelemetryRun[], io: CliIO): Promise<void> {
  if (runs.length === 0) return;
  try {
    const { exportRunsOtlpHttp } = await loadTelemetry();
    const outcome = await exportRunsOtlpHttp(runs, { endpoint: target.endpoint }, { captureContent: captureContentFromEnv(), version: VERSION });
    if (outcome.errors.length) io.stderr(`prompt-insight ${command}: the OTLP export to ${target.endpoint} failed (${outcome.errors.join('; ')}); the runs are kept in the results store and can be sent again with \`prompt-insight export --format otlp-json\`\n`);
    else io.stderr(`Sent ${outcome.spans} span${outcome.spans === 1 ? '' : 's'} and their metrics to ${target.endpoint} (OTLP/HTTP)\n`);
  } catch (error) {
    io.stderr(`prompt-insight ${command}: the OTLP export could not start: ${(error as Error)?.message ?? String(error)}\n`);
  }
}

/** The runs a command stored since it started (compare keeps its runs, with their revisions, only in the store). */
export function storedRunsSince(store: ResultsStore, file: string, sinceMs: number): TelemetryRun[] {
  return store.read((r) => r.file === file && Date.parse(r.at) >= sinceMs).records.map((run) => ({ run }));
}
