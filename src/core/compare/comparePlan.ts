/**
 * Stage 1 of a comparison: every revision × test case planned (rendered into the request it sends),
 * with the stored runs it may reuse. A revision that cannot be planned keeps its error and no cells.
 */
import type { TestSuite } from '../adherence/testCases';
import type { RunOutcome } from '../run/runOnce';
import type { ChatTransport } from '../endpoint/transport';
import { planPromptRun, type PromptRunPlan } from '../run/promptRun';
import type { DeclaredRetrieval } from '../retrieval/retrievalStep';
import type { StoredRun } from '../store/resultsStore';
import { runKeyOf, runKeyString } from '../store/runKey';
import type { RevisionSource } from './revisionSources';

/** One revision × test case that could be planned: its plan, the key of the request it sends, and the runs it has. */
export interface Cell {
  revision: number;
  caseIndex: number;
  plan: PromptRunPlan;
  /** The run key (prompt with the case's inputs, endpoint, model, parameters): equal keys send equal requests. */
  key: string;
  reused: StoredRun[];
  fresh: RunOutcome[];
}

export interface PlanInput {
  file: string;
  promptName?: string;
  modelOverride?: string;
  transport: ChatTransport;
  suite: TestSuite;
  /** The judging revision's retrieval step (gatePolicy.ts): every revision runs it, not its own. */
  retrieval: DeclaredRetrieval;
  runsPerCase: number;
  /** Stored runs that may be reused, by run key. */
  stored: ReadonlyMap<string, StoredRun[]>;
}

/** What planning found per revision: the prompt's size in tokens, or why it could not be planned. */
export interface PlannedRevision {
  tokens: number | null;
  error?: string;
}

export interface ComparisonPlan {
  cells: Cell[];
  promptName: string;
  model: string;
  /** One per source, in order. */
  revisions: PlannedRevision[];
}

export async function planComparison(input: PlanInput, sources: readonly RevisionSource[]): Promise<ComparisonPlan> {
  const cells: Cell[] = [];
  const revisions: PlannedRevision[] = sources.map(() => ({ tokens: null }));
  let promptName = input.promptName ?? '';
  let model = input.modelOverride ?? input.transport.endpoint.model ?? '';
  const common = {
    ...(input.promptName !== undefined ? { promptName: input.promptName } : {}),
    ...(input.modelOverride ? { modelOverride: input.modelOverride } : {}),
    ...(input.transport.endpoint.model ? { endpointModel: input.transport.endpoint.model } : {}),
    retrieval: input.retrieval,
  };
  for (const [revisionIndex, revision] of sources.entries()) {
    const result = revisions[revisionIndex]!;
    for (const [caseIndex, testCase] of input.suite.cases.entries()) {
      let plan: PromptRunPlan;
      try {
        plan = await planPromptRun(input.file, revision.text, { ...common, vars: testCase.vars, ...(testCase.turns ? { turns: testCase.turns } : {}) });
      } catch (error) {
        result.error = `${revision.label}: ${(error as Error).message}`;
        break;
      }
      promptName ||= plan.prompt.name;
      model = plan.request.model;
      if (caseIndex === 0) {
        // The prompt's size with its own sample inputs, as the editor counts it.
        const sample = await planPromptRun(input.file, revision.text, { ...(input.promptName !== undefined ? { promptName: input.promptName } : {}), endpointModel: plan.request.model, retrieval: input.retrieval }).catch(() => undefined);
        result.tokens = sample?.inputTokensEstimate ?? plan.inputTokensEstimate;
      }
      const key = runKeyString(runKeyOf(input.transport.endpoint, plan.request, plan.retrieval));
      cells.push({ revision: revisionIndex, caseIndex, plan, key, reused: (input.stored.get(key) ?? []).slice(-input.runsPerCase), fresh: [] });
    }
  }
  return { cells, promptName, model, revisions };
}

/**
 * Base and head send exactly the same request for every test case (same rendered prompt, model and
 * parameters): whatever the runs show, there is no change to roll out.
 */
export function sendSameRequests(cells: readonly Cell[], base: number, head: number, cases: number): boolean {
  const keys = (revision: number) => cells.filter((c) => c.revision === revision).map((c) => c.key);
  const [b, h] = [keys(base), keys(head)];
  return cases > 0 && b.length === cases && h.length === cases && b.every((key, i) => key === h[i]);
}
