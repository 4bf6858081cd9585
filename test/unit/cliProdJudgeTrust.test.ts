/**
 * `prod --decide` knows whether to trust its judge: a gray release of two equal versions whose answers a
 * judge scores (an llm-rubric every answer is held to). The judge is the simulator on loopback, its
 * scenario passing every answer; people's labels come from the base's side (the branch being released
 * into). Without labels the promotion is not said (insufficient, exit 2 with --fail-on-regression); with
 * --accept-judge it is, and says so; with labels the judge agrees with, it is trusted.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseScenario } from '../../src/core/sim/scenario';
import { startSim, type RunningSim } from '../../src/core/sim/simServer';
import { seededRandom } from '../../src/core/stats/random';
import { runCli } from '../fixtures/cli';
import { TestRepo } from '../fixtures/gitRepo';
import { otlpSpan, tracesLine } from '../fixtures/otlpTraces';

const NOW = Date.parse('2026-12-04T23:50:00Z');
const HOUR = 3_600_000;
const CHECK = 'single-family only';
const ANSWER = '12 Elm St, Bellevue: a single-family house at $850,000.';
const TESTS = `scenario: decision\ndefaultTest:\n  assert:\n    - type: llm-rubric\n      value: Lists only single-family houses\n      metric: ${CHECK}\n`;
// The judge passes an answer unless it names a condo.
const JUDGE = `rules:
  - whenPromptContains: ["grade an AI answer against a rubric", "condo"]
    answers: ['{"pass": false, "score": 0, "reason": "a condo"}']
answers: ['{"pass": true, "score": 1, "reason": "houses only"}']
`;

function labels(): string {
  const lines: string[] = [];
  const add = (answer: string, label: string) => lines.push(JSON.stringify({ check: CHECK, vars: {}, answer: `${answer} (${lines.length})`, label, source: 'HUMAN', author: 'Ada <ada@example.com>', time: '2026-12-06T21:04:05Z' }));
  for (let i = 0; i < 35; i++) add('A single-family house at $850,000.', 'pass');
  for (let i = 0; i < 35; i++) add('A condo at $575,000.', 'fail');
  return `${lines.join('\n')}\n`;
}

let judge: RunningSim;
let unlabelled: TestRepo;
let labelled: TestRepo;
let v1 = '';
let v2 = '';

function release(): { repo: TestRepo; v1: string; v2: string } {
  const origin = new TestRepo();
  const a = origin.commit('Listings', { 'listings.prompt': '---\nmodel: gpt-test\n---\nAnswer from the listings.\n', 'listings.tests.yaml': TESTS }).slice(0, 8);
  const b = origin.commit('Shorter', { 'listings.prompt': '---\nmodel: gpt-test\n---\nAnswer from the listings, briefly.\n' }).slice(0, 8);
  return { repo: origin.clone(), v1: a, v2: b };
}

function traces(repo: TestRepo, a: string, b: string): void {
  const r = seededRandom(40);
  const spans: Record<string, unknown>[] = [];
  for (let t = NOW - 48 * HOUR; t < NOW; t += 60_000) {
    const ttft = 300 * (0.9 + 0.2 * r());
    spans.push(otlpSpan({ promptName: 'listings', version: r() < 0.5 ? a : b, startMs: t, ttftMs: ttft, e2eMs: ttft + 400, extra: { 'gen_ai.output.messages': JSON.stringify([{ role: 'assistant', parts: [{ type: 'text', content: ANSWER }] }]) } }));
  }
  const lines: string[] = [];
  for (let i = 0; i < spans.length; i += 500) lines.push(tracesLine(spans.slice(i, i + 500)));
  writeFileSync(join(repo.root, 'prod.jsonl'), `${lines.join('\n')}\n`);
}

beforeAll(async () => {
  judge = await startSim({ ttftBaseMs: 1, decodeMsPerToken: 0, jitterMs: 0, scenario: parseScenario(JUDGE) } as Parameters<typeof startSim>[0]);
  ({ repo: unlabelled, v1, v2 } = release());
  traces(unlabelled, v1, v2);
  // The same release with people's labels committed on the branch being released into.
  const origin = new TestRepo();
  const a = origin.commit('Listings', { 'listings.prompt': '---\nmodel: gpt-test\n---\nAnswer from the listings.\n', 'listings.tests.yaml': TESTS, 'listings.labels.jsonl': labels() }).slice(0, 8);
  const b = origin.commit('Shorter', { 'listings.prompt': '---\nmodel: gpt-test\n---\nAnswer from the listings, briefly.\n' }).slice(0, 8);
  labelled = origin.clone();
  traces(labelled, a, b);
  labelled.git('tag', 'v-a', a);
  labelled.git('tag', 'v-b', b);
});
afterAll(async () => judge?.close());

const decide = (repo: TestRepo, base: string, head: string, extra: string[] = []) =>
  runCli(['prod', 'listings.prompt', '--traces', 'prod.jsonl', '--now', new Date(NOW).toISOString(), '--score', '20', '--no-store', '--judge-endpoint', judge.url, '--judge-model', 'sim', '--decide', '--base', base, '--head', head, '--fail-on-regression', '--json', ...extra], repo.root);

describe('prod --decide and its judge', () => {
  it('without labels the judge is not trusted: no promotion on it (insufficient: exit 2, as prod says it); --accept-judge promotes and says so', async () => {
    const untrusted = await decide(unlabelled, v1, v2);
    const decision = JSON.parse(untrusted.stdout).decision;
    expect(decision.decision).toBe('insufficient');
    expect(decision.reasons[0]).toBe(`judge not trusted for ${CHECK} (no labels file beside the prompt): its verdicts do not ship a change — label more of its answers (Review Answers…) or accept it by name (--accept-judge)`);
    expect(untrusted.code).toBe(2);

    const accepted = await decide(unlabelled, v1, v2, ['--accept-judge', CHECK]);
    const promoted = JSON.parse(accepted.stdout).decision;
    expect(promoted.decision).toBe('promote');
    expect(promoted.reasons).toContain(`judge accepted for ${CHECK} although not trusted (no labels file beside the prompt): accepted by the user, so its verdicts count`);
    expect(accepted.code).toBe(0);
  });

  it("with people's labels on the branch being released into, the judge is trusted and the equal version is promoted", async () => {
    const a = labelled.git('rev-parse', '--short=8', 'v-a').trim();
    const b = labelled.git('rev-parse', '--short=8', 'v-b').trim();
    const { code, stdout } = await decide(labelled, a, b);
    const decision = JSON.parse(stdout).decision;
    expect(decision.decision).toBe('promote');
    expect(decision.reasons).toContain(`judge trusted for ${CHECK} (TPR ≥ 90%, TNR ≥ 90% on 70 labels (35 fail, 35 pass): both at or above 80% (95% lower bounds))`);
    expect(code).toBe(0);
  });
});
