/**
 * Repositories built to attack: configuration that runs programs, hooks that hang, names git
 * quotes, subjects that forge rows. Each attack is first shown to work on plain git, so the test
 * proves the defence rather than an attack that never fires.
 */
import { execFile, spawnSync } from 'node:child_process';
import { chmodSync, existsSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { loadRevisionSources } from '../../../src/core/compare/revisionSources';
import { contentsAt, fileHistory } from '../../../src/core/history/fileHistory';
import { gitBytes } from '../../../src/core/history/git';
import { TestRepo } from '../../fixtures/gitRepo';

const CLI = resolve('dist/cli.js');
function cli(args: string[], cwd: string): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((done) =>
    execFile(process.execPath, [CLI, ...args], { cwd, timeout: 20_000 }, (error, stdout, stderr) => done({ code: error ? Number((error as { code: number }).code) : 0, stdout, stderr })),
  );
}

/** A script that leaves a marker file when it runs (and, with `hang`, then waits on its stdin forever). */
function markerScript(repo: TestRepo, name: string, hang = false): { script: string; marker: string } {
  const marker = join(repo.root, `${name}.ran`);
  const script = join(repo.root, `${name}.sh`);
  writeFileSync(script, `#!/bin/sh\ntouch '${marker}'\n${hang ? 'cat > /dev/null\nsleep 600\n' : ''}exit 0\n`);
  chmodSync(script, 0o755);
  return { script, marker };
}

/** Rewrites HEAD into a commit that carries a (fake) gpgsig header, as a signed commit does. */
function signHead(repo: TestRepo): string {
  const body = repo.git('cat-file', 'commit', 'HEAD');
  const signed = body.replace(/(\ncommitter [^\n]*\n)/, '$1gpgsig -----BEGIN PGP SIGNATURE-----\n \n iQEzBAABCAAdFiEE\n -----END PGP SIGNATURE-----\n');
  const id = spawnSync('git', ['hash-object', '-t', 'commit', '-w', '--stdin'], { cwd: repo.root, input: signed, encoding: 'utf8' }).stdout.trim();
  repo.git('update-ref', 'HEAD', id);
  return id;
}

const savedEnv = { ...process.env };
afterEach(() => {
  for (const name of Object.keys(process.env)) if (!(name in savedEnv)) delete process.env[name];
  Object.assign(process.env, savedEnv);
});

describe('git on a hostile repository', () => {
  it('log.showSignature + gpg.program: history, compare and the CLI never run the program', async () => {
    const repo = new TestRepo();
    repo.commit('A', { 'p.prompty': 'v1\n' });
    repo.commit('B', { 'p.prompty': 'v2\n' });
    const signed = signHead(repo);
    const { script, marker } = markerScript(repo, 'gpg');
    repo.git('config', 'log.showSignature', 'true');
    repo.git('config', 'gpg.program', script);
    // The attack is real: plain git runs it.
    spawnSync('git', ['log', '-1', '--format=%H'], { cwd: repo.root });
    expect(existsSync(marker)).toBe(true);
    repo.remove('gpg.ran');

    const history = await fileHistory(join(repo.root, 'p.prompty'));
    expect(history.revisions[0]!.rev).toBe(signed);
    await loadRevisionSources(join(repo.root, 'p.prompty'), ['HEAD~1', 'HEAD']);
    const out = await cli(['history', 'p.prompty'], repo.root);
    expect(out.code).toBe(0);
    expect(existsSync(marker)).toBe(false);
  });

  it('core.fsmonitor that reads stdin: an untracked file is reported at once, the hook never runs', async () => {
    const repo = new TestRepo();
    repo.commit('first', { 'a.prompty': 'a\n' });
    const { script, marker } = markerScript(repo, 'fsmonitor', true);
    repo.git('config', 'core.fsmonitor', script);
    repo.write('new.prompty', 'untracked\n');
    spawnSync('git', ['ls-files', '--', 'new.prompty'], { cwd: repo.root, timeout: 3000 });
    expect(existsSync(marker)).toBe(true);
    repo.remove('fsmonitor.ran');

    const started = Date.now();
    await expect(fileHistory(join(repo.root, 'new.prompty'))).rejects.toMatchObject({ kind: 'untracked' });
    expect(Date.now() - started).toBeLessThan(10_000);
    expect(existsSync(marker)).toBe(false);
  });

  it('a git call that hangs is stopped by its time limit and by cancel', async () => {
    const repo = new TestRepo();
    repo.commit('first', { 'a.prompty': 'a\n' });
    const { script } = markerScript(repo, 'hang', true);
    repo.write('new.prompty', 'x\n');
    // A later -c wins over ours: this call deliberately runs the hanging hook.
    const hanging = ['-c', `core.fsmonitor=${script}`, 'ls-files'];
    const started = Date.now();
    await expect(gitBytes(repo.root, hanging, { timeoutMs: 400 })).rejects.toMatchObject({ kind: 'timeout' });
    expect(Date.now() - started).toBeLessThan(5000);
    const controller = new AbortController();
    const pending = gitBytes(repo.root, hanging, { signal: controller.signal });
    setTimeout(() => controller.abort(), 200);
    await expect(pending).rejects.toMatchObject({ kind: 'cancelled' });
    expect(Date.now() - started).toBeLessThan(8000);
  });

  it('inherited GIT_* variables cannot redirect git or inject configuration', async () => {
    const repo = new TestRepo();
    repo.commit('mine', { 'p.prompty': 'mine\n' });
    const other = new TestRepo();
    other.commit('theirs', { 'p.prompty': 'theirs\n' });
    const { script, marker } = markerScript(repo, 'injected');
    process.env.GIT_DIR = join(other.root, '.git');
    process.env.GIT_CONFIG_COUNT = '2';
    process.env.GIT_CONFIG_KEY_0 = 'log.showSignature';
    process.env.GIT_CONFIG_VALUE_0 = 'true';
    process.env.GIT_CONFIG_KEY_1 = 'gpg.program';
    process.env.GIT_CONFIG_VALUE_1 = script;
    signHead(repo);
    const history = await fileHistory(join(repo.root, 'p.prompty'));
    expect(history.revisions.map((r) => r.subject)).toEqual(['mine']);
    expect(existsSync(marker)).toBe(false);
  });

  it('file names git would quote: Chinese, emoji, tab, newline, quotes, a glob character', async () => {
    const names = ['房产助手.prompty', 'home 🏠.prompty', 'tab\there.prompty', 'new\nline.prompty', 'quote"s\'.prompty', 'star*.prompty'];
    const repo = new TestRepo();
    for (const name of names) repo.commit(`add ${name}`, { [`prompts/${name}`]: `first ${name}\n` });
    repo.commit('decoy matched by the glob', { 'prompts/starX.prompty': 'decoy\n' });
    for (const name of names) repo.commit(`edit ${name}`, { [`prompts/${name}`]: `second ${name}\n` });
    for (const name of names) {
      const file = join(repo.root, 'prompts', name);
      const history = await fileHistory(file);
      expect(history.path).toBe(`prompts/${name}`);
      // git folds a subject's line breaks into spaces; a tab left in it is shown as U+FFFD.
      const shown = (subject: string): string => subject.replace(/\n/g, ' ').replace(/\t/g, '\ufffd');
      expect(history.revisions.map((r) => r.subject)).toEqual([shown(`edit ${name}`), shown(`add ${name}`)]);
      const contents = await contentsAt(history.repoRoot, history.revisions);
      expect(contents).toEqual([{ ok: true, text: `second ${name}\n` }, { ok: true, text: `first ${name}\n` }]);
      const { sources } = await loadRevisionSources(file, ['HEAD']);
      expect(sources[0]!.text).toBe(`second ${name}\n`);
    }
    const out = await cli(['compare', 'prompts/房产助手.prompty', '--base', 'HEAD~1', '--head', 'HEAD', '--endpoint', 'http://127.0.0.1:9/v1', '--runs', '1', '--no-store'], repo.root);
    expect(out.stderr).not.toContain('does not exist');
  });

  it('control characters in subjects and authors neither forge rows nor reach the terminal', async () => {
    const repo = new TestRepo();
    repo.commit('honest', { 'p.prompty': 'v1\n' });
    const forged = 'x\u001e0000000000000000000000000000000000000000\u001f2020-01-01\u001fmallory\u001f\u001fforged row';
    repo.commit(`${forged}\u001b[2J\u001b]0;owned\u0007`, { 'p.prompty': 'v2\n' });
    const history = await fileHistory(join(repo.root, 'p.prompty'));
    expect(history.revisions).toHaveLength(2);
    expect(history.revisions[0]!.subject).not.toMatch(/[\u0000-\u001f\u007f-\u009f]/);
    const out = await cli(['history', 'p.prompty'], repo.root);
    expect(out.stdout.trim().split('\n')).toHaveLength(2);
    expect(out.stdout).not.toMatch(/[\u0000-\u0009\u000b-\u001f\u007f-\u009f]/);
  });
});
