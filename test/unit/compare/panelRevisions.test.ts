/**
 * What the comparison panel lists and preselects, on real git repositories: working copy vs HEAD when
 * the prompt is being changed (or when the head's tests were asked for), else the two newest commits.
 */
import { mkdtempSync, realpathSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { panelRevisions } from '../../../src/core/compare/panelRevisions';
import { TestRepo } from '../../fixtures/gitRepo';

const PROMPT = (line: string) => `---\nname: ask\n---\nuser:\n${line}\n`;

function twoCommits() {
  const repo = new TestRepo();
  const first = repo.commit('Ask', { 'ask.prompty': PROMPT('Say hi.'), 'notes.md': 'a' });
  const second = repo.commit('Ask briefly', { 'ask.prompty': PROMPT('Say hi briefly.') });
  // A later commit that leaves the prompt alone: HEAD's prompt is still the second's.
  repo.commit('Notes', { 'notes.md': 'b' });
  return { repo, file: join(repo.root, 'ask.prompty'), first, second };
}

describe('the panel’s revisions and preselection', () => {
  it('an unchanged prompt: the two newest commits of the file', async () => {
    const { file, first, second } = twoCommits();
    const listed = await panelRevisions(file, { dirty: false });
    expect(listed.choices.map((c) => c.label)).toEqual(['working copy', second.slice(0, 7), first.slice(0, 7)]);
    expect(listed.preselected).toEqual([second, first]);
    expect(listed.notice).toBeUndefined();
  });

  it('a prompt modified in the working copy (or only staged): working copy vs HEAD', async () => {
    const { repo, file, second } = twoCommits();
    repo.write('ask.prompty', PROMPT('Say hi in one word.'));
    expect((await panelRevisions(file, { dirty: false })).preselected).toEqual(['working', second]);
    repo.git('add', 'ask.prompty');
    expect((await panelRevisions(file, { dirty: false })).preselected).toEqual(['working', second]);
    // An unsaved buffer is listed first; the working copy is still what is compared with HEAD.
    const dirty = await panelRevisions(file, { dirty: true });
    expect(dirty.choices.slice(0, 2).map((c) => c.rev)).toEqual(['buffer', 'working']);
    expect(dirty.preselected).toEqual(['working', second]);
  });

  it("asked for the head's tests (new cases in the working copy), an unchanged prompt still preselects working copy vs HEAD", async () => {
    const { repo, file, first, second } = twoCommits();
    repo.write('ask.tests.yaml', 'tests:\n  - vars: {}\n    assert:\n      - type: icontains\n        value: hi\n');
    expect((await panelRevisions(file, { dirty: false })).preselected).toEqual([second, first]);
    expect((await panelRevisions(file, { dirty: false, preferWorkingCopy: true })).preselected).toEqual(['working', second]);
  });

  it('a file outside git: the working copy (and buffer) only, with the reason', async () => {
    const dir = realpathSync(mkdtempSync(join(tmpdir(), 'pi-nogit-')));
    const file = join(dir, 'ask.prompty');
    writeFileSync(file, PROMPT('Say hi.'));
    const listed = await panelRevisions(file, { dirty: true });
    expect(listed.choices.map((c) => c.rev)).toEqual(['buffer', 'working']);
    expect(listed.preselected).toEqual(['buffer', 'working']);
    expect(listed.notice).toMatch(/not inside a git repository/);
  });
});
