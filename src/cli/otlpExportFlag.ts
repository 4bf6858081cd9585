/**
 * `--otlp-endpoint URL` on `run`, `compare` and `load`: the runs just made, sent as OpenTelemetry GenAI
 * spans and client metrics (docs/telemetry.md). A failed export is said on stderr and never changes the
 * exit code; headers come only from OTEL_EXPORTER_OTLP_HEADERS and are never printed.
 */
export { checkKey, RunClock, storedRunsSince, telemetryRunsOf } from '../core/telemetry/batchRuns';
import { loadTelemetry } from '../core/telemetry/loadTelemetry';
import { captureContentFromEnv, otlpTargetOf, type OtlpTarget } from '../core/telemetry/otlpSettings';
import type { TelemetryRun } from '../core/telemetry/runSpans';
import { stringFlag, UsageError, type ParsedArgs } from './args';
import type { CliIO } from './io';
import { VERSION } from './help/usage';

/** The flag, checked before any run (a bad URL is a usage error, not a lost export after the runs). */
export function otlpTargetFlag(args: ParsedArgs): OtlpTarget | undefined {
  const target = otlpTargetOf(stringFlag(args, 'otlp-endpoint'));
  if (target && 'error' in target) throw new UsageError(`--otlp-endpoint: ${target.error}`);
  return target;
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

