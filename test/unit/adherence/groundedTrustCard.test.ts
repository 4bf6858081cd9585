/**
 * Trust cards for grounded checks: the hallucination check of examples/homes/listings.tests.yaml, judged by
 * the bundled simulator over HTTP (its homes scenario extracts the answer's claim and finds it supported
 * or contradicted by the listing) against people's labels. The passages are the test case's when the
 * label's inputs are the case's, else the context kept on the label; with neither, the judge cannot
 * decide and says why. Two of the labels are wrong on purpose and are listed as disagreements.
 */
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Label } from '../../../src/core/adherence/labelsFile';
import { loadTestSuite, type TestSuite } from '../../../src/core/adherence/testCases';
import { judgedChecks, trustCardOf } from '../../../src/core/adherence/trustCard';
import { groundingOf } from '../../../src/core/adherence/labelledVerdict';
import { httpTransport } from '../../../src/core/endpoint/transport';
import { parsePromptFile } from '../../../src/core/formats/detect';
import { transportJudge } from '../../../src/core/run/transportJudge';
import { parseScenario } from '../../../src/core/sim/scenario';
import { startSim, type RunningSim } from '../../../src/core/sim/simServer';

const RIGHT = '14820 NE 8th St is listed at $1,150,000.';
const WRONG = '14820 NE 8th St is listed at $1,099,000.';

let sim: RunningSim;
let suite: TestSuite;
beforeAll(async () => {
  sim = await startSim({ ttftBaseMs: 1, decodeMsPerToken: 0, jitterMs: 0, scenario: parseScenario(readFileSync('examples/homes/homes.sim.yaml', 'utf8')) } as Parameters<typeof startSim>[0]);
  const text = readFileSync('examples/homes/listings.prompty', 'utf8');
  const doc = parsePromptFile('listings.prompty', text);
  suite = loadTestSuite('examples/homes/listings.prompty', text, doc.format, doc.prompts[0]!, (p) => readFileSync(p, 'utf8'));
});
afterAll(async () => sim.close());

const judgeOf = () => transportJudge(httpTransport({ name: 'sim', provider: 'openai', baseUrl: sim.url, simulated: true }, undefined), 'sim', 10_000);

describe('trust cards for grounded checks', () => {
  it('the hallucination check is carded against the case\'s listings: TPR, TNR and the two wrong labels', async () => {
    const hallucination = judgedChecks(suite).find((a) => a.type === 'hallucination')!;
    expect(hallucination.label).toBe('hallucination');
    const vars = suite.cases[0]!.vars;
    expect(groundingOf(suite, hallucination, vars)?.context?.length).toBeGreaterThan(0);
    const labels: Label[] = [];
    const add = (answer: string, label: 'pass' | 'fail') => labels.push({ check: 'hallucination', vars, answer: `${answer} (asked ${labels.length})`, label, source: 'HUMAN', author: 'Ada <ada@example.com>', time: '2026-12-07T06:00:00Z', line: labels.length + 1 });
    for (let i = 0; i < 31; i++) add(RIGHT, 'pass');
    for (let i = 0; i < 31; i++) add(WRONG, 'fail');
    add(RIGHT, 'fail'); // people's mistakes: a right price failed
    add(RIGHT, 'fail');
    const card = await trustCardOf(hallucination, labels, judgeOf(), { suite });
    expect(card.undecided.count).toBe(0);
    expect(card.agreement.tpr).toMatchObject({ successes: 31, trials: 33 });
    expect(card.agreement.tnr).toMatchObject({ successes: 31, trials: 31 });
    expect(card.disagreements.map((d) => d.line)).toEqual([63, 64]);
    expect(card.disagreements[0]).toMatchObject({ human: 'fail', judge: 'pass' });
  });

  it('without the case, the context on the label is the passage; with neither, the judge cannot decide and says why', async () => {
    const hallucination = judgedChecks(suite).find((a) => a.type === 'hallucination')!;
    const listing = 'Bellevue homes for sale — 14820 NE 8th St: single-family house, 4 bedrooms, 2,640 sq ft, listed at $1,150,000.';
    const withContext: Label = { check: 'hallucination', vars: { query: 'Among the homes listed, what does 14820 NE 8th St cost?' }, answer: WRONG, context: listing, label: 'fail', source: 'HUMAN', author: 'Ada <ada@example.com>', time: '2026-12-07T06:00:00Z', line: 1 };
    const bare: Label = { ...withContext, context: undefined, line: 2 };
    delete bare.context;
    const card = await trustCardOf(hallucination, [withContext, bare], judgeOf(), { suite });
    expect(card.agreement.tpr, JSON.stringify(card.undecided)).toMatchObject({ successes: 1, trials: 1 });
    expect(card.undecided).toMatchObject({ count: 1, firstReason: expect.stringMatching(/no context/) });
  });
});
