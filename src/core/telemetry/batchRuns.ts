/**
 * The runs a face just made (outcomes of one batch), as telemetry inputs: what the store keeps for each,
 * plus its check against the test cases and the messages sent. Shared by the CLI and the editor's ▶ Run.
 */
import type { RunCheck } from '../adherence/runChecks';
import type { RunOutcome } from '../run/runOnce';
import type { ChatTransport } from '../endpoint/transport';
import type { PromptRunPlan } from '../run/promptRun';
import type { ResultsStore } from '../store/resultsStore';
import { runKeyOf } from '../store/runKey';
import type { TelemetryRun } from './runSpans';

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
        key: runKeyOf(transport.endpoint, plan.request, plan.retrieval),
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

/**
 * The runs a command stored since it started (compare keeps its runs, with their revisions, only in the
 * store), each with its check when `checks` has one: keyed by the run record as stored (checkKey), since
 * the store writes the record it was given.
 */
export function storedRunsSince(store: ResultsStore, file: string, sinceMs: number, checks?: ReadonlyMap<string, RunCheck>): TelemetryRun[] {
  return store.read((r) => r.file === file && Date.parse(r.at) >= sinceMs).records.map((run) => {
    const check = checks?.get(checkKey(run.run));
    return check ? { run, check } : { run };
  });
}

/** A run record's identity across the store's round trip (JSON keeps its fields and numbers as they were). */
export function checkKey(record: object): string {
  return JSON.stringify(record);
}
