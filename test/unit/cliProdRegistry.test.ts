/**
 * `prod --decide` reads the version table (NAME.versions.yaml) from the base's side, never from the working
 * copy: in CD the working copy is the change being rolled out, and a table it edits would pick its own
 * baseline — label `1` (the base) mapped to an older commit whose tests file had a lax check turns ROLL BACK
 * into PROMOTE on the same traces. The table is read at --registry-rev, else the upstream branch, else
 * origin/HEAD (a clear error when neither exists), and the output names it. Real clones of a real origin,
 * the built CLI; answers drawn with a fixed seed, times anchored with --now.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { seededRandom } from '../../src/core/stats/random';
import { runCli } from '../fixtures/cli';
import { TestRepo } from '../fixtures/gitRepo';
import { otlpSpan, tracesLine } from '../fixtures/otlpTraces';

const NOW = Date.parse('2026-12-04T23:50:00Z');
const HOUR = 3_600_000;
const tests = (check: string) => `defaultTest:\n  assert:\n    - ${check}\ntests:\n  - vars: { topic: tea }\n    assert:\n      - type: contains\n        value: tea\n`;
/** Every answer is JSON. */
const STRICT = tests('type: is-json');
/** Any answer with a brace passes: the half-JSON answers of version 2 too. */
const LAX = tests("type: contains\n      value: '{'");

let origin: TestRepo;
let older: string;
let base: string;
let head: string;
let published: string;
let traces: string;

const decide = (repo: TestRepo, ...extra: string[]) => runCli(['prod', 'greet.prompt', '--now', new Date(NOW).toISOString(), '--traces', traces, '--no-store', '--decide', '--base', '1', '--head', '2', '--fail-on-regression', ...extra], repo.root);

/** The table as the change being rolled out rewrites it: the base's label on the older commit with the lax check. */
const rewritten = () => `"1": ${older}\n"2": ${head}\n`;

beforeAll(() => {
  origin = new TestRepo();
  older = origin.commit('Greeting, checked loosely', { 'greet.prompt': '---\nmodel: gpt-test\n---\nAnswer in JSON.\n', 'greet.tests.yaml': LAX });
  base = origin.commit('Greeting in JSON, checked strictly', { 'greet.prompt': '---\nmodel: gpt-test\n---\nAnswer in JSON only.\n', 'greet.tests.yaml': STRICT });
  // The head relaxes its own check too: only --policy head applies that.
  head = origin.commit('Shorter greeting', { 'greet.prompt': '---\nmodel: gpt-test\n---\nAnswer.\n', 'greet.tests.yaml': LAX });
  published = origin.commit('Registry: Langfuse versions 1 and 2', { 'greet.versions.yaml': `"1": ${base}\n"2": ${head}\n` });
  // A day of a gray release labelled by Langfuse's integers; half of version 2's answers are not JSON.
  const r = seededRandom(11);
  const spans = [];
  for (let t = NOW - 24 * HOUR; t < NOW; t += 120_000) {
    const version = r() < 0.5 ? '1' : '2';
    const answer = version === '2' && r() < 0.5 ? 'Sure! {"tea": 1' : '{"tea": 1}';
    const ttft = 300 * (0.9 + 0.2 * r());
    spans.push(otlpSpan({ promptName: 'greet', version, identity: 'langfuse', startMs: t, ttftMs: ttft, e2eMs: ttft + 400, extra: { 'gen_ai.output.messages': JSON.stringify([{ role: 'assistant', parts: [{ type: 'text', content: answer }] }]) } }));
  }
  const lines: string[] = [];
  for (let i = 0; i < spans.length; i += 500) lines.push(tracesLine(spans.slice(i, i + 500)));
  traces = join(mkdtempSync(join(tmpdir(), 'pi-traces-')), 'traces.jsonl');
  writeFileSync(traces, `${lines.join('\n')}\n`);
});

describe('prod --decide: the version table comes from the base\'s side', () => {
  it('a working copy that maps the base to an older commit with a lax check still rolls back (exit 1), naming the upstream branch it read', async () => {
    const work = origin.clone();
    work.write('greet.versions.yaml', rewritten());
    const { code, stdout } = await decide(work);
    expect(code).toBe(1);
    expect(stdout).toMatch(/decision: ROLL BACK 2 \(against 1\)/);
    expect(stdout).toContain(`version table: greet.versions.yaml at origin/main (${published.slice(0, 10)}), not the working copy`);
    expect(stdout).toMatch(/note: greet\.versions\.yaml in the working copy differs from origin\/main's: not used/);
    const json = JSON.parse((await decide(work, '--json')).stdout);
    expect(json.decision).toMatchObject({ decision: 'roll-back', registry: { file: 'greet.versions.yaml', revision: 'origin/main', commit: published } });
    expect(json.versions.find((v: { version: string }) => v.version === '1').revision).toBe(base);
  });

  it('committed on the head, the rewritten table still is not read; --registry-rev names the revision deliberately', async () => {
    const work = origin.clone();
    const edit = work.commit('Registry: version 1 is the older greeting', { 'greet.versions.yaml': rewritten() });
    expect((await decide(work)).code).toBe(1);
    const named = await decide(work, '--registry-rev', 'HEAD');
    expect(named.code).toBe(0);
    expect(named.stdout).toMatch(/decision: PROMOTE 2 \(against 1\)/);
    expect(named.stdout).toContain(`version table: greet.versions.yaml at HEAD (${edit.slice(0, 10)}), not the working copy`);
    const bad = await decide(work, '--registry-rev', 'no-such-branch');
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/--registry-rev 'no-such-branch' is not a commit/);
  });

  it('without an upstream branch origin/HEAD is the base\'s side; with neither, a clear error', async () => {
    const work = origin.clone();
    work.write('greet.versions.yaml', rewritten());
    work.git('checkout', '-q', '--detach');
    const detached = await decide(work);
    expect(detached.code).toBe(1);
    expect(detached.stdout).toContain(`version table: greet.versions.yaml at origin/main (${published.slice(0, 10)}), not the working copy`);
    work.git('remote', 'set-head', 'origin', '--delete');
    const neither = await decide(work);
    expect(neither.code).toBe(2);
    expect(neither.stdout).toBe('');
    expect(neither.stderr).toMatch(/--decide reads greet\.versions\.yaml from the branch being released into, and HEAD has no upstream branch and there is no origin\/HEAD: name it with --registry-rev \(for example --registry-rev origin\/main\)/);
  });

  it('a base matched to the working copy\'s text has no policy of the base\'s side: insufficient (exit 2), never the working copy\'s checks', async () => {
    const work = origin.clone();
    work.write('greet.prompt', '---\nmodel: gpt-test\n---\nAnswer, never committed.\n');
    const label = JSON.parse((await runCli(['version', 'greet.prompt', '--json'], work.root)).stdout).versions[0].version;
    const spans = [label, '2'].flatMap((version) => Array.from({ length: 20 }, (_, i) => otlpSpan({ promptName: 'greet', version, identity: version === '2' ? 'langfuse' : 'genai', startMs: NOW - HOUR + i * 60_000, ttftMs: 300, e2eMs: 700 })));
    writeFileSync(join(work.root, 'working.jsonl'), `${tracesLine(spans)}\n`);
    const { code, stdout } = await runCli(['prod', 'greet.prompt', '--now', new Date(NOW).toISOString(), '--traces', 'working.jsonl', '--no-store', '--decide', '--base', label, '--head', '2', '--fail-on-regression'], work.root);
    expect(code).toBe(2);
    expect(stdout).toContain(`version ${label} is the working copy's text, not a commit: its policy cannot be read from the base's side`);
    expect(stdout).not.toContain('decided under');
  });

  it('--policy head applies the head\'s relaxed check deliberately and lists it; by default it is listed, not applied', async () => {
    const work = origin.clone();
    const byBase = await decide(work);
    expect(byBase.code).toBe(1);
    expect(byBase.stdout).toMatch(/note: policy change: test cases: 1 changed \(assertions\) \(not applied: the base revision's policy judges the change \(--policy head applies it\)\)/);
    const byHead = await decide(work, '--policy', 'head');
    expect(byHead.code).toBe(0);
    expect(byHead.stdout).toMatch(/decision: PROMOTE 2 \(against 1\)/);
    expect(byHead.stdout).toMatch(/note: policy change: test cases: 1 changed \(assertions\) \(applied: --policy head\)/);
    expect(byHead.stdout).toMatch(/note: decided under 2's policy \(judged with the head's tests, as asked\): interactive/);
    expect((await decide(work, '--policy', 'mine')).stderr).toMatch(/--policy must be base or head/);
    expect((await runCli(['prod', 'greet.prompt', '--traces', traces, '--policy', 'head'], work.root)).stderr).toMatch(/--policy and --registry-rev go with --decide/);
  });
});
