/** A run's grounded verdict kept on its stored record (issue 25): it round-trips through the store's schema, older records still load, and the hover's hallucination line. */
import { mkdtempSync, appendFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { AssertionResult } from '../../src/core/adherence/score';
import { hallucinationLine } from '../../src/core/metrics/groundedRuns';
import { runGroundedOf } from '../../src/core/adherence/runGrounded';
import type { RunRecord } from '../../src/core/metrics/runRecord';
import { ResultsStore } from '../../src/core/store/resultsStore';
import { storedRunProblem } from '../../src/core/store/storedRunSchema';

const record = (extra: Partial<RunRecord> = {}): RunRecord => ({
  ok: true, status: 200, error: null, ttftMs: 40, firstAnswerMs: 40, e2eMs: 90, streamEndMs: 91, outputTokens: 10, outputTokensSource: 'usage',
  inputTokens: 20, inputTokensSource: 'usage', tpotMs: 5, itlMs: [5, 5], finishReason: 'stop', streamed: true, retries: 0, ...extra,
});
const newRun = (run: RunRecord) => ({ key: { promptHash: 'h', endpoint: 'e', model: 'm', paramsHash: 'p' }, file: 'a.prompty', prompt: 'a', endpointName: 'E', simulated: true, run, answer: 'x' });

describe('grounded verdict on a stored run', () => {
  it('round-trips through the store, and a record without it still loads', () => {
    const store = new ResultsStore(join(mkdtempSync(join(tmpdir(), 'pi-grounded-')), 'runs.jsonl'));
    store.append([newRun(record({ grounded: { hallucinated: true, supported: 3, contradicted: 1, notMentioned: 0 } })), newRun(record({ grounded: { hallucinated: null, supported: 0, contradicted: 0, notMentioned: 0 } })), newRun(record())]);
    const read = store.read();
    expect(read.records.map((r) => r.run.grounded)).toEqual([{ hallucinated: true, supported: 3, contradicted: 1, notMentioned: 0 }, { hallucinated: null, supported: 0, contradicted: 0, notMentioned: 0 }, undefined]);
  });

  it('refuses a malformed verdict (skipped and counted, not summarised)', () => {
    const bad = { v: 1, id: 'x', at: new Date().toISOString(), ...newRun(record()), run: { ...record(), grounded: { hallucinated: 'maybe', supported: -1, contradicted: 0, notMentioned: 0 } } };
    expect(storedRunProblem(bad)).toMatch(/grounded/);
    const path = join(mkdtempSync(join(tmpdir(), 'pi-grounded-')), 'runs.jsonl');
    appendFileSync(path, JSON.stringify(bad) + '\n');
    expect(new ResultsStore(path).read().records).toHaveLength(0);
  });

  it('takes the verdict from scored assertions: hallucinated, clean, undetermined, none', () => {
    const judged = (hallucinated: boolean): AssertionResult => ({ label: 'hallucination', outcome: hallucinated ? 'fail' : 'pass', reason: '', pass: !hallucinated, score: 1, weight: 1, grounded: { hallucinated, claims: { supported: 2, contradicted: hallucinated ? 1 : 0, notMentioned: 1, total: 4 }, citations: [] } });
    const undecided = { label: 'faithfulness', outcome: 'undecided', reason: 'undetermined: the judge answered off-format', pass: false, score: 0, weight: 1 } as const;
    expect(runGroundedOf([judged(true)])).toEqual({ hallucinated: true, supported: 2, contradicted: 1, notMentioned: 1 });
    expect(runGroundedOf([judged(false)])).toEqual({ hallucinated: false, supported: 2, contradicted: 0, notMentioned: 1 });
    expect(runGroundedOf([undecided])?.hallucinated).toBeNull();
    expect(runGroundedOf([{ label: 'contains', outcome: 'pass', reason: '', pass: true, score: 1, weight: 1 }])).toBeUndefined();
  });

  it('says the rate with its Wilson interval and the undetermined runs apart', () => {
    const g = (h: boolean | null) => record({ grounded: { hallucinated: h, supported: 1, contradicted: h ? 1 : 0, notMentioned: 0 } });
    const runs = [g(true), ...Array.from({ length: 11 }, () => g(false)), g(null), g(null), record()];
    expect(hallucinationLine(runs)).toBe('hallucination 1/12 (8%, 95% CI 1–35%) · 2 undetermined');
    expect(hallucinationLine([record()])).toBeUndefined();
  });
});
