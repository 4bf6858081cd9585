/**
 * Runs needed to decide, fixed-n against run-until-decided, on the in-process simulator (the demo's
 * homes scenario, seeded): the demo's fix (A: no "homes" rule → B: with it; decision scenario) and
 * an A/A pair (B against B reworded: identical behaviour). Fixed-n: the smallest run count of the
 * usual choices (10, 20, 30, 40, 60, 80, 100, 150, 200 per revision) at which a comparison planned
 * with that many runs decides — what a user would have had to guess in advance. Run until decided:
 * the runs it took. Median and p90 over seeds, and how the comparisons ended.
 */
import { HOMES_AA, HOMES_FIX, homesGate, fixedNOnSim, untilDecidedOnSim } from '../test/fixtures/homesComparison';
import { HOMES_WITH_RULE, HOMES_WITHOUT_RULE } from '../test/fixtures/homesRepo';
import { quantile, table } from './stats';

const SEEDS = Number(process.env.DECIDE_BENCH_SEEDS ?? 40);
const FIXED_N = [10, 20, 30, 40, 60, 80, 100, 150, 200];
const DECIDED = new Set(['ship', 'hold', 'no-change']);

async function fixedNNeeded(pair: typeof HOMES_FIX, gate: ReturnType<typeof homesGate>, seed: number): Promise<{ runs: number | null; decision: string }> {
  for (const n of FIXED_N) {
    const decision = (await fixedNOnSim(pair, gate, seed, {}, n)).rollout!.decision;
    if (DECIDED.has(decision)) return { runs: n, decision };
  }
  return { runs: null, decision: 'insufficient' };
}

export async function benchDecide(): Promise<string> {
  const rows: (string | number)[][] = [];
  for (const [name, pair, base] of [['demo fix (A → B)', HOMES_FIX, HOMES_WITHOUT_RULE], ['A/A (B → B reworded)', HOMES_AA, HOMES_WITH_RULE]] as const) {
    const gate = homesGate(base);
    const fixed: (number | null)[] = [];
    const anytime: number[] = [];
    const outcomes = { fixed: new Map<string, number>(), anytime: new Map<string, number>() };
    for (let seed = 1; seed <= SEEDS; seed++) {
      const f = await fixedNNeeded([...pair], gate, seed);
      fixed.push(f.runs);
      outcomes.fixed.set(f.decision, (outcomes.fixed.get(f.decision) ?? 0) + 1);
      const u = await untilDecidedOnSim([...pair], gate, seed, {}, 200);
      anytime.push(u.untilDecided!.runsPerCase);
      outcomes.anytime.set(u.rollout!.decision, (outcomes.anytime.get(u.rollout!.decision) ?? 0) + 1);
    }
    const decidedFixed = fixed.filter((r): r is number => r !== null);
    const said = (m: Map<string, number>) => [...m].map(([k, v]) => `${v} ${k}`).join(', ');
    const at10 = fixed.filter((r) => r === 10).length;
    rows.push([name, `fixed n = 10 (the panel's default): ${at10} of ${SEEDS} decided`, '', '', '']);
    rows.push([name, 'fixed n (smallest usual n that decides)', Math.ceil(quantile(decidedFixed, 0.5)), Math.ceil(quantile(decidedFixed, 0.9)), `${said(outcomes.fixed)}${decidedFixed.length < SEEDS ? ` (${SEEDS - decidedFixed.length} undecided at 200)` : ''}`]);
    rows.push([name, 'run until decided', Math.ceil(quantile(anytime, 0.5)), Math.ceil(quantile(anytime, 0.9)), said(outcomes.anytime)]);
  }
  return `## Runs needed to decide (${SEEDS} seeds; runs per revision, one test case)\n\n${table(['comparison', 'method', 'median', 'p90', 'outcomes'], rows)}`;
}
