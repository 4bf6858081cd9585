/**
 * The grounded verdict a run keeps on its record (issue 25), made from its scored assertions.
 * Undetermined runs (the judge could not decide) are said apart, never counted as clean or hallucinated.
 */
import type { RunGrounded } from '../metrics/runRecord';
import type { AssertionResult } from './score';

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
