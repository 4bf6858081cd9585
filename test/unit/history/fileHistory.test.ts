import { mkdtempSync, realpathSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { contentsAt, fileHistory, resolveRevision } from '../../../src/core/history/fileHistory';
import { TestRepo } from '../../fixtures/gitRepo';

describe('file history from git', () => {
  it('follows renames, lists merges and deletions, and reads contents at each revision in one batch', async () => {
    const repo = new TestRepo();
    const a = repo.commit('A: first homes prompt', { 'prompts/homes.prompty': 'v1\n' });
    repo.git('mv', 'prompts/homes.prompty', 'prompts/real-estate.prompty');
    const renamed = repo.commit('rename the prompt');
    repo.git('checkout', '-q', '-b', 'rule');
    const ruled = repo.commit('B: define homes', { 'prompts/real-estate.prompty': 'v1\nhomes means single-family houses\n' });
    repo.git('checkout', '-q', 'main');
    repo.commit('unrelated', { 'README.md': 'x' });
    repo.git('merge', '-q', '--no-ff', '-m', 'merge the rule', 'rule');
    const history = await fileHistory(join(repo.root, 'prompts/real-estate.prompty'));
    expect(history.path).toBe('prompts/real-estate.prompty');
    expect(history.shallow).toBe(false);
    const subjects = history.revisions.map((r) => r.subject);
    expect(subjects).toEqual(expect.arrayContaining(['B: define homes', 'rename the prompt', 'A: first homes prompt']));
    expect(subjects).not.toContain('unrelated');
    const byRev = new Map(history.revisions.map((r) => [r.rev, r]));
    expect(byRev.get(a)!.path).toBe('prompts/homes.prompty');
    expect(byRev.get(renamed)!.path).toBe('prompts/real-estate.prompty');
    expect(byRev.get(ruled)).toMatchObject({ author: 'Test Author', path: 'prompts/real-estate.prompty' });
    expect(byRev.get(a)!.date).toMatch(/^2026-01-\d\dT10:00:\d\dZ|^2026-01-\d\dT10:00:\d\d\+00:00$/);
    const contents = await contentsAt(history.repoRoot, [byRev.get(a)!, byRev.get(ruled)!]);
    expect(contents).toEqual([{ ok: true, text: 'v1\n' }, { ok: true, text: 'v1\nhomes means single-family houses\n' }]);
  });

  it('a deleted file: the deleting revision is marked and has no content; binary content is refused with a reason', async () => {
    const repo = new TestRepo();
    repo.commit('add', { 'p.prompty': 'hello\n' });
    repo.commit('binary', { 'p.prompty': Buffer.from([0, 1, 2, 255, 0]) });
    repo.remove('p.prompty');
    const deleting = repo.commit('delete');
    const history = await fileHistory(join(repo.root, 'p.prompty'));
    expect(history.revisions[0]).toMatchObject({ rev: deleting, deleted: true });
    const contents = await contentsAt(history.repoRoot, history.revisions);
    expect(contents[0]).toMatchObject({ ok: false, reason: expect.stringContaining('does not exist') });
    expect(contents[1]).toMatchObject({ ok: false });
    expect(contents[2]).toEqual({ ok: true, text: 'hello\n' });
  });

  it('clear errors: not a repository, untracked file, bad revision names; shallow clones are flagged', async () => {
    const plain = realpathSync(mkdtempSync(join(tmpdir(), 'pi-nogit-')));
    await expect(fileHistory(join(plain, 'x.prompty'))).rejects.toMatchObject({ kind: 'not-a-repo', message: expect.stringContaining('not inside a git repository') });
    const repo = new TestRepo();
    repo.commit('first', { 'a.prompty': 'a\n' });
    repo.write('new.prompty', 'new\n');
    await expect(fileHistory(join(repo.root, 'new.prompty'))).rejects.toMatchObject({ kind: 'untracked' });
    await expect(resolveRevision(repo.root, '--output=/tmp/x')).rejects.toMatchObject({ kind: 'bad-revision' });
    await expect(resolveRevision(repo.root, 'nope-branch')).rejects.toMatchObject({ kind: 'bad-revision' });
    expect(await resolveRevision(repo.root, 'HEAD')).toMatch(/^[0-9a-f]{40}$/);
    await expect(contentsAt(repo.root, [{ rev: 'HEAD; rm -rf /', path: 'a.prompty' }])).rejects.toMatchObject({ kind: 'bad-revision' });
    repo.commit('second', { 'a.prompty': 'b\n' });
    repo.commit('third', { 'a.prompty': 'c\n' });
    const clone = new TestRepo(realpathSync(mkdtempSync(join(tmpdir(), 'pi-shallow-'))));
    clone.git('clone', '-q', '--depth', '1', `file://${repo.root}`, '.');
    const shallow = await fileHistory(join(clone.root, 'a.prompty'));
    expect(shallow.shallow).toBe(true);
    expect(shallow.revisions).toHaveLength(1);
  });
});
