/**
 * A fetch on a repository whose configuration was written to attack (a clone or an unpacked archive
 * carries its own .git/config): every setting below makes plain `git fetch` run a program — shown
 * first — and compare's fetch (--fetch) neither runs it nor fails because of it, except where the
 * transport itself is the attack (ext::), which is refused. Also the lazy fetch of a partial clone,
 * which reading a missing object triggers without any fetch being asked for.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadRevisionSources } from '../../../src/core/compare/revisionSources';
import { contentsAt } from '../../../src/core/history/fileHistory';
import { TestRepo } from '../../fixtures/gitRepo';
import { shallowCheckout } from '../../fixtures/shallowCheckout';

function marker(dir: string, name: string): { script: string; marker: string } {
  const markerFile = join(dir, `${name}.ran`);
  const script = join(dir, `${name}.sh`);
  writeFileSync(script, `#!/bin/sh\ntouch '${markerFile}'\nexec git-upload-pack "$@"\n`);
  chmodSync(script, 0o755);
  return { script, marker: markerFile };
}

const plainGit = (cwd: string, ...args: string[]) => spawnSync('git', ['-c', 'protocol.file.allow=always', ...args], { cwd, encoding: 'utf8', timeout: 20_000 });

describe("compare's fetch on a hostile repository", () => {
  it('remote.origin.uploadpack, core.alternateRefsCommand and a reference-transaction hook: plain git runs each, --fetch none', async () => {
    const { clone, baseSha } = shallowCheckout({ base: { 'p.prompty': 'user:\nA\n' }, head: { 'p.prompty': 'user:\nB\n' } });
    const top = join(clone, '..');
    const upload = marker(top, 'uploadpack');
    const alternates = marker(top, 'alternates');
    const hook = marker(top, 'hook');
    const other = new TestRepo();
    other.commit('other', { 'x.txt': 'x\n' });
    execFileSync('git', ['config', 'remote.origin.uploadpack', upload.script], { cwd: clone });
    writeFileSync(join(clone, '.git/objects/info/alternates'), `${join(other.root, '.git/objects')}\n`);
    execFileSync('git', ['config', 'core.alternateRefsCommand', alternates.script], { cwd: clone });
    mkdirSync(join(clone, '.git/hooks'), { recursive: true });
    writeFileSync(join(clone, '.git/hooks/reference-transaction'), `#!/bin/sh\ntouch '${hook.marker}'\n`);
    chmodSync(join(clone, '.git/hooks/reference-transaction'), 0o755);

    // The attacks are real: a plain fetch of another branch of origin runs all three.
    plainGit(clone, 'fetch', '-q', 'origin', '+refs/heads/main:refs/remotes/origin/probe');
    for (const m of [upload.marker, alternates.marker, hook.marker]) expect(existsSync(m), m).toBe(true);
    execFileSync('git', ['update-ref', '-d', 'refs/remotes/origin/probe'], { cwd: clone });
    for (const m of [upload.marker, alternates.marker, hook.marker]) rmSync(m);

    const { sources } = await loadRevisionSources(join(clone, 'p.prompty'), ['origin/main', 'HEAD'], { fetchMissing: { remote: 'origin' } });
    expect(sources[0]!.rev).toBe(baseSha);
    for (const m of [upload.marker, alternates.marker, hook.marker]) expect(existsSync(m), m).toBe(false);
  });

  it('an ext:: remote enabled by the repository (protocol.ext.allow) is refused, its command never runs', async () => {
    const { clone, baseSha } = shallowCheckout({ base: { 'p.prompty': 'user:\nA\n' }, head: { 'p.prompty': 'user:\nB\n' } });
    const ran = join(clone, '..', 'ext.ran');
    execFileSync('git', ['config', 'remote.evil.url', `ext::sh -c touch% ${ran}`], { cwd: clone });
    execFileSync('git', ['config', 'protocol.ext.allow', 'always'], { cwd: clone });
    plainGit(clone, 'fetch', '-q', 'evil', baseSha);
    expect(existsSync(ran)).toBe(true);
    rmSync(ran);
    await expect(loadRevisionSources(join(clone, 'p.prompty'), [baseSha, 'HEAD'], { fetchMissing: { remote: 'evil' } })).rejects.toThrow(/Fetching .* from evil failed \(fatal: transport 'ext' not allowed\)/);
    expect(existsSync(ran)).toBe(false);
  });

  it("a partial clone whose promisor remote is ext::: reading a missing object never runs it (protocol.allow=never alone did)", async () => {
    const repo = new TestRepo();
    const rev = repo.commit('a', { 'p.prompty': 'user:\nA\n' });
    const blob = repo.git('rev-parse', 'HEAD:p.prompty').trim();
    rmSync(join(repo.root, '.git/objects', blob.slice(0, 2), blob.slice(2)));
    const ran = join(repo.root, '..', `${blob}.ran`);
    for (const [key, value] of [['core.repositoryformatversion', '1'], ['extensions.partialClone', 'origin'], ['remote.origin.url', `ext::sh -c touch% ${ran}`], ['remote.origin.promisor', 'true'], ['protocol.ext.allow', 'always']]) repo.git('config', key!, value!);
    spawnSync('git', ['-c', 'protocol.allow=never', 'cat-file', '-p', blob], { cwd: repo.root, timeout: 20_000 });
    expect(existsSync(ran)).toBe(true);
    rmSync(ran);
    const [content] = await contentsAt(repo.root, [{ rev, path: 'p.prompty' }]);
    // However git's batch process ended (it answers "missing", or the refused fetch kills it with SIGPIPE), one outcome.
    expect(content).toEqual({ ok: false, reason: `p.prompty at ${rev.slice(0, 8)} could not be read: fatal: transport 'ext' not allowed` });
    expect(existsSync(ran)).toBe(false);
  });
});
