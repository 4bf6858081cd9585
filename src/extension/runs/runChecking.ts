/**
 * Each run's answer checked against the prompt's test cases: started once per run (as it ends, or,
 * when a judge model is involved, after the batch, since the judge may share the runs' server), its
 * verdict shown in the run document and kept for the store and telemetry.
 */
import { JUDGE_TYPES } from '../../core/adherence/checkText';
import { checkRun, hasClaimsChecks, type RunCheck, type RunCheckPlan } from '../../core/adherence/runChecks';
import type { Judge } from '../../core/adherence/score';
import type { RunOutcome } from '../../core/run/runOnce';
import { scoredRunOf } from '../../core/run/retrievalRun';
import type { RunDocumentState } from './runDocument';

export class RunChecking {
  private readonly started = new Map<number, Promise<RunCheck | undefined>>();
  private readonly settling: Promise<void>[] = [];
  private readonly finished = new Map<number, RunOutcome>();
  private readonly verdicts = new Map<RunOutcome, RunCheck>();

  constructor(
    private readonly plan: RunCheckPlan,
    private readonly judge: Judge | undefined,
    /** Called when a run's check is done (with its verdict, or undefined when there was nothing to check). */
    private readonly onChecked: (index: number, check: RunCheck | undefined) => void,
    private readonly warn: (message: string) => void,
    private readonly promptName: string,
  ) {}

  /** A run ended: checks without a judge start now; a judge waits for the measured runs to end. */
  runFinished(index: number, outcome: RunOutcome): void {
    this.finished.set(index, outcome);
    if (!this.judge) void this.checkFor(index, outcome);
  }

  /** Runs judged for hallucination are stored with the verdict of their check, once the runs are over. */
  get groundedOf(): ((outcome: RunOutcome, index: number) => Promise<RunCheck['grounded']>) | undefined {
    return hasClaimsChecks(this.plan.cases) ? async (outcome, index) => (await this.checkFor(index, outcome))?.grounded : undefined;
  }

  /** Checks every finished run not checked yet and waits for all checks. */
  async settle(): Promise<void> {
    for (const [index, outcome] of this.finished) void this.checkFor(index, outcome);
    await Promise.all(this.settling);
  }

  checkOf(outcome: RunOutcome): RunCheck | undefined {
    return this.verdicts.get(outcome);
  }

  private checkFor(index: number, outcome: RunOutcome): Promise<RunCheck | undefined> {
    const started = this.started.get(index);
    if (started) return started;
    const pending = checkRun(this.plan, { ...scoredRunOf(outcome), ...(outcome.record.error ? { errorMessage: outcome.record.error.message } : {}) }, this.judge);
    this.started.set(index, pending);
    this.settling.push(
      pending.then(
        (check) => {
          if (check) this.verdicts.set(outcome, check);
          this.onChecked(index, check);
        },
        (error: unknown) => this.warn(`Checking run ${index + 1} of '${this.promptName}' failed: ${String(error)}`),
      ),
    );
    return pending;
  }
}

/** What the run document says the answers are checked against, or why they are not. */
export function checksNote(plan: RunCheckPlan): RunDocumentState['checks'] {
  if (plan.cases.length === 0) return { notChecked: 'why' in plan ? plan.why : 'no test cases' };
  return { against: plan.cases.length === 1 ? `the test case “${plan.cases[0]!.description}”` : `the ${plan.cases.length} test cases written for these sample values` };
}

/** Any assertion an LLM judge decides (rubrics, and the grounded checks: hallucination, faithfulness, …): only then is the judge endpoint resolved. */
export function needsJudge(plan: RunCheckPlan): boolean {
  return plan.cases.some((c) => c.assertions.some((a) => JUDGE_TYPES.has(a.type)));
}

