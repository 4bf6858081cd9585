/**
 * Hallucination of stored runs (issue 25): the grounded verdict a run keeps on its record, and the
 * rate over the runs of one text with its Wilson interval — the same interval compare shows.
 * Undetermined runs (the judge could not decide) are said apart, never counted as clean or hallucinated.
 */
import type { AssertionResult } from '../adherence/score';
import { wilsonInterval } from '../stats/proportions';
import type { RunGrounded, RunRecord } from './runRecord';

/** The run's grounded verdict from its scored assertions; undefined when it had no grounded check. */
export function runGroundedOf(results: readonly AssertionResult[]): RunGrounded | undefined {
  const decided = results.filter((r) => r.grounded?.hallucinated !== undefined);
  const undetermined = results.some((r) => r.outcome === 'undecided' && r.reason.startsWith('undetermined'));
  if (decided.length === 0) return undetermined ? { hallucinated: null, supported: 0, contradicted: 0, notMentioned: 0 } : undefined;
  // Checks of one case share the claims; keep the counts of the first, the worst verdict of all.
  const claims = decided[0]!.grounded!.claims;
  return {
    hallucinated: decided.some((r) => r.grounded!.hallucinated === true) ? true : undetermined ? null : false,
    supported: claims?.supported ?? 0,
    contradicted: claims?.contradicted ?? 0,
    notMentioned: claims?.notMentioned ?? 0,
  };
}

/** `hallucination 1/12 (8%, 95% CI 1–35%) · 2 undetermined`, or undefined when no run was judged. */
export function hallucinationLine(runs: readonly RunRecord[]): string | undefined {
  const judged = runs.filter((r) => r.grounded !== undefined).map((r) => r.grounded!);
  if (judged.length === 0) return undefined;
  const decided = judged.filter((g) => g.hallucinated !== null);
  const undetermined = judged.length - decided.length;
  const tail = undetermined > 0 ? ` · ${undetermined} undetermined` : '';
  if (decided.length === 0) return `hallucination: no run decided${tail}`;
  const x = decided.filter((g) => g.hallucinated).length;
  const [lo, hi] = wilsonInterval(x, decided.length);
  const pct = (v: number) => `${Math.round(v * 100)}`;
  return `hallucination ${x}/${decided.length} (${pct(x / decided.length)}%, 95% CI ${pct(lo)}–${pct(hi)}%)${tail}`;
}

/**
 * One verdict for a run scored against several test cases: hallucinated when any case found it,
 * else undetermined when any could not decide, else clean; the claim counts summed.
 */
export function combineGrounded(verdicts: readonly (RunGrounded | undefined)[]): RunGrounded | undefined {
  const given = verdicts.filter((g): g is RunGrounded => g !== undefined);
  if (given.length === 0) return undefined;
  const hallucinated = given.some((g) => g.hallucinated === true) ? true : given.some((g) => g.hallucinated === null) ? null : false;
  const sum = (field: 'supported' | 'contradicted' | 'notMentioned') => given.reduce((s, g) => s + g[field], 0);
  return { hallucinated, supported: sum('supported'), contradicted: sum('contradicted'), notMentioned: sum('notMentioned') };
}
