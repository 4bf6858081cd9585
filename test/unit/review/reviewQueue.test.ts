/**
 * The review queue (issue 40, point 1): items are the stored runs' answers, one per check the answer's
 * case is judged by; a label is one schema-valid line of the labels file; the queue resumes without what
 * the reviewer labelled; a balanced queue alternates the judge's fails and passes; labels are appended
 * only to a regular file inside the workspace.
 */
import { mkdirSync, mkdtempSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseLabels } from '../../../src/core/adherence/labelsFile';
import { loadTestSuite } from '../../../src/core/adherence/testCases';
import { appendWorkspaceFile } from '../../../src/core/files/workspaceWrite';
import { promptsOf } from '../../../src/core/formats/promptFile';
import { balancedQueue, labelLine, notYetLabelled, reviewChecks, reviewItemsFromRuns, type ReviewItem } from '../../../src/core/review/reviewQueue';
import type { StoredRun } from '../../../src/core/store/resultsStore';

const PROMPT = `---
name: listings
model: gpt-4o-mini
inputs:
  city: Bellevue, WA
---
system:
List single-family houses for sale in {{city}}.
`;
const TESTS = `defaultTest:
  assert:
    - type: llm-rubric
      value: Lists only single-family houses
      metric: single-family only
tests:
  - vars: { city: "Bellevue, WA" }
    assert:
      - type: contains
        value: house
  - vars: { city: "Redmond, WA" }
    assert:
      - type: llm-rubric
        value: Every listing names its price
        metric: priced
`;

async function workspace() {
  const root = mkdtempSync(join(tmpdir(), 'pi-review-'));
  writeFileSync(join(root, 'listings.prompty'), PROMPT);
  writeFileSync(join(root, 'listings.tests.yaml'), TESTS);
  const found = await promptsOf(join(root, 'listings.prompty'), undefined);
  if ('error' in found) throw new Error(found.error);
  const prompt = found.prompts[0]!;
  return { root, prompt, suite: loadTestSuite(join(root, 'listings.prompty'), found.text, found.format, prompt) };
}

let serial = 0;
function run(answer: string, over: Partial<StoredRun> = {}): StoredRun {
  serial++;
  return {
    v: 1, id: `r${serial}`, at: `2026-12-07T01:${String(serial).padStart(2, '0')}:00.000Z`, key: { promptHash: 'h', endpoint: 'sim', model: 'm', paramsHash: 'p' },
    file: 'listings.prompty', prompt: 'listings', endpointName: 'sim', simulated: true, answer,
    run: { ok: true } as StoredRun['run'], ...over,
  };
}

describe('the review queue', () => {
  it('offers the judged checks: every answer gets the defaultTest rubric, a case its own; failed, empty and repeated answers are left out', async () => {
    const { suite, prompt } = await workspace();
    const checks = reviewChecks(suite);
    expect(checks.map((c) => c.name)).toEqual(['single-family only', 'priced']);
    const records = [
      run('1. House · $1,150,000', { testCase: 1 }),
      run('1. House · $985,000'),
      run('1. House · $985,000'), // the same answer to the same inputs: once
      run('', { testCase: 0 }),
      run('partial', { run: { ok: false } as StoredRun['run'] }),
      run('1. Condo · $575,000', { testCase: 0, revision: 'e6a0748aa1b2c3' }),
      run('1. House', { testCase: 7 }), // a case the tests no longer have
    ];
    const items = reviewItemsFromRuns(records, suite, checks, prompt.inputs);
    expect(items.map((i) => [i.check.name, i.answer, i.vars])).toEqual([
      ['single-family only', '1. House · $1,150,000', { city: 'Redmond, WA' }],
      ['priced', '1. House · $1,150,000', { city: 'Redmond, WA' }],
      ['single-family only', '1. House · $985,000', { city: 'Bellevue, WA' }],
      ['priced', '1. House · $985,000', { city: 'Bellevue, WA' }],
      ['single-family only', '1. Condo · $575,000', { city: 'Bellevue, WA' }],
    ]);
    expect(items[4]!.origin).toBe('run of 2026-12-07 01:06 (revision e6a0748aa1b2)');
    expect(new Set(items.map((i) => i.id)).size).toBe(items.length);
  });

  it('a label is one line the labels schema accepts; the queue resumes without what this reviewer labelled, not what others did', async () => {
    const { suite, prompt } = await workspace();
    const items = reviewItemsFromRuns([run('a house', { testCase: 1 }), run('a condo', { testCase: 1 })], suite, reviewChecks(suite), prompt.inputs);
    const ada = 'Ada <ada@example.com>';
    const text = [
      labelLine({ item: items[0]!, verdict: { kind: 'fail' }, author: ada, time: new Date('2026-12-07T01:02:03.456Z'), comment: ' lists a townhouse ', correction: '' }),
      labelLine({ item: items[1]!, verdict: { kind: 'choice', value: 'yes' }, author: 'Bo <bo@example.com>', time: new Date('2026-12-07T01:02:04Z') }),
    ].join('');
    const read = parseLabels(text, 'listings.labels.jsonl');
    expect(read.problems).toEqual([]);
    expect(read.labels[0]).toEqual({ check: 'single-family only', vars: { city: 'Redmond, WA' }, answer: 'a house', label: 'fail', source: 'HUMAN', author: ada, time: '2026-12-07T01:02:03Z', comment: 'lists a townhouse', line: 1 });
    expect(read.labels[1]!.label).toBe('yes');
    // Ada labelled item 0; Bo's label of item 1 is his, so Ada still has items 1–3.
    expect(notYetLabelled(items, read.labels, ada).map((i) => i.id)).toEqual(items.slice(1).map((i) => i.id));
    expect(notYetLabelled(items, read.labels, 'Bo <bo@example.com>').map((i) => i.id)).toEqual(items.filter((_, k) => k !== 1).map((i) => i.id));
  });

  it('balanced: the judge’s fails and passes alternate, as many of each as the smaller side; undecided items are left out', () => {
    const item = (id: string, judge?: 'pass' | 'fail') => ({ id, judge }) as ReviewItem;
    const queue = balancedQueue([item('p1', 'pass'), item('p2', 'pass'), item('p3', 'pass'), item('f1', 'fail'), item('u1'), item('f2', 'fail')]);
    expect(queue.map((i) => i.id)).toEqual(['f1', 'p1', 'f2', 'p2']);
    expect(balancedQueue([item('p1', 'pass')])).toEqual([]);
  });

  it('labels are appended to a regular file inside the workspace: a link at the labels file or a folder outside is refused', async () => {
    const { root, suite, prompt } = await workspace();
    const [item] = reviewItemsFromRuns([run('a house', { testCase: 1 })], suite, reviewChecks(suite), prompt.inputs);
    const line = labelLine({ item: item!, verdict: { kind: 'pass' }, author: 'Ada', time: new Date('2026-12-07T01:00:00Z') });
    const labels = join(root, 'listings.labels.jsonl');
    appendWorkspaceFile(labels, line, { root, what: 'labels files' });
    appendWorkspaceFile(labels, line, { root, what: 'labels files' });
    expect(readFileSync(labels, 'utf8')).toBe(line + line);

    const outside = mkdtempSync(join(tmpdir(), 'pi-review-outside-'));
    writeFileSync(join(outside, 'victim.txt'), 'keep me\n');
    symlinkSync(join(outside, 'victim.txt'), join(root, 'linked.labels.jsonl'));
    expect(() => appendWorkspaceFile(join(root, 'linked.labels.jsonl'), line, { root, what: 'labels files' })).toThrow(/is a link/);
    mkdirSync(join(root, 'sub'));
    symlinkSync(outside, join(root, 'sub', 'away'));
    expect(() => appendWorkspaceFile(join(root, 'sub', 'away', 'x.labels.jsonl'), line, { root, what: 'labels files' })).toThrow(/outside the workspace/);
    expect(readFileSync(join(outside, 'victim.txt'), 'utf8')).toBe('keep me\n');
  });
});
