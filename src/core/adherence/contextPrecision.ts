/**
 * `context-precision` when the test case names its relevant passages (`relevant: [id, …]`): Ragas's
 * context precision@K, the average precision over the ranks of the retrieved passages —
 *
 *   CP@K = Σ_k (Precision@k × v_k) / (relevant passages in the top K),   Precision@k = relevant in top k ÷ k
 *
 * where v_k is 1 when the passage at rank k is relevant. The passages are ranked as the context lists
 * them (the retriever's order). Judge-free: relevance is the ids the case names, not a model's opinion.
 * No relevant passage retrieved scores 0 (as Ragas); no context, no `relevant:`, or passages without
 * ids are undetermined with the reason — never a 0.
 */
import type { CheckVerdict } from './checkText';
import type { Assertion, TestCase } from './testCases';

/** Evaluators that read the test case's labels rather than the answer (scored apart from the text checks). */
export const CASE_CHECK_TYPES: ReadonlySet<string> = new Set(['context-precision']);

/** CP@K of relevance flags in rank order; null when no passage is relevant (the caller says 0 or why). */
export function contextPrecisionAtK(relevantAtRank: readonly boolean[]): number | null {
  let hits = 0;
  let sum = 0;
  relevantAtRank.forEach((relevant, i) => {
    if (!relevant) return;
    hits++;
    sum += hits / (i + 1);
  });
  return hits === 0 ? null : sum / hits;
}

export function contextPrecisionCheck(assertion: Assertion, testCase: Pick<TestCase, 'context' | 'contextProblem' | 'passageIds' | 'relevant'>): CheckVerdict & { grounded?: { citations: string[] } } {
  const undetermined = (reason: string) => ({ decided: false as const, reason: `undetermined: ${reason}` });
  if (testCase.contextProblem) return undetermined(testCase.contextProblem);
  const ids = testCase.passageIds ?? [];
  if (!testCase.context || testCase.context.length === 0) return undetermined('the test case has no context (add `context:` with the retrieved passages, each {text, id})');
  if (!testCase.relevant || testCase.relevant.length === 0) return undetermined('context-precision needs the relevant passages named on the test case: `relevant: [id, …]`');
  if (ids.length !== testCase.context.length || ids.some((id) => id === null)) return undetermined('context-precision needs an id on every passage of the context ({text, id})');
  const relevant = new Set(testCase.relevant);
  const flags = ids.map((id) => relevant.has(id!));
  const threshold = assertion.threshold ?? 0.5;
  const score = contextPrecisionAtK(flags) ?? 0;
  const ranks = flags.map((f, i) => (f ? i + 1 : 0)).filter((r) => r > 0);
  const reason = ranks.length === 0
    ? `no relevant passage among the ${flags.length} retrieved (relevant: ${[...relevant].join(', ')}): 0%, pass at ${Math.round(threshold * 100)}%`
    : `relevant passages at rank${ranks.length === 1 ? '' : 's'} ${ranks.join(', ')} of ${flags.length}: context precision@${flags.length} ${score.toFixed(3)} (pass at ${threshold})`;
  return { decided: true, holds: score >= threshold, score, reason, grounded: { citations: ids.map((id, i) => `rank ${i + 1} ${id} ${flags[i] ? 'relevant' : 'not relevant'}`).slice(0, 20) } };
}
