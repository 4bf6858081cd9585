/**
 * Stored production scores are reused only for what decided them: the checks, the answer, the question it
 * answered (relevance checks judge against it) and the judge. Another question or another judge scores again.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Assertion } from '../../../src/core/adherence/testCases';
import { scoreAnswers } from '../../../src/core/telemetry/prodAdherence';
import { VerdictStore } from '../../../src/core/store/verdictStore';

const RUBRIC = { type: 'llm-rubric', negate: false, weight: 1, label: 'llm-rubric', value: 'Answers the question' } as Assertion;
const SAMPLE = { seen: 2, answers: [{ answer: 'I cannot help with that.', question: 'Is 14820 NE 8th St a house?' }, { answer: 'I cannot help with that.', question: 'Hello?' }] };

let dir: string;
const stateBefore = process.env.PROMPT_INSIGHT_STATE_DIR;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'pi-scores-'));
  process.env.PROMPT_INSIGHT_STATE_DIR = join(dir, 'state'); // this machine's key, made in the test's folder
});
afterAll(() => {
  if (stateBefore === undefined) delete process.env.PROMPT_INSIGHT_STATE_DIR;
  else process.env.PROMPT_INSIGHT_STATE_DIR = stateBefore;
});

/** A judge that passes the refusal for the greeting only, counting what it is asked. */
function judge() {
  const asked: string[] = [];
  return {
    asked,
    judge: async (messages: { content: string }[]) => {
      asked.push(messages.at(-1)!.content);
      return asked.length % 2 === 0 ? '{"pass": true, "score": 1}' : '{"pass": false, "score": 0}';
    },
  };
}

describe('production score keys', () => {
  it('the same answer to two questions is scored twice; the same judge reuses both, another judge asks again; the file reads back', async () => {
    const path = join(dir, 'scores.jsonl');
    const store = new VerdictStore(path);
    const first = judge();
    const one = await scoreAnswers(SAMPLE, [RUBRIC], { judge: first.judge, judgeId: 'judge-a at http://127.0.0.1:1/v1', store });
    expect(first.asked).toHaveLength(2);
    expect(one).toMatchObject({ passed: 1, scored: 2, fromStore: 0 });
    store.save();

    const reopened = new VerdictStore(path);
    expect(reopened.problem).toBeUndefined();
    const same = judge();
    expect(await scoreAnswers(SAMPLE, [RUBRIC], { judge: same.judge, judgeId: 'judge-a at http://127.0.0.1:1/v1', store: reopened })).toMatchObject({ passed: 1, fromStore: 2 });
    expect(same.asked).toHaveLength(0);

    const other = judge();
    expect(await scoreAnswers(SAMPLE, [RUBRIC], { judge: other.judge, judgeId: 'judge-b at http://127.0.0.1:1/v1', store: reopened })).toMatchObject({ fromStore: 0 });
    expect(other.asked).toHaveLength(2);
  });
});
