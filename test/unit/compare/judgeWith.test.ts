/**
 * "Judge with: base's tests / head's tests" on a real git repository and the simulator: the head
 * (the working copy, with test cases sampled from production and a tighter SLO) is judged by the
 * base's tests unless the head's are chosen; the result says which, and what was applied, in words.
 */
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { compareRevisions } from '../../../src/core/compare/compare';
import { loadGatePolicy, type PolicyOrigin } from '../../../src/core/compare/gatePolicy';
import { CLI_POLICY_WORDING, judgedWithLine, PANEL_POLICY_WORDING } from '../../../src/core/compare/policyChange';
import { loadRevisionSources } from '../../../src/core/compare/revisionSources';
import { comparisonView } from '../../../src/core/compare/view';
import { httpTransport } from '../../../src/core/endpoint/transport';
import { startSim, type RunningSim } from '../../../src/core/sim/simServer';
import { TestRepo } from '../../fixtures/gitRepo';

const PROMPT = '---\nname: ask\nmodel:\n  api: chat\n  configuration: { type: openai, name: gpt-4o-mini }\n---\nuser:\nSay something short about {{topic}}.\n';
const testCase = (topic: string) => `  - description: ${topic}\n    vars: { topic: ${topic} }\n    assert:\n      - type: icontains\n        value: simulated\n`;
const BASE_TESTS = `slo: { ttftMs: { p90: 2000 } }\ntests:\n${testCase('tea')}`;
/** Two cases sampled from production, and the TTFT SLO tightened. */
const HEAD_TESTS = `slo: { ttftMs: { p90: 1500 } }\ntests:\n${testCase('tea')}${testCase('coffee')}${testCase('cocoa')}`;

let sim: RunningSim;
beforeAll(async () => {
  sim = await startSim({ ttftBaseMs: 5, decodeMsPerToken: 1, outputTokens: 8, jitterMs: 0 });
});
afterAll(async () => sim.close());

async function compareJudgedBy(from: PolicyOrigin) {
  const repo = new TestRepo();
  repo.commit('Ask', { 'ask.prompty': PROMPT, 'ask.tests.yaml': BASE_TESTS });
  repo.write('ask.tests.yaml', HEAD_TESTS);
  const file = join(repo.root, 'ask.prompty');
  const { sources, history } = await loadRevisionSources(file, ['HEAD', 'working']);
  const gate = await loadGatePolicy(sources, { file, repoRoot: history!.repoRoot }, { from, wording: PANEL_POLICY_WORDING });
  const result = await compareRevisions({ file: 'ask.prompty', revisions: sources, gate, runsPerCase: 3, transport: httpTransport({ name: 'sim', provider: 'openai', baseUrl: sim.url }, undefined), fresh: true, timeoutMs: 5000, concurrency: 2 });
  return comparisonView(result);
}

describe("judge with the base's or the head's tests", () => {
  it("the head's tests: its cases are run and the result says so in one line", async () => {
    const view = await compareJudgedBy('head');
    expect(view.cases).toEqual(['tea', 'coffee', 'cocoa']);
    expect(view.policy.from).toBe('head');
    expect(view.policy.judgedWith).toBe("Judged with the head's tests: 2 cases added, 1 SLO tightened");
    expect(view.policy.slo).toContain('ttftMs.p90 ≤ 1500');
    expect(view.policy.changes.map((c) => [c.text, c.why])).toEqual([
      ['SLO TTFT p90 ≤ 2 s → TTFT p90 ≤ 1.5 s', "applied: judged with the head's tests"],
      ['test cases: 2 added', "applied: judged with the head's tests"],
    ]);
  });

  it("the base's tests (the default): the stricter SLO is taken, the new cases are not, in plain words", async () => {
    const view = await compareJudgedBy('base');
    expect(view.cases).toEqual(['tea']);
    expect(view.policy.judgedWith).toBe("Judged with the base's tests, plus the head's 1 SLO tightened; not applied: 2 cases added");
    const notApplied = view.policy.changes.find((c) => !c.applied)!;
    expect(notApplied.why).toBe(`not applied: the base's tests judge this change (choose "Judge with: head's tests" to apply it)`);
    expect(notApplied.why).not.toContain('--policy');
  });

  it('the line counts every kind of change, singular and plural, and keeps the CLI its flag', () => {
    expect(judgedWithLine('head', [
      { text: 'test cases: 1 added, 2 changed (assertions), 1 removed', applied: true, why: '', effects: { 'case added': 1, 'case changed': 2, 'case removed': 1 } },
      { text: 'scenario interactive → decision', applied: true, why: '', effects: { 'scenario changed': 1 } },
      { text: 'SLO e2eMs.p90 ≤ 3000 ms removed', applied: true, why: '', effects: { 'SLO removed': 1 } },
      { text: "abc1234's retrieval step cannot be read", applied: false, why: 'not applied' },
    ])).toBe("Judged with the head's tests: 1 case added, 2 cases changed, 1 case removed, 1 SLO removed, scenario changed");
    expect(judgedWithLine('base', [])).toBe("Judged with the base's tests");
    expect(CLI_POLICY_WORDING.notApplied).toContain('--policy head applies it');
  });
});
