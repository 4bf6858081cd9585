/**
 * Run until decided, in process against the simulator (its response model and timing on a virtual
 * clock, read by the real decoder: sim/simTransport.ts), with fixed seeds:
 * - the A/A test: 200 comparisons of two revisions that behave identically, peeking after every
 *   batch up to the cap — a false "hold" for a regression stays under 5% (plus its sampling error);
 * - the homes demo's fix reaches "ship" by itself within a stated median number of runs.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { loadTestSuite, type TestSuite } from '../../../src/core/adherence/testCases';
import type { RevisionSource } from '../../../src/core/compare/compare';
import type { GatePolicy } from '../../../src/core/compare/gatePolicy';
import { compareUntilDecided } from '../../../src/core/compare/untilDecided';
import { parsePromptFile } from '../../../src/core/formats/detect';
import { resolvePolicy } from '../../../src/core/rollout/scenario';
import { parseScenario } from '../../../src/core/sim/scenario';
import { simTransport } from '../../../src/core/sim/simTransport';
import { seededRandom } from '../../../src/core/stats/random';
import { HOMES_WITH_RULE, HOMES_WITHOUT_RULE } from '../../fixtures/homesRepo';

const HOMES_TESTS = readFileSync('examples/homes/homes.tests.yaml', 'utf8');

function suiteOf(promptText: string, testsText: string): TestSuite {
  const doc = parsePromptFile('homes.prompty', promptText);
  return loadTestSuite('homes.prompty', promptText, doc.format, doc.prompts[0]!, () => testsText);
}

function source(rev: string, text: string): RevisionSource {
  return { rev, label: rev, path: 'homes.prompty', text };
}

async function untilDecided(revisions: RevisionSource[], gate: GatePolicy, seed: number, sim: Parameters<typeof simTransport>[0], maxRunsPerCase: number) {
  const transport = await simTransport({ seed, ...sim });
  const batches: { runsPerCase: number; decision: string | null }[] = [];
  const result = await compareUntilDecided(
    { file: 'homes.prompty', revisions, gate, runsPerCase: 10, transport, fresh: true, timeoutMs: 60_000, concurrency: 8, random: seededRandom(seed) },
    { maxRunsPerCase, onBatch: (p) => batches.push({ runsPerCase: p.runsPerCase, decision: p.decision }) },
  );
  return { result, batches };
}

describe('run until decided', () => {
  it('A/A: 200 comparisons of identical behaviour, looked at after every batch up to 100 runs a side — false "hold" for a regression ≤ 5% + sampling error', async () => {
    // Both revisions pass about 75% of the time against a 70% floor: the SLO stays unsettled for long,
    // so most comparisons peek batch after batch up to the cap — the hardest case for a false alarm.
    // The head adds a sentence the simulator ignores: the requests differ, the behaviour does not.
    const scenario = parseScenario(`rules: []\nanswers:\n  - { weight: 3, text: "1. Single-family house · $985,000 · 12021 SE 60th St" }\n  - { weight: 1, text: "1. Townhouse · $845,000 · 2207 140th Ave NE" }\n`);
    const head = HOMES_WITH_RULE.replace('Answer with a short list', 'Be brief. Answer with a short list');
    const gate: GatePolicy = { policy: resolvePolicy({ cliScenario: 'interactive' }), suite: suiteOf(HOMES_WITH_RULE, HOMES_TESTS), origin: 'base', changes: [] };
    const comparisons = 200;
    let regressionHolds = 0;
    let holds = 0;
    let peeks = 0;
    const failures: string[] = [];
    for (let seed = 1; seed <= comparisons; seed++) {
      const { result, batches } = await untilDecided([source('A', HOMES_WITH_RULE), source('B', head)], gate, seed, { scenario, prefillMsPerInputToken: 0, jitterMs: 40 }, 100);
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

  it('the homes demo fix (A: no rule → B: "homes" means single-family houses) reaches "ship" by itself: median ≤ 40 runs per revision over 25 seeds', async () => {
    const gate: GatePolicy = { policy: resolvePolicy({ tests: { where: 'homes.tests.yaml', scenario: 'decision' } }), suite: suiteOf(HOMES_WITHOUT_RULE, HOMES_TESTS), origin: 'base', changes: [] };
    const scenario = parseScenario(readFileSync('examples/homes/homes.sim.yaml', 'utf8'));
    const runs: number[] = [];
    const decisions: string[] = [];
    for (let seed = 1; seed <= 25; seed++) {
      const { result } = await untilDecided([source('A', HOMES_WITHOUT_RULE), source('B', HOMES_WITH_RULE)], gate, seed, { scenario }, 200);
      decisions.push(result.rollout!.decision);
      runs.push(result.untilDecided!.runsPerCase);
    }
    runs.sort((a, b) => a - b);
    console.log(`homes fix: ${decisions.filter((d) => d === 'ship').length}/25 ship; runs per revision median ${runs[12]}, max ${runs[24]}`);
    expect(decisions.every((d) => d === 'ship'), decisions.join(', ')).toBe(true);
    expect(runs[12]).toBeLessThanOrEqual(40);
  }, 600_000);
});
