/**
 * Run until decided, in process against the simulator (its response model and timing on a virtual
 * clock, read by the real decoder: sim/simTransport.ts), with fixed seeds:
 * - the A/A test: 200 comparisons of two revisions that behave identically, peeking after every
 *   batch up to the cap — a false "hold" for a regression stays under 5% (plus its sampling error);
 * - the homes demo's fix reaches "ship" by itself within a stated median number of runs.
 */
import { describe, expect, it } from 'vitest';
import { resolvePolicy } from '../../../src/core/rollout/scenario';
import { parseScenario } from '../../../src/core/sim/scenario';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ResultsStore } from '../../../src/core/store/resultsStore';
import { fixedNOnSim, HOMES_AA, HOMES_FIX, homesGate, homesSuite, untilDecidedOnSim } from '../../fixtures/homesComparison';
import { HOMES_WITH_RULE, HOMES_WITHOUT_RULE } from '../../fixtures/homesRepo';

async function untilDecided(revisions: Parameters<typeof untilDecidedOnSim>[0], gate: Parameters<typeof untilDecidedOnSim>[1], seed: number, sim: Parameters<typeof untilDecidedOnSim>[3], maxRunsPerCase: number) {
  const batches: { runsPerCase: number; decision: string | null }[] = [];
  const result = await untilDecidedOnSim(revisions, gate, seed, sim, maxRunsPerCase, (p) => batches.push({ runsPerCase: p.runsPerCase, decision: p.decision }));
  return { result, batches };
}

describe('run until decided', () => {
  it('A/A: 200 comparisons of identical behaviour, looked at after every batch up to 100 runs a side — false "hold" for a regression ≤ 5% + sampling error', async () => {
    // Both revisions pass about 75% of the time against a 70% floor: the SLO stays unsettled for long,
    // so most comparisons peek batch after batch up to the cap — the hardest case for a false alarm.
    // The head adds a sentence the simulator ignores: the requests differ, the behaviour does not.
    const scenario = parseScenario(`rules: []\nanswers:\n  - { weight: 3, text: "1. Single-family house · $985,000 · 12021 SE 60th St" }\n  - { weight: 1, text: "1. Townhouse · $845,000 · 2207 140th Ave NE" }\n`);
    const gate = { policy: resolvePolicy({ cliScenario: 'interactive' }), suite: homesSuite(HOMES_WITH_RULE), retrieval: {}, origin: 'base' as const, changes: [] };
    const comparisons = 200;
    let regressionHolds = 0;
    let holds = 0;
    let peeks = 0;
    const failures: string[] = [];
    for (let seed = 1; seed <= comparisons; seed++) {
      const { result, batches } = await untilDecided(HOMES_AA, gate, seed, { scenario, prefillMsPerInputToken: 0, jitterMs: 40 }, 100);
      peeks += batches.length;
      if (result.rollout?.decision === 'hold') {
        holds++;
        if (result.verdicts.some((v) => v.verdict === 'worse')) {
          regressionHolds++;
          failures.push(`seed ${seed}: ${result.rollout.reasons[0]}`);
        }
      }
    }
    const rate = regressionHolds / comparisons;
    const samplingError = Math.sqrt((0.05 * 0.95) / comparisons);
    // Printed for the record (and the seeds of any false alarm, to replay them).
    console.log(`A/A: ${regressionHolds} of ${comparisons} held for a regression (${holds} held in all), ${(peeks / comparisons).toFixed(1)} looks per comparison${failures.length ? `\n  ${failures.join('\n  ')}` : ''}`);
    expect(peeks / comparisons).toBeGreaterThan(4);
    expect(rate, failures.join('\n')).toBeLessThanOrEqual(0.05 + 2 * samplingError);
  }, 600_000);

  it('starts from stored runs (as the panel does after a comparison): 24 reused runs a side are the first batch, then it adds runs until decided', async () => {
    const store = new ResultsStore(join(mkdtempSync(join(tmpdir(), 'pi-until-')), 'runs.jsonl'));
    const gate = homesGate(HOMES_WITHOUT_RULE);
    const first = await fixedNOnSim(HOMES_FIX, gate, 3, {}, 24, { store, fresh: false });
    expect(first.rollout!.decision).toBe('insufficient'); // 0 of 24 above 30 s does not yet bound p90
    const batches: { runsPerCase: number; runsSpent: number }[] = [];
    const result = await untilDecidedOnSim(HOMES_FIX, gate, 4, {}, 200, (p) => batches.push({ runsPerCase: p.runsPerCase, runsSpent: p.runsSpent }), { store, fresh: false, runsPerCase: 24 });
    expect(batches[0]).toEqual({ runsPerCase: 24, runsSpent: 0 });
    expect(batches.length).toBeGreaterThan(1);
    expect(result.rollout!.decision).toBe('ship');
    expect(result.untilDecided).toMatchObject({ stoppedBy: 'decided' });
    expect(result.revisions.every((r) => r.runsReused === 24)).toBe(true);
  });

  it('the homes demo fix (A: no rule → B: "homes" means single-family houses) reaches "ship" by itself: median ≤ 40 runs per revision over 25 seeds', async () => {
    const gate = homesGate(HOMES_WITHOUT_RULE);
    const runs: number[] = [];
    const decisions: string[] = [];
    for (let seed = 1; seed <= 25; seed++) {
      const { result } = await untilDecided(HOMES_FIX, gate, seed, {}, 200);
      decisions.push(result.rollout!.decision);
      runs.push(result.untilDecided!.runsPerCase);
    }
    runs.sort((a, b) => a - b);
    console.log(`homes fix: ${decisions.filter((d) => d === 'ship').length}/25 ship; runs per revision median ${runs[12]}, max ${runs[24]}`);
    expect(decisions.every((d) => d === 'ship'), decisions.join(', ')).toBe(true);
    expect(runs[12]).toBeLessThanOrEqual(40);
  }, 600_000);
});
