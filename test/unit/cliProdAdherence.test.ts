/**
 * Production adherence and the production decision, through the built CLI on trace files: each version's
 * sampled answers (gen_ai.output.messages) scored with the tests file's checks for every answer
 * (defaultTest), with a Wilson interval; `prod --decide --base --head` promotes, rolls back or says the
 * evidence is insufficient under the base revision's policy, with exit codes for a CD step. Times are
 * anchored to a fixed moment (--now); answers are drawn with a fixed seed.
 */
import { copyFileSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../fixtures/cli';
import { TestRepo } from '../fixtures/gitRepo';
import { writeGrayReleaseTraces } from '../fixtures/grayReleaseTraces';

const NOW = Date.parse('2026-12-04T23:50:00Z');
const TESTS = 'defaultTest:\n  assert:\n    - type: is-json\ntests:\n  - vars: { topic: tea }\n    assert:\n      - type: contains\n        value: tea\n';

let repo: TestRepo;
let v1: string;
let v2: string;

function write(name: string, badShare: Record<string, number>, options: { output?: boolean; errors?: Record<string, number> } = {}): void {
  writeGrayReleaseTraces({ root: repo.root, name, versions: [v1, v2], endMs: NOW, seed: 7, badShare, ...options });
}

const prod = (args: string[]) => runCli(['prod', 'greet.prompt', '--now', new Date(NOW).toISOString(), ...args], repo.root);

beforeAll(() => {
  const origin = new TestRepo();
  v1 = origin.commit('Greeting', { 'greet.prompt': '---\nmodel: gpt-test\n---\nAnswer in JSON.\n', 'greet.tests.yaml': TESTS }).slice(0, 8);
  v2 = origin.commit('Shorter', { 'greet.prompt': '---\nmodel: gpt-test\n---\nAnswer.\n' }).slice(0, 8);
  // A clone, as CD checks it out: --decide reads the version table from the branch being released into (origin/main).
  repo = origin.clone();
  write('worse.jsonl', { [v1]: 0.05, [v2]: 0.5 });
  write('same.jsonl', { [v1]: 0.05, [v2]: 0.05 });
  write('no-output.jsonl', {}, { output: false });
  write('errors.jsonl', { [v1]: 0.05, [v2]: 0.05 }, { errors: { [v2]: 0.2 } });
});

describe('production adherence per version', () => {
  it('scores a bounded sample of each version\'s answers with the checks for every answer, with an interval', async () => {
    const { code, stdout, stderr } = await prod(['--traces', 'worse.jsonl', '--json']);
    // The scores' store is made as the results store is: its folder, with a .gitignore, said once.
    expect(stderr).toBe('prompt-insight: created .prompt-insight/ for the results store, with a .gitignore inside that keeps it out of git\n');
    expect(readFileSync(join(repo.root, '.prompt-insight/.gitignore'), 'utf8')).toContain('*');
    expect(code).toBe(0);
    const report = JSON.parse(stdout);
    const [head, base] = report.versions;
    expect(head.version).toBe(v2);
    // defaultTest's is-json only: the case's `contains tea` needs that case's inputs.
    expect(head.adherence).toMatchObject({ checks: ['is-json'], sampled: 50, scored: 50, unscored: 0 });
    expect(head.adherence.withAnswer).toBe(head.requests);
    expect(head.adherence.rate).toBeGreaterThan(0.3);
    expect(head.adherence.rate).toBeLessThan(0.7);
    expect(base.adherence.rate).toBeGreaterThan(0.85);
    expect(head.adherence.ci95[0]).toBeLessThan(head.adherence.rate);
    expect(head.adherence.ci95[1]).toBeGreaterThan(head.adherence.rate);
    const text = await prod(['--traces', 'worse.jsonl', '--score', '10', '--no-store']);
    expect(text.stdout).toMatch(/adherence \d+% \[\d+%, \d+%\] · \d+ of 10 sampled answers pass \(of \d+ captured\) · checks: is-json/);
  });

  it('--score 0 scores nothing; spans without the answer say how to capture it', async () => {
    const off = JSON.parse((await prod(['--traces', 'worse.jsonl', '--score', '0', '--json'])).stdout);
    expect(off.versions[0].adherence).toBeUndefined();
    const none = JSON.parse((await prod(['--traces', 'no-output.jsonl', '--json'])).stdout);
    expect(none.versions[0].adherence).toMatchObject({ withAnswer: 0, scored: 0, rate: null });
    expect(none.notes.join('\n')).toMatch(/no answer was captured on these spans/);
  });
});

describe('scores are kept between runs', () => {
  it('a second run reuses each stored score; scores not sealed on this machine (committed, forged) are not used; --no-store scores again; a store that is not a file is said', async () => {
    const first = JSON.parse((await prod(['--traces', 'worse.jsonl', '--store', 'scores.jsonl', '--json'])).stdout);
    expect(first.versions.map((v: { adherence: { fromStore: number } }) => v.adherence.fromStore)).toEqual([0, 0]);
    const passed = first.versions.map((v: { adherence: { passed: number } }) => v.adherence.passed);
    const lines = readFileSync(join(repo.root, 'scores.jsonl'), 'utf8').trim().split('\n');
    // Distinct answers only: the two texts under one set of checks, each line sealed.
    expect(lines.map((l) => JSON.parse(l).s).sort()).toEqual(['fail', 'pass']);
    expect(lines.every((l) => /"seal":"[0-9a-f]{64}"/.test(l))).toBe(true);
    const second = JSON.parse((await prod(['--traces', 'worse.jsonl', '--store', 'scores.jsonl', '--json'])).stdout);
    expect(second.versions.map((v: { adherence: { fromStore: number; passed: number } }) => [v.adherence.fromStore, v.adherence.passed])).toEqual(passed.map((p: number) => [50, p]));
    // A pull request that commits "pass" for the answers it can predict: the forged lines (and plain ones) are scored again.
    const forged = lines.map((l) => l.replace('"fail"', '"pass"'));
    const plain = lines.map((l) => JSON.stringify({ k: JSON.parse(l).k, s: 'pass' }));
    writeFileSync(join(repo.root, 'scores.jsonl'), `${[...forged, ...plain].join('\n')}\nnot json\n`);
    const third = JSON.parse((await prod(['--traces', 'worse.jsonl', '--store', 'scores.jsonl', '--json'])).stdout);
    // Only the one line still under its seal (the passing answer's) is reused; the failing answer is judged again and still fails.
    expect(third.versions.map((v: { adherence: { fromStore: number; passed: number } }) => [v.adherence.fromStore, v.adherence.passed])).toEqual(passed.map((p: number) => [p, p]));
    expect(third.notes).toContain('Production score store scores.jsonl: ignored 3 record(s) not written on this machine (a store committed to a repository or copied from elsewhere is never reused); skipped 1 unreadable or invalid line(s).');
    const fresh = JSON.parse((await prod(['--traces', 'worse.jsonl', '--no-store', '--json'])).stdout);
    expect(fresh.versions[0].adherence).toMatchObject({ fromStore: 0, passed: first.versions[0].adherence.passed });
    mkdirSync(join(repo.root, 'a-folder'));
    const folder = JSON.parse((await prod(['--traces', 'worse.jsonl', '--store', 'a-folder', '--json'])).stdout);
    expect(folder.notes.join('\n')).toMatch(/a-folder is not used: The results store a-folder is a directory/);
  });

  it('a repository\'s `.prompt-insight` linked elsewhere is neither read nor written through', async () => {
    const outside = mkdtempSync(join(tmpdir(), 'pi-outside-'));
    const clone = new TestRepo();
    clone.commit('Greeting', { 'greet.prompt': '---\nmodel: gpt-test\n---\nAnswer in JSON.\n', 'greet.tests.yaml': TESTS });
    symlinkSync(outside, join(clone.root, '.prompt-insight'));
    copyFileSync(join(repo.root, 'same.jsonl'), join(clone.root, 'same.jsonl'));
    const { code, stdout } = await runCli(['prod', 'greet.prompt', '--now', new Date(NOW).toISOString(), '--traces', 'same.jsonl', '--json'], clone.root);
    expect(code).toBe(0);
    expect(JSON.parse(stdout).notes.join('\n')).toMatch(/prod-scores\.jsonl is not used: The results store's folder \.prompt-insight is a symbolic link/);
    expect(readdirSync(outside)).toEqual([]);
  });
});

describe('prod --decide', () => {
  it('rolls back a version whose answers fail more often: exit 1 with --fail-on-regression, 0 without', async () => {
    const gate = await prod(['--traces', 'worse.jsonl', '--decide', '--base', v1, '--head', v2, '--fail-on-regression', '--json']);
    expect(gate.code).toBe(1);
    const { decision } = JSON.parse(gate.stdout);
    expect(decision).toMatchObject({ decision: 'roll-back', base: v1, head: v2 });
    expect(decision.reasons[0]).toMatch(/^adherence -\d+ pts, p [<=] 0\.0\d+ — significantly worse/);
    const report = await prod(['--traces', 'worse.jsonl', '--decide', '--base', v1, '--head', v2]);
    expect(report.code).toBe(0);
    expect(report.stdout).toMatch(new RegExp(`decision: ROLL BACK ${v2} \\(against ${v1}\\) · over the \\d+ hours both versions served side by side`));
    expect(report.stdout).toMatch(new RegExp(`decided under ${v1}'s policy: interactive`));
  });

  it('promotes an equal version (exit 0); more failed requests roll it back', async () => {
    const same = await prod(['--traces', 'same.jsonl', '--decide', '--base', v1, '--head', v2, '--fail-on-regression', '--json']);
    expect(same.code).toBe(0);
    expect(JSON.parse(same.stdout).decision.decision).toBe('promote');
    const errors = await prod(['--traces', 'errors.jsonl', '--decide', '--base', v1, '--head', v2, '--fail-on-regression', '--json']);
    expect(errors.code).toBe(1);
    expect(JSON.parse(errors.stdout).decision.reasons[0]).toMatch(/^error rate \+\d+(\.\d+)? pts.* — significantly more failed requests/);
  });

  it('fails closed: no captured answers, or a version production never served, is insufficient (exit 2)', async () => {
    const none = await prod(['--traces', 'no-output.jsonl', '--decide', '--base', v1, '--head', v2, '--fail-on-regression', '--json']);
    expect(none.code).toBe(2);
    expect(JSON.parse(none.stdout).decision.decision).toBe('insufficient');
    const missing = await prod(['--traces', 'same.jsonl', '--decide', '--base', v1, '--head', 'deadbeef', '--fail-on-regression']);
    expect(missing.code).toBe(2);
    expect(missing.stdout).toMatch(/decision: INSUFFICIENT EVIDENCE deadbeef[\s\S]*version deadbeef served no request of this prompt/);
  });

  it('usage: --decide needs both versions; --base without --decide is refused', async () => {
    expect((await prod(['--traces', 'same.jsonl', '--decide', '--base', v1])).stderr).toMatch(/--decide needs --base V1 --head V2/);
    expect((await prod(['--traces', 'same.jsonl', '--base', v1])).stderr).toMatch(/go with --decide/);
  });
});
