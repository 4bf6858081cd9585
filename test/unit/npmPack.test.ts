/**
 * The CLI as a user installs it: `npm pack` of this repository (after `npm run build`), the tarball
 * installed globally into a fresh prefix with no registry (it has no dependencies), and the installed
 * `prompt-insight` run: --help, and tokens on a Prompty and a Dotprompt file (the latter rendered in
 * the packaged Handlebars process, so the workers and rank files must be in the package).
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, realpathSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const npm = (args: string[], cwd: string) => execFileSync('npm', args, { cwd, encoding: 'utf8', env: { ...process.env, npm_config_update_notifier: 'false' } });

describe('npm pack', () => {
  it('installs a working prompt-insight with only what it runs', { timeout: 180_000 }, () => {
    const dir = realpathSync(mkdtempSync(join(tmpdir(), 'pi-pack-')));
    const [packed] = JSON.parse(npm(['pack', resolve('.'), '--json', '--pack-destination', dir], dir)) as { filename: string; files: { path: string }[] }[];
    const paths = packed!.files.map((f) => f.path);
    expect(paths).toEqual(expect.arrayContaining(['package.json', 'README.md', 'LICENSE', 'dist/cli.js', 'dist/renderHandlebars.js', 'dist/renderInterpreted.js', 'dist/o200k_base.ranks', 'dist/bpe.wasm']));
    expect(paths.filter((p) => !p.startsWith('dist/') && !['package.json', 'README.md', 'LICENSE'].includes(p))).toEqual([]);
    expect(paths.filter((p) => p.endsWith('.map'))).toEqual([]);

    const prefix = join(dir, 'prefix');
    npm(['install', '--global', '--prefix', prefix, '--offline', '--no-audit', '--no-fund', join(dir, packed!.filename)], dir);
    const bin = join(prefix, 'bin', 'prompt-insight');
    const run = (...args: string[]) => execFileSync(bin, args, { cwd: dir, encoding: 'utf8' });
    expect(run('--help')).toMatch(/^ {2}tokens +token counts/m);
    expect(run('--version')).toBe(`prompt-insight ${JSON.parse(npm(['pkg', 'get', 'version'], resolve('.')))}\n`);
    expect(run('tokens', resolve('examples/homes/homes.prompty'))).toMatch(/homes-assistant: 103 tokens · gpt-4o-mini · o200k_base exact/);
    const dotprompt = JSON.parse(run('tokens', resolve('examples/homes/homes.prompt'), '--json', '--rendered')).files[0].prompts[0];
    expect(dotprompt.tokens.messages.map((m: { role: string }) => m.role)).toEqual(['system', 'user']);
    expect(dotprompt.tokens.messages[1].content).not.toContain('{{');
  });
});
