/**
 * The results store's folder in a user's repository: `.prompt-insight/` is created with a .gitignore
 * inside (`*`), so `git status` stays clean without editing the project's own .gitignore, and the CLI
 * says so once — when it creates the folder. A folder the user chose, or one that already exists, is
 * left as it is. The built CLI against the simulator, in a real git repository.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSim, type RunningSim } from '../../src/core/sim/simServer';
import { runCli } from '../fixtures/cli';
import { TestRepo } from '../fixtures/gitRepo';

let sim: RunningSim;
beforeAll(async () => {
  sim = await startSim({ ttftBaseMs: 5, decodeMsPerToken: 0.1, jitterMs: 0 });
});
afterAll(async () => sim.close());

const PROMPT = '---\nname: p\nmodel: gpt-4o-mini\n---\nuser:\nSay hello.\n';

describe('the results store folder', () => {
  it('is created with a .gitignore of its own, said once; git status stays clean', async () => {
    const repo = new TestRepo();
    repo.commit('prompt', { 'p.prompty': PROMPT });
    const first = await runCli(['run', 'p.prompty', '--endpoint', sim.url, '--runs', '2'], repo.root);
    expect(first.code).toBe(0);
    expect(first.stderr.match(/created \.prompt-insight\/ for the results store, with a \.gitignore inside that keeps it out of git/g)).toHaveLength(1);
    expect(readFileSync(join(repo.root, '.prompt-insight/.gitignore'), 'utf8')).toMatch(/^\*$/m);
    expect(existsSync(join(repo.root, '.prompt-insight/runs.jsonl'))).toBe(true);
    expect(execFileSync('git', ['status', '--porcelain'], { cwd: repo.root, encoding: 'utf8' })).toBe('');
    const second = await runCli(['run', 'p.prompty', '--endpoint', sim.url, '--runs', '1'], repo.root);
    expect(second.stderr).not.toContain('created .prompt-insight');
  });

  it('a folder the user chose, or one that exists, gets no .gitignore', async () => {
    const repo = new TestRepo();
    repo.commit('prompt', { 'p.prompty': PROMPT });
    await runCli(['run', 'p.prompty', '--endpoint', sim.url, '--runs', '1', '--store', 'results/runs.jsonl'], repo.root);
    expect(existsSync(join(repo.root, 'results/runs.jsonl'))).toBe(true);
    expect(existsSync(join(repo.root, 'results/.gitignore'))).toBe(false);
    mkdirSync(join(repo.root, '.prompt-insight'));
    writeFileSync(join(repo.root, '.prompt-insight/notes.txt'), 'mine\n');
    const run = await runCli(['run', 'p.prompty', '--endpoint', sim.url, '--runs', '1'], repo.root);
    expect(run.stderr).not.toContain('created .prompt-insight');
    expect(existsSync(join(repo.root, '.prompt-insight/.gitignore'))).toBe(false);
  });
});
