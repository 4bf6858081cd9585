/**
 * The bundled examples against the bundled simulator (a real HTTP server on 127.0.0.1, its scenario
 * examples/homes/homes.sim.yaml): each example's own test cases pass where they should — the prompt
 * as shipped, with the rule that "homes" means single-family houses — and fail where they should —
 * the same prompt without that rule. homes.prompt.yml's llm evaluator is judged by the simulator too;
 * without a judge its runs are unscored with the reason, never failed.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adherenceOf, scoreRun, type CaseScore, type Judge } from '../../../src/core/adherence/score';
import { loadTestSuite } from '../../../src/core/adherence/testCases';
import { transportJudge } from '../../../src/core/run/transportJudge';
import { runOnce } from '../../../src/core/run/runOnce';
import { httpTransport, type ChatTransport } from '../../../src/core/endpoint/transport';
import { parsePromptFile } from '../../../src/core/formats/detect';
import { planPromptRun } from '../../../src/core/run/promptRun';
import { parseScenario } from '../../../src/core/sim/scenario';
import { startSim, type RunningSim } from '../../../src/core/sim/simServer';

const DIR = 'examples/homes';
const RUNS_PER_CASE = 20;
/** Every prompt file of the homes assistant (the scenario and the tests sidecar are not prompts; listings.* is the knowledge case, cliHallucination.test.ts). */
const PROMPT_FILES = readdirSync(DIR).filter((f) => f.startsWith('homes.') && !/\.(sim|tests)\.ya?ml$/.test(f)).sort();

/** The prompt before "homes" was defined: the Rules block taken out (revision A of the homes case). */
function withoutRule(text: string): string {
  const lines = text.split('\n');
  const start = lines.findIndex((l) => l.trim() === 'Rules:');
  const end = lines.findIndex((l) => l.includes('instead of suggesting other property types.'));
  if (start < 0 || end < start) throw new Error('the example no longer has its Rules block');
  return [...lines.slice(0, start), ...lines.slice(end + 1)].join('\n');
}

let sim: RunningSim;
let transport: ChatTransport;
let judge: Judge;

beforeAll(async () => {
  sim = await startSim({ ttftBaseMs: 2, prefillMsPerInputToken: 0, decodeMsPerToken: 0.2, tokensPerChunk: 16, jitterMs: 0, seed: 7, scenario: parseScenario(readFileSync(join(DIR, 'homes.sim.yaml'), 'utf8')) });
  transport = httpTransport({ name: 'sim', provider: 'openai', baseUrl: sim.url, simulated: true }, undefined);
  judge = transportJudge(transport, 'sim-judge', 5000);
});
afterAll(() => sim.close());

/** Every case of the file's own test suite, RUNS_PER_CASE times each, scored; plus what was sent. */
async function scoreExample(file: string, text: string, withJudge: boolean): Promise<{ scores: CaseScore[]; sent: string[] }> {
  const doc = parsePromptFile(file, text);
  const suite = loadTestSuite(join(DIR, file), text, doc.format, doc.prompts[0]!);
  expect(suite.problems, file).toEqual([]);
  expect(suite.cases.length, file).toBeGreaterThan(0);
  const scores: CaseScore[] = [];
  const sent: string[] = [];
  for (const testCase of suite.cases) {
    const plan = await planPromptRun(join(DIR, file), text, { vars: testCase.vars, endpointModel: 'gpt-4o-mini', references: { filePath: join(DIR, file) } });
    sent.push(plan.request.messages.map((m) => m.content).join('\n'));
    for (let i = 0; i < RUNS_PER_CASE; i++) {
      const { record, text: answer } = await runOnce(transport, plan.request, { timeoutMs: 5000, countTokens: () => 1, inputTokensEstimate: null, maxRetries: 0 });
      expect(record.ok, `${file}: ${record.error?.message}`).toBe(true);
      scores.push(await scoreRun(testCase, { answer: answer.answer, ok: record.ok, ttftMs: record.ttftMs, e2eMs: record.e2eMs }, withJudge ? judge : undefined));
    }
  }
  return { scores, sent };
}

describe('every bundled example against the bundled simulator', () => {
  it('finds the examples', () => {
    expect(PROMPT_FILES).toEqual(['homes.prompt', 'homes.prompt.md', 'homes.prompt.txt', 'homes.prompt.yml', 'homes.prompty']);
  });

  it.each(PROMPT_FILES)('%s passes as shipped (the rule defines "homes") and fails without the rule', async (file) => {
    const text = readFileSync(join(DIR, file), 'utf8');
    const shipped = await scoreExample(file, text, true);
    const before = await scoreExample(file, withoutRule(text), true);
    expect(before.sent.every((m) => !/single-family/i.test(m)), 'the prompt without the rule never says single-family').toBe(true);
    const good = adherenceOf(shipped.scores);
    const bad = adherenceOf(before.scores);
    console.info(`${file}: ${good.passed}/${good.scored} as shipped, ${bad.passed}/${bad.scored} without the rule`);
    // Everything is scored (the simulator judges homes.prompt.yml's llm evaluator).
    expect(good.unscored, JSON.stringify(good.unscoredReasons)).toBe(0);
    expect(bad.unscored).toBe(0);
    // The scenario gives 9 in 10 pure house lists with the rule, 1 in 6 without it.
    expect(good.rate!, `${file} as shipped: ${good.passed}/${good.scored}`).toBeGreaterThanOrEqual(0.75);
    expect(bad.rate!, `${file} without the rule: ${bad.passed}/${bad.scored}`).toBeLessThanOrEqual(0.4);
    // A failed run names what the answer had.
    const failed = [...shipped.scores, ...before.scores].find((s) => s.status === 'fail')!;
    expect(failed.results.find((r) => r.outcome === 'fail')!.reason).toMatch(/the answer has "(Apartment|Condo|Townhouse)"|the judge chose 'no'/);
  });

  it('homes.prompt.yml without a judge: its runs are unscored, with the reason, never failed', async () => {
    const file = 'homes.prompt.yml';
    const { scores } = await scoreExample(file, readFileSync(join(DIR, file), 'utf8'), false);
    const counts = adherenceOf(scores);
    expect(counts).toMatchObject({ passed: 0, scored: 0, unscored: 2 * RUNS_PER_CASE, rate: null });
    expect(counts.unscoredReasons).toEqual([{ reason: expect.stringMatching(/^Lists only single-family houses: no judge configured/), runs: 2 * RUNS_PER_CASE }]);
  });

  it('the examples carry no internal words', () => {
    for (const file of readdirSync(DIR)) expect(readFileSync(join(DIR, file), 'utf8'), file).not.toMatch(/MISSION|issue \d|ARCHITECTURE/i);
  });
});
