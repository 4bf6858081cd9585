/**
 * Revisions on the clone CI makes: actions/checkout fetches one commit, and the base is fetched one
 * commit deep after it (or not at all). Real repositories: an origin built by the test, cloned with
 * `--depth 1` over file://, as a CI job does.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadRevisionSources } from '../../../src/core/compare/revisionSources';
import { shallowCheckout } from '../../fixtures/shallowCheckout';

const git = (cwd: string, ...args: string[]) => execFileSync('git', ['-c', 'protocol.file.allow=always', ...args], { cwd, encoding: 'utf8' });

describe('compare on a one-commit-deep clone', () => {
  it('the base fetched one commit deep is read from its own commit (it was "no version at …, or the clone is shallow")', async () => {
    const { clone, baseSha } = shallowCheckout({ base: { 'homes.prompt.yml': 'messages:\n  - role: user\n    content: A\n' }, head: { 'homes.prompt.yml': 'messages:\n  - role: user\n    content: B\n' } });
    git(clone, 'fetch', '-q', '--depth', '1', 'origin', baseSha);
    expect(git(clone, 'rev-parse', '--is-shallow-repository').trim()).toBe('true');
    const { sources } = await loadRevisionSources(join(clone, 'homes.prompt.yml'), [baseSha, 'HEAD']);
    expect(sources.map((s) => s.text)).toEqual(['messages:\n  - role: user\n    content: A\n', 'messages:\n  - role: user\n    content: B\n']);
    expect(sources[0]).toMatchObject({ rev: baseSha, label: baseSha.slice(0, 7), subject: 'base', path: 'homes.prompt.yml' });
  });

  it('a prompt renamed in the pull request is read under its old name at the base', async () => {
    const { clone, baseSha } = shallowCheckout({ base: { 'old.prompty': '---\nname: p\n---\nuser:\nold text\n' }, head: { 'prompts/new.prompty': '---\nname: p\n---\nuser:\nold text, edited\n' }, renames: [['old.prompty', 'prompts/new.prompty']] });
    git(clone, 'fetch', '-q', '--depth', '1', 'origin', baseSha);
    const { sources } = await loadRevisionSources(join(clone, 'prompts/new.prompty'), [baseSha, 'HEAD']);
    expect(sources.map((s) => [s.path, s.text])).toEqual([['old.prompty', '---\nname: p\n---\nuser:\nold text\n'], ['prompts/new.prompty', '---\nname: p\n---\nuser:\nold text, edited\n']]);
  });

  it('a base the clone lacks: the error names the one command; with fetchMissing it is fetched one commit deep', async () => {
    const { clone, baseSha } = shallowCheckout({ base: { 'p.prompty': 'user:\nA\n' }, head: { 'p.prompty': 'user:\nB\n' } });
    const file = join(clone, 'p.prompty');
    await expect(loadRevisionSources(file, [baseSha, 'HEAD'])).rejects.toThrow(`'${baseSha}' is not in this shallow clone. Fetch it with \`git fetch --depth=1 origin ${baseSha}\`, or let compare fetch it (--fetch).`);
    await expect(loadRevisionSources(file, ['origin/main', 'HEAD'])).rejects.toThrow('Fetch it with `git fetch --depth=1 origin main:refs/remotes/origin/main`');
    await expect(loadRevisionSources(file, ['HEAD~1', 'HEAD'])).rejects.toThrow(/'HEAD~1' is not in this shallow clone .* fetch more history: `git fetch --deepen=50 origin`/);

    const { sources } = await loadRevisionSources(file, [baseSha, 'HEAD'], { fetchMissing: { remote: 'origin' } });
    expect(sources[0]!.text).toBe('user:\nA\n');
    expect(readFileSync(join(clone, '.git/shallow'), 'utf8')).toContain(baseSha);
    // Nothing else came: the base's parent history is not in the clone, and no FETCH_HEAD was written.
    expect(git(clone, 'rev-list', '--count', baseSha).trim()).toBe('1');
  });

  it('origin/main is fetched into its remote-tracking ref; an unknown branch or remote says so', async () => {
    const { clone } = shallowCheckout({ base: { 'p.prompty': 'user:\nA\n' }, head: { 'p.prompty': 'user:\nB\n' } });
    const file = join(clone, 'p.prompty');
    const { sources } = await loadRevisionSources(file, ['origin/main', 'HEAD'], { fetchMissing: { remote: 'origin' } });
    expect(sources[0]!.text).toBe('user:\nA\n');
    expect(git(clone, 'rev-parse', 'refs/remotes/origin/main').trim()).toBe(sources[0]!.rev);
    await expect(loadRevisionSources(file, ['origin/nope', 'HEAD'], { fetchMissing: { remote: 'origin' } })).rejects.toThrow(/Fetching nope from origin failed \(.*\)\. Run it yourself: `git fetch --depth=1 origin nope:refs\/remotes\/origin\/nope`/);
    await expect(loadRevisionSources(file, ['main', 'HEAD'], { fetchMissing: { remote: '--upload-pack=x' } })).rejects.toThrow("'--upload-pack=x' is not a remote name.");
  });
});
