/**
 * Run until decided with a noisy judge (issue 40's simulation bar): two revisions that behave
 * identically — a quarter of the answers list a townhouse — are judged by the simulator's judge of
 * sensitivity = specificity = 0.85 (a scenario `judge:` block), in process with fixed seeds, peeking
 * after every batch up to the cap. The judge's noise hits both sides alike, so a false adherence
 * verdict (a "regression" held, or an "improvement" shipped) stays at or under 5% plus its sampling error.
 */
import { describe, expect, it } from 'vitest';
import { loadTestSuite } from '../../../src/core/adherence/testCases';
import { compareUntilDecided } from '../../../src/core/compare/untilDecided';
import { parsePromptFile } from '../../../src/core/formats/detect';
import { resolvePolicy } from '../../../src/core/rollout/scenario';
import { transportJudge } from '../../../src/core/run/transportJudge';
import { parseScenario } from '../../../src/core/sim/scenario';
import { simTransport } from '../../../src/core/sim/simTransport';
import { seededRandom } from '../../../src/core/stats/random';
import { HOMES_AA } from '../../fixtures/homesComparison';
import { HOMES_WITH_RULE } from '../../fixtures/homesRepo';

const TESTS = `defaultTest:
  assert:
    - type: llm-rubric
      value: Lists only single-family houses
      metric: single-family only
tests:
  - vars: { city: "Bellevue, WA", request: Find homes nearby. }
`;
const SCENARIO = parseScenario(`judge:
  failsWhenAnswerContains: [townhouse]
  sensitivity: 0.85
  specificity: 0.85
rules: []
answers:
  - { weight: 3, text: "1. Single-family house · $985,000 · 12021 SE 60th St" }
  - { weight: 1, text: "1. Townhouse · $845,000 · 2207 140th Ave NE" }
`);

const COMPARISONS = Number(process.env.PI_NOISY_AA_COMPARISONS ?? 200);

describe('run until decided with a noisy judge', () => {
  it(`A/A: ${COMPARISONS} comparisons, a judge of 0.85, looked at after every batch up to 60 runs a side — a false adherence verdict ≤ 5% + sampling error`, async () => {
    const doc = parsePromptFile('homes.prompty', HOMES_WITH_RULE);
    const suite = loadTestSuite('homes.prompty', HOMES_WITH_RULE, doc.format, doc.prompts[0]!, () => TESTS);
    expect(suite.everyAnswer?.map((a) => a.type)).toEqual(['llm-rubric']);
    const gate = { policy: resolvePolicy({ cliScenario: 'interactive' }), suite, retrieval: {}, origin: 'base' as const, changes: [] };
    let falseVerdicts = 0;
    let peeks = 0;
    let judged = 0;
    const failures: string[] = [];
    for (let seed = 1; seed <= COMPARISONS; seed++) {
      const transport = await simTransport({ seed, scenario: SCENARIO, prefillMsPerInputToken: 0, jitterMs: 40 });
      const judge = transportJudge(transport, 'sim', 60_000);
      const result = await compareUntilDecided(
        { file: 'homes.prompty', revisions: HOMES_AA, gate, runsPerCase: 10, transport, fresh: true, timeoutMs: 60_000, concurrency: 8, random: seededRandom(seed), judge },
        { maxRunsPerCase: 60, onBatch: () => peeks++ },
      );
      judged += result.revisions.reduce((sum, r) => sum + (r.judgedChecks?.['single-family only']?.judged ?? 0), 0);
      const adherence = result.verdicts.find((v) => v.metric === 'adherence');
      if (adherence && (adherence.verdict === 'worse' || adherence.verdict === 'better')) {
        falseVerdicts++;
        failures.push(`seed ${seed}: ${adherence.summary}`);
      }
    }
    const rate = falseVerdicts / COMPARISONS;
    const samplingError = Math.sqrt((0.05 * 0.95) / COMPARISONS);
    console.log(`noisy-judge A/A: ${falseVerdicts} of ${COMPARISONS} with a false adherence verdict, ${(peeks / COMPARISONS).toFixed(1)} looks per comparison, ${judged} answers judged${failures.length ? `\n  ${failures.join('\n  ')}` : ''}`);
    // The judge decided the answers (its verdicts carried the adherence), and the comparisons peeked.
    expect(judged).toBeGreaterThan(COMPARISONS * 20);
    expect(peeks / COMPARISONS).toBeGreaterThan(2);
    expect(rate, failures.join('\n')).toBeLessThanOrEqual(0.05 + 2 * samplingError);
  }, 900_000);
});
