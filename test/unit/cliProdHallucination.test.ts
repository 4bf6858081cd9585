/**
 * Production hallucination through the built CLI: a gray release whose traces hold, beside each model call,
 * the retriever span of the app's search (OpenInference's flattened documents); a scripted judge on
 * 127.0.0.1 finds the new version's price contradicted by the listing its trace retrieved. `prod` gives each
 * version's hallucination rate with its interval, `--decide` rolls the new version back under the base's
 * ceiling, and the cases where no verdict can be had are said: no retrieval in the trace, passages over the
 * context cap, a retrieval made after the call. (The real libraries' retriever spans are read in
 * test/engine/instrumentations.engine.test.ts.)
 */
import { randomBytes } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { seededRandom } from '../../src/core/stats/random';
import { runCli } from '../fixtures/cli';
import { TestRepo } from '../fixtures/gitRepo';
import { otlpSpan, tracesLine } from '../fixtures/otlpTraces';
import { startScriptedJudge, type ScriptedJudge } from './adherence/scriptedJudge';

const NOW = Date.parse('2026-12-04T23:50:00Z');
const HOUR = 3_600_000;
const LISTING = '12 Elm St, Bellevue: single-family house listed at $850,000.';
const TRUE_ANSWER = '12 Elm St is listed at $850,000.';
const INVENTED = '12 Elm St is listed at $790,000.';
const TESTS = 'scenario: decision\nslo:\n  hallucination: { max: 0.1 }\ndefaultTest:\n  assert:\n    - type: hallucination\n';

let repo: TestRepo;
let judge: ScriptedJudge;
let v1: string;
let v2: string;

type Retrieval = 'before' | 'none' | 'huge' | 'after';

/** One request: the app's retriever span (ending before the call, or not), then the model call in the same trace. */
function request(version: string, startMs: number, answer: string, retrieval: Retrieval): Record<string, unknown>[] {
  const call = otlpSpan({ promptName: 'listings', version, startMs, ttftMs: 300, e2eMs: 700, extra: { 'gen_ai.output.messages': JSON.stringify([{ role: 'assistant', parts: [{ type: 'text', content: answer }] }]) } });
  if (retrieval === 'none') return [call];
  const traceId = call.traceId as string;
  const at = retrieval === 'after' ? startMs + 800 : startMs - 50;
  const ns = (ms: number) => (BigInt(Math.round(ms * 1000)) * 1000n).toString();
  const content = retrieval === 'huge' ? 'x'.repeat(120_000) : LISTING;
  const retriever = {
    traceId,
    spanId: randomBytes(8).toString('hex'),
    name: 'listings-search',
    startTimeUnixNano: ns(at - 40),
    endTimeUnixNano: ns(at),
    attributes: [
      { key: 'openinference.span.kind', value: { stringValue: 'RETRIEVER' } },
      { key: 'input.value', value: { stringValue: 'homes in Bellevue' } },
      { key: 'retrieval.documents.0.document.id', value: { stringValue: 'elm-12' } },
      { key: 'retrieval.documents.0.document.content', value: { stringValue: content } },
    ],
  };
  // Exporters send the retriever first (it ends first); the reader must not depend on it.
  return startMs % 2 ? [retriever, call] : [call, retriever];
}

/** Two days of a gray release: every minute a request to either version; `invents` the share of a version's answers that invent the price. */
function write(name: string, invents: Record<string, number>, retrieval: (r: () => number) => Retrieval = () => 'before') {
  const r = seededRandom(11);
  const spans: Record<string, unknown>[] = [];
  for (let t = NOW - 48 * HOUR; t < NOW; t += 60_000) {
    const version = r() < 0.5 ? v1 : v2;
    spans.push(...request(version, t, r() < (invents[version] ?? 0) ? INVENTED : TRUE_ANSWER, retrieval(r)));
  }
  const lines: string[] = [];
  for (let i = 0; i < spans.length; i += 500) lines.push(tracesLine(spans.slice(i, i + 500)));
  writeFileSync(join(repo.root, name), `${lines.join('\n')}\n`);
}

const prod = (args: string[]) => runCli(['prod', 'listings.prompt', '--now', new Date(NOW).toISOString(), '--score', '20', ...args], repo.root);
const withJudge = () => ['--judge-endpoint', judge.url, '--judge-model', 'judge-model'];

beforeAll(async () => {
  judge = await startScriptedJudge([
    { step: 'claims', when: `Text:\n${TRUE_ANSWER}`, reply: { claims: [TRUE_ANSWER] } },
    { step: 'claims', when: `Text:\n${INVENTED}`, reply: { claims: [INVENTED] } },
    { step: 'verdicts', when: `1. ${TRUE_ANSWER}`, reply: { verdicts: [{ claim: 1, verdict: 'supported', passage: 1 }] } },
    { step: 'verdicts', when: `1. ${INVENTED}`, reply: { verdicts: [{ claim: 1, verdict: 'contradicted', passage: 1, reason: 'the listing says $850,000' }] } },
  ]);
  const origin = new TestRepo();
  v1 = origin.commit('Listings', { 'listings.prompt': '---\nmodel: gpt-test\n---\nAnswer from the listings.\n', 'listings.tests.yaml': TESTS }).slice(0, 8);
  v2 = origin.commit('Attractive prices', { 'listings.prompt': '---\nmodel: gpt-test\n---\nAnswer from the listings; round prices to sound attractive.\n' }).slice(0, 8);
  // A clone, as CD checks it out: --decide reads the version table from the branch being released into (origin/main).
  repo = origin.clone();
  write('invents.jsonl', { [v2]: 0.6 });
  write('same.jsonl', {});
  write('no-retrieval.jsonl', {}, () => 'none');
  write('mixed.jsonl', {}, (r) => (r() < 0.5 ? 'huge' : 'after'));
});
afterAll(() => judge?.close());

describe('production hallucination against the passages each trace retrieved', () => {
  it('gives each version\'s hallucination rate with its interval; the judge saw the trace\'s passages', async () => {
    const { code, stdout, stderr } = await prod(['--traces', 'invents.jsonl', '--no-store', ...withJudge(), '--json']);
    expect(stderr).toBe('');
    expect(code).toBe(0);
    const [head, base] = JSON.parse(stdout).versions;
    expect(head.version).toBe(v2);
    expect(base.adherence.hallucination).toMatchObject({ hallucinated: 0, judged: 20, withoutContext: 0 });
    expect(head.adherence.hallucination.judged).toBe(20);
    expect(head.adherence.hallucination.hallucinated).toBeGreaterThan(6);
    expect(head.adherence.hallucination.hallucinated).toBe(20 - head.adherence.passed);
    expect(head.adherence.hallucination.ci95[0]).toBeGreaterThan(0.2);
    const verdictPrompts = judge.requests.filter((q) => q.user.includes(`1. ${INVENTED}`));
    expect(verdictPrompts.length).toBe(head.adherence.hallucination.hallucinated);
    expect(verdictPrompts.every((q) => q.user.includes(LISTING))).toBe(true);
    const text = await prod(['--traces', 'invents.jsonl', '--no-store', ...withJudge()]);
    expect(text.stdout).toMatch(/^\s+hallucination 0% \[0%, \d+%\] · 0 of 20 answers judged against the passages their trace retrieved$/m);
  });

  it('--decide rolls back the version that hallucinates (exit 1); an equal one is promoted once its judge is trusted or accepted (exit 0)', async () => {
    const worse = await prod(['--traces', 'invents.jsonl', '--no-store', ...withJudge(), '--decide', '--base', v1, '--head', v2, '--fail-on-regression']);
    expect(worse.code).toBe(1);
    expect(worse.stdout).toMatch(/decision: ROLL BACK/);
    expect(worse.stdout).toMatch(/hallucination/);
    // The hallucination check's judge has no labels here: an equal version is not promoted on it (exit 2) …
    const unlabelled = await prod(['--traces', 'same.jsonl', '--no-store', ...withJudge(), '--score', '40', '--decide', '--base', v1, '--head', v2, '--fail-on-regression']);
    expect(unlabelled.stdout).toMatch(/decision: INSUFFICIENT EVIDENCE/);
    expect(unlabelled.stdout).toContain('judge not trusted for hallucination (no labels file beside the prompt)');
    expect(unlabelled.code).toBe(2);
    // … unless the user accepts that judge by name, which the reasons say.
    const same = await prod(['--traces', 'same.jsonl', '--no-store', ...withJudge(), '--score', '40', '--decide', '--base', v1, '--head', v2, '--fail-on-regression', '--accept-judge', 'hallucination']);
    expect(same.stdout).toMatch(/decision: PROMOTE/);
    expect(same.stdout).toContain('judge accepted for hallucination although not trusted');
    expect(same.code).toBe(0);
  });

  it('a stored verdict keeps its hallucination: the second run asks the judge nothing and gives the same rate', async () => {
    const store = join(repo.root, 'hallucination-scores.jsonl');
    const first = JSON.parse((await prod(['--traces', 'invents.jsonl', '--store', store, ...withJudge(), '--json'])).stdout);
    const asked = judge.requests.length;
    const second = JSON.parse((await prod(['--traces', 'invents.jsonl', '--store', store, ...withJudge(), '--json'])).stdout);
    expect(judge.requests.length).toBe(asked);
    expect(second.versions[0].adherence.fromStore).toBe(20);
    expect(second.versions[0].adherence.hallucination).toEqual(first.versions[0].adherence.hallucination);
  });

  it('says why an answer is not judged: no retrieval in its trace, passages over the cap, a retrieval after the call', async () => {
    const none = await prod(['--traces', 'no-retrieval.jsonl', '--no-store', ...withJudge(), '--json']);
    const [v] = JSON.parse(none.stdout).versions;
    expect(v.adherence).toMatchObject({ scored: 0, unscored: 20, rate: null });
    expect(v.adherence.hallucination).toMatchObject({ judged: 0, withoutContext: 20 });
    const text = await prod(['--traces', 'no-retrieval.jsonl', '--no-store', ...withJudge()]);
    expect(text.stdout).toContain('hallucination: no answer judged against its retrieved passages · 20 sampled answers without retrieved passages in their trace (not judged)');
    const mixed = JSON.parse((await prod(['--traces', 'mixed.jsonl', '--no-store', ...withJudge(), '--json'])).stdout);
    for (const version of mixed.versions) expect(version.adherence.hallucination).toMatchObject({ judged: 0, withoutContext: 20 });
  });

  it('without a judge the context check is left out, and said', async () => {
    const { stdout } = await prod(['--traces', 'invents.jsonl', '--no-store', '--json']);
    const report = JSON.parse(stdout);
    expect(report.notes.join('\n')).toMatch(/production adherence leaves out hallucination \(no judge: --judge-endpoint and --judge-model\)/);
    expect(report.versions[0].adherence).toBeUndefined();
  });
});
