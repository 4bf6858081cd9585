/**
 * A gray release decided without flags (the editor's *Decide Gray Release*): a real clone whose
 * origin/main holds two revisions, two days of production traces split between them, the versions,
 * whose tests judge and the range named directly — the same decision `prod --decide` prints.
 */
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { ReleaseError } from '../../../src/core/release/baseSide';
import { decideGrayRelease, verdictLine } from '../../../src/core/release/grayRelease';
import { runCli } from '../../fixtures/cli';
import { TestRepo } from '../../fixtures/gitRepo';
import { writeGrayReleaseTraces } from '../../fixtures/grayReleaseTraces';

const NOW = Date.parse('2026-12-04T23:50:00Z');
const TESTS = 'defaultTest:\n  assert:\n    - type: is-json\n';

let repo: TestRepo;
let v1: string;
let v2: string;

/** Two days, each request to either version; `badShare` of a version's answers are not JSON. */
const write = (name: string, badShare: Record<string, number>): string => writeGrayReleaseTraces({ root: repo.root, name, versions: [v1, v2], endMs: NOW, seed: 11, badShare });

const decide = (traces: string, more: Partial<Parameters<typeof decideGrayRelease>[0]> = {}) =>
  decideGrayRelease({ file: join(repo.root, 'greet.prompt'), promptName: 'greet', traces: [traces], base: v1, head: v2, policyFrom: 'base', untilMs: NOW, ...more });

beforeAll(() => {
  const origin = new TestRepo();
  v1 = origin.commit('Greeting', { 'greet.prompt': '---\nmodel: gpt-test\n---\nAnswer in JSON.\n', 'greet.tests.yaml': TESTS }).slice(0, 8);
  v2 = origin.commit('Shorter', { 'greet.prompt': '---\nmodel: gpt-test\n---\nAnswer.\n' }).slice(0, 8);
  repo = origin.clone();
  write('worse.jsonl', { [v1]: 0.05, [v2]: 0.5 });
  write('same.jsonl', { [v1]: 0.05, [v2]: 0.05 });
});

describe('a gray release decided from trace files', () => {
  it('rolls back a head whose answers fail the base\'s checks far more often, as prod --decide does', async () => {
    const { decision, report } = await decide(join(repo.root, 'worse.jsonl'));
    expect(decision.decision).toBe('roll-back');
    expect(verdictLine(decision)).toBe(`ROLL BACK ${v2} (against ${v1})`);
    expect(decision.reasons.join('\n')).toMatch(/adherence/);
    expect(decision.registry).toMatchObject({ revision: 'origin/main' });
    expect(report.versions.map((v) => v.version).sort()).toEqual([v1, v2].sort());
    const cli = await runCli(['prod', 'greet.prompt', '--now', new Date(NOW).toISOString(), '--traces', 'worse.jsonl', '--decide', '--base', v1, '--head', v2, '--no-store', '--json'], repo.root);
    expect(JSON.parse(cli.stdout).decision).toMatchObject({ decision: decision.decision, reasons: decision.reasons });
  });

  it('promotes a head no worse than the base; says not enough data for a version production never served', async () => {
    const same = await decide(join(repo.root, 'same.jsonl'));
    expect(verdictLine(same.decision)).toBe(`PROMOTE ${v2} (against ${v1})`);
    const missing = await decide(join(repo.root, 'same.jsonl'), { head: 'deadbeef' });
    expect(verdictLine(missing.decision)).toBe(`NOT ENOUGH DATA YET deadbeef (against ${v1})`);
    expect(missing.decision.reasons).toEqual(['version deadbeef served no request of this prompt in the source', 'A gate fails closed: no decision without evidence.']);
  });

  it('a clone with no branch to release into is said as such, and a named revision is read instead', async () => {
    repo.git('branch', '--unset-upstream');
    repo.git('remote', 'set-head', 'origin', '-d');
    const error = await decide(join(repo.root, 'same.jsonl')).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ReleaseError);
    expect((error as ReleaseError).kind).toBe('no-release-branch');
    const named = await decide(join(repo.root, 'same.jsonl'), { registryRev: 'origin/main' });
    expect(named.decision.decision).toBe('promote');
  });
});
