/**
 * Hallucination of stored runs (issue 25): the rate over the runs of one text with its Wilson
 * interval — the same interval compare shows. The verdict each run keeps comes from adherence/runGrounded.
 * Undetermined runs (the judge could not decide) are said apart, never counted as clean or hallucinated.
 */
import { wilsonInterval } from '../stats/proportions';
import type { RunRecord } from './runRecord';

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
