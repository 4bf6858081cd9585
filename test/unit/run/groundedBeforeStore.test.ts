/**
 * Runs judged for hallucination are stored with their verdict (issue 25): executeRunJobs stores each
 * run as it finishes (so a process killed while the judge works loses nothing measured), scores such
 * runs once the measured runs are over and supersedes each record with its verdict; a run whose
 * scoring fails or is cut short by a cancel stays stored without a verdict. checkRun combines the verdicts of
 * several test cases. Real runs on the simulator (127.0.0.1), a scripted judge over HTTP.
 */
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkRun, hasClaimsChecks } from '../../../src/core/adherence/runChecks';
import type { TestCase } from '../../../src/core/adherence/testCases';
import { httpTransport } from '../../../src/core/endpoint/transport';
import { combineGrounded } from '../../../src/core/adherence/runGrounded';
import type { RunGrounded } from '../../../src/core/metrics/runRecord';
import { executePromptRuns, planPromptRun } from '../../../src/core/run/promptRun';
import { startSim, type RunningSim } from '../../../src/core/sim/simServer';
import { ResultsStore } from '../../../src/core/store/resultsStore';
import { startScriptedJudge, type ScriptedJudge } from '../adherence/scriptedJudge';

let sim: RunningSim;
let judge: ScriptedJudge;
const text = `---\nname: listings\nmodel: gpt-4o-mini\n---\nsystem:\nAnswer from the listings only.\n\nuser:\nWhat does 12 Elm St cost?\n`;
const CLAIM = '12 Elm St is listed at $850,000.';

beforeAll(async () => {
  sim = await startSim({ ttftBaseMs: 5, decodeMsPerToken: 1, outputTokens: 5 });
  judge = await startScriptedJudge([
    { step: 'claims', when: CLAIM, reply: { claims: [CLAIM] } },
    { step: 'verdicts', when: '[1] 12 Elm St: listed at $850,000', reply: { verdicts: [{ claim: 1, verdict: 'supported', passage: 1 }] } },
    { step: 'verdicts', when: '[1] 12 Elm St: listed at $900,000', reply: { verdicts: [{ claim: 1, verdict: 'contradicted', passage: 1, reason: 'the listing says $900,000' }] } },
    { step: 'verdicts', when: '[1] 12 Elm St: listing withdrawn', status: 500 },
  ]);
});
afterAll(async () => {
  await sim?.close();
  await judge?.close();
});

const transport = () => httpTransport({ name: 'Test simulator', provider: 'openai', baseUrl: sim.url, simulated: true }, undefined);
const newStore = () => new ResultsStore(join(mkdtempSync(join(tmpdir(), 'pi-grounded-store-')), 'runs.jsonl'));
const clean: RunGrounded = { hallucinated: false, supported: 1, contradicted: 0, notMentioned: 0 };

describe('runs stored with their grounded verdict', () => {
  it('stores each run as it finishes, scores after the measured runs, supersedes each record with its verdict, and a run whose scoring fails keeps none', async () => {
    const store = newStore();
    const plan = await planPromptRun('listings.prompty', text, {});
    const finished: number[] = [];
    const scoredAfter: number[] = [];
    const result = await executePromptRuns(transport(), plan, {
      runs: 6, concurrency: 2, warmup: 0, timeoutMs: 5000, store,
      onRun: (_o, n) => finished.push(n),
      groundedOf: async (_outcome, index) => {
        scoredAfter.push(finished.length);
        // Every run is already on disk while the judge works: a kill now would lose no measurement.
        expect(store.read().records).toHaveLength(6);
        if (index === 2) throw new Error('judge crashed');
        // The claim counts name the job, to check each run is stored with its own verdict.
        return index === 4 ? undefined : { hallucinated: index === 5, supported: index, contradicted: 0, notMentioned: 0 };
      },
    });
    expect(result.outcomes).toHaveLength(6);
    // The judge never ran during the measured runs: every run had finished before the first scoring.
    expect(scoredAfter).toEqual([6, 6, 6, 6, 6, 6]);
    const stored = store.read().records;
    expect(stored).toHaveLength(6);
    // Each with its own job's verdict; the crashed and the unjudged ones without.
    const jobOf = (run: (typeof stored)[number]['run']) => result.outcomes.findIndex((o) => JSON.stringify(o.record) === JSON.stringify({ ...run, grounded: undefined }));
    for (const r of stored) {
      const job = jobOf(r.run);
      expect(job).toBeGreaterThanOrEqual(0);
      if (job === 2 || job === 4) expect(r.run).not.toHaveProperty('grounded');
      else expect(r.run.grounded).toEqual({ hallucinated: job === 5, supported: job, contradicted: 0, notMentioned: 0 });
    }
    expect(new Set(stored.map((r) => jobOf(r.run))).size).toBe(6);
    // The file holds the six runs and the four verdicts that superseded them; a read sees each run once.
    expect(readFileSync(store.path, 'utf8').trim().split('\n')).toHaveLength(10);
    expect(new Set(stored.map((r) => r.id)).size).toBe(6);
  });

  it('a cancel while scoring still stores every finished run, without a verdict', async () => {
    const store = newStore();
    const plan = await planPromptRun('listings.prompty', text, {});
    const controller = new AbortController();
    await executePromptRuns(transport(), plan, {
      runs: 3, concurrency: 1, warmup: 0, timeoutMs: 5000, store, signal: controller.signal,
      groundedOf: async () => {
        controller.abort();
        return clean;
      },
    });
    const stored = store.read().records;
    expect(stored).toHaveLength(3);
    expect(stored.every((r) => r.run.grounded === undefined)).toBe(true);
  });

  it('without a scorer runs are stored as they finish, as before', async () => {
    const store = newStore();
    const plan = await planPromptRun('listings.prompty', text, {});
    const seen: number[] = [];
    await executePromptRuns(transport(), plan, { runs: 3, concurrency: 1, warmup: 0, timeoutMs: 5000, store, onRun: () => seen.push(store.read().records.length) });
    expect(seen).toEqual([1, 2, 3]);
  });
});

describe('one verdict for a run checked against several test cases', () => {
  const hallucinationCase = (listing: string, extra: Partial<TestCase> = {}): TestCase => ({
    description: listing, vars: {}, threshold: 1, context: [listing],
    assertions: [{ type: 'hallucination', negate: false, weight: 1, label: 'hallucination' }], ...extra,
  });
  const run = { answer: CLAIM, ok: true, ttftMs: 10, e2eMs: 20 };

  it('any case hallucinated → hallucinated; counts summed', async () => {
    const check = await checkRun({ cases: [hallucinationCase('12 Elm St: listed at $850,000.'), hallucinationCase('12 Elm St: listed at $900,000.')] }, run, judge.judge);
    expect(check?.grounded).toEqual({ hallucinated: true, supported: 1, contradicted: 1, notMentioned: 0 });
  });

  it('else any case undetermined (the judge failed) → undetermined; all clean → clean', async () => {
    const check = await checkRun({ cases: [hallucinationCase('12 Elm St: listed at $850,000.'), hallucinationCase('12 Elm St: listing withdrawn.')] }, run, judge.judge);
    expect(check?.grounded).toEqual({ hallucinated: null, supported: 1, contradicted: 0, notMentioned: 0 });
    const both = await checkRun({ cases: [hallucinationCase('12 Elm St: listed at $850,000.'), hallucinationCase('12 Elm St: listed at $850,000.', { description: 'again' })] }, run, judge.judge);
    expect(both?.grounded).toEqual({ hallucinated: false, supported: 2, contradicted: 0, notMentioned: 0 });
  });

  it('no verdict from cases without a claims check, nor for a failed run', async () => {
    const contains: TestCase = { description: 'c', vars: {}, threshold: 1, assertions: [{ type: 'icontains', negate: false, weight: 1, label: 'icontains', value: 'elm' }] };
    expect(hasClaimsChecks([contains])).toBe(false);
    expect(hasClaimsChecks([contains, hallucinationCase('x')])).toBe(true);
    expect((await checkRun({ cases: [contains] }, run, judge.judge))?.grounded).toBeUndefined();
    expect((await checkRun({ cases: [hallucinationCase('12 Elm St: listed at $900,000.')] }, { ...run, ok: false }, judge.judge))?.grounded).toBeUndefined();
  });

  it('combineGrounded: hallucinated wins over undetermined, undetermined over clean', () => {
    const u: RunGrounded = { hallucinated: null, supported: 0, contradicted: 0, notMentioned: 0 };
    const h: RunGrounded = { hallucinated: true, supported: 1, contradicted: 2, notMentioned: 3 };
    expect(combineGrounded([u, h, clean])).toEqual({ hallucinated: true, supported: 2, contradicted: 2, notMentioned: 3 });
    expect(combineGrounded([clean, undefined, u])?.hallucinated).toBeNull();
    expect(combineGrounded([undefined])).toBeUndefined();
  });
});
