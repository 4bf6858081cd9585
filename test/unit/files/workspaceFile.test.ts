/**
 * Files a repository names are read only as regular files inside the workspace, never under `.git`,
 * size-capped before reading, and a FIFO never blocks: real files, links, FIFOs and devices built here.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, realpathSync, symlinkSync, truncateSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadTestSuite } from '../../../src/core/adherence/testCases';
import {
  findWorkspaceRoot, readPromptFile, readTestsFileSync, readUserFile, readWorkspaceFile, readWorkspaceFileSync, WorkspaceFileError, type WorkspaceFileErrorKind,
} from '../../../src/core/files/workspaceFile';
import { parsePromptFile } from '../../../src/core/formats/detect';
import { runIsolated } from './isolated';

const SECRET = 'https://ci:FAKE-CREDENTIAL-5d1e@github.com';

/** A git repository with a prompt and a fake CI token in .git/config, and a credentials file outside it. */
function fixture() {
  const top = realpathSync(mkdtempSync(join(tmpdir(), 'pi-wsf-')));
  const repo = join(top, 'repo');
  const outside = join(top, 'elsewhere');
  mkdirSync(join(repo, 'prompts'), { recursive: true });
  mkdirSync(join(repo, 'data'));
  mkdirSync(outside);
  execFileSync('git', ['init', '-q', repo]);
  execFileSync('git', ['-C', repo, 'config', 'http.https://github.com/.extraheader', 'AUTHORIZATION: basic FAKE-EXTRAHEADER-TOKEN']);
  writeFileSync(join(outside, '.git-credentials'), SECRET);
  writeFileSync(join(repo, 'data', 'facts.json'), '{"city": "Bellevue"}');
  return { top, repo, outside };
}

async function refusal(read: () => unknown): Promise<WorkspaceFileError> {
  try {
    await read();
  } catch (error) {
    if (error instanceof WorkspaceFileError) return error;
    throw error;
  }
  throw new Error('the read was not refused');
}

const both = (file: string, root: string, maxBytes = 1024 * 1024) => [
  () => readWorkspaceFileSync(file, { root, maxBytes, what: 'referenced files' }),
  () => readWorkspaceFile(file, { root, maxBytes, what: 'referenced files' }),
];

async function expectRefused(file: string, root: string, kind: WorkspaceFileErrorKind, maxBytes?: number): Promise<WorkspaceFileError> {
  let last: WorkspaceFileError | undefined;
  for (const read of both(file, root, maxBytes)) {
    last = await refusal(read);
    expect(last.kind).toBe(kind);
    expect(last.message).not.toContain('FAKE-');
  }
  return last!;
}

describe('the workspace a file belongs to', () => {
  it('the git top level (a .git folder or a .git file), from any depth', () => {
    const { repo, top } = fixture();
    expect(findWorkspaceRoot(join(repo, 'prompts', 'p.prompty'))).toBe(repo);
    const worktree = join(top, 'worktree');
    mkdirSync(join(worktree, 'deep'), { recursive: true });
    writeFileSync(join(worktree, '.git'), 'gitdir: /somewhere/else\n');
    expect(findWorkspaceRoot(join(worktree, 'deep', 'p.prompty'))).toBe(worktree);
  });

  it('editor: the deepest workspace folder holding the file; outside every folder, git, else the file\'s folder (never the process directory)', () => {
    const { repo, top } = fixture();
    const file = join(repo, 'prompts', 'p.prompty');
    expect(findWorkspaceRoot(file, { workspaceFolders: [top, join(repo, 'prompts'), '/unrelated'] })).toBe(join(repo, 'prompts'));
    expect(findWorkspaceRoot(file, { workspaceFolders: ['/unrelated'] })).toBe(repo);
    const loose = join(top, 'loose', 'p.prompty');
    mkdirSync(join(top, 'loose'));
    expect(findWorkspaceRoot(loose, { workspaceFolders: [], cwd: top })).toBe(join(top, 'loose'));
  });

  it('CLI outside git: the current directory when it holds the file, else the file\'s folder', () => {
    const { top } = fixture();
    const file = join(top, 'loose', 'sub', 'p.prompty');
    expect(findWorkspaceRoot(file, { cwd: join(top, 'loose') })).toBe(join(top, 'loose'));
    expect(findWorkspaceRoot(file, { cwd: '/nowhere/else' })).toBe(join(top, 'loose', 'sub'));
  });

  it('a candidate that holds the home directory (a dotfiles repository at ~, or / as the current directory) is never the root', () => {
    const { top } = fixture();
    const home = join(top, 'home');
    mkdirSync(join(home, 'Downloads', 'x'), { recursive: true });
    execFileSync('git', ['init', '-q', home]); // ~ itself is a git repository
    const saved = process.env.HOME;
    process.env.HOME = home;
    try {
      const file = join(home, 'Downloads', 'x', 'p.prompty');
      expect(findWorkspaceRoot(file, { cwd: home })).toBe(join(home, 'Downloads', 'x'));
      expect(findWorkspaceRoot(file, { cwd: '/' })).toBe(join(home, 'Downloads', 'x'));
      expect(findWorkspaceRoot(file, { workspaceFolders: [home] })).toBe(join(home, 'Downloads', 'x'));
    } finally {
      process.env.HOME = saved;
    }
  });
});

describe('reading a file a repository names', () => {
  it('a regular file inside the workspace is read, also through a link to another workspace file', async () => {
    const { repo } = fixture();
    symlinkSync('../data/facts.json', join(repo, 'prompts', 'facts.json'));
    for (const read of both(join(repo, 'prompts', 'facts.json'), repo)) expect(String(await read())).toBe('{"city": "Bellevue"}');
  });

  it('a link to a credentials file outside the workspace is refused and its content never read', async () => {
    const { repo, outside } = fixture();
    symlinkSync(join(outside, '.git-credentials'), join(repo, 'prompts', 'p.prompty'));
    const error = await expectRefused(join(repo, 'prompts', 'p.prompty'), repo, 'outside-workspace');
    expect(error.message).toContain('leads outside the workspace');
    expect(error.message).not.toContain(SECRET);
    await expect(readPromptFile(join(repo, 'prompts', 'p.prompty'))).rejects.toMatchObject({ kind: 'outside-workspace' });
  });

  it('nothing under .git is read: by name, by a link into it, in any letter case', async () => {
    const { repo } = fixture();
    symlinkSync('../.git/config', join(repo, 'prompts', 'config.json'));
    await expectRefused(join(repo, '.git', 'config'), repo, 'git-internal');
    await expectRefused(join(repo, 'prompts', 'config.json'), repo, 'git-internal');
    mkdirSync(join(repo, 'sub', '.GIT'), { recursive: true });
    writeFileSync(join(repo, 'sub', '.GIT', 'x'), 'FAKE-x');
    const error = await expectRefused(join(repo, 'sub', '.GIT', 'x'), repo, 'git-internal');
    expect(error.message).toMatch(/inside a \.git folder.*never read/);
  });

  it('a committed link to /dev/zero is refused at once (outside the workspace; and a device wherever it is allowed)', async () => {
    const { repo } = fixture();
    symlinkSync('/dev/zero', join(repo, 'zero.prompty'));
    const started = performance.now();
    await expectRefused(join(repo, 'zero.prompty'), repo, 'outside-workspace');
    await expect(readUserFile('/dev/zero', 1024, 'simulator scenarios')).rejects.toMatchObject({ kind: 'not-regular', message: expect.stringContaining('a device') });
    expect(performance.now() - started).toBeLessThan(1000);
  });

  it('a file over the cap is refused from its size, before a byte is read (a 4 GiB sparse file in milliseconds)', async () => {
    const { repo } = fixture();
    const huge = join(repo, 'huge.json');
    writeFileSync(huge, '');
    truncateSync(huge, 4 * 1024 ** 3);
    const started = performance.now();
    const error = await expectRefused(huge, repo, 'too-large');
    expect(error.message).toContain(`is ${4 * 1024 ** 3} bytes, over the 1048576-byte limit for referenced files`);
    expect(performance.now() - started).toBeLessThan(500);
    writeFileSync(join(repo, 'ten.txt'), '0123456789');
    for (const read of both(join(repo, 'ten.txt'), repo, 10)) expect(String(await read())).toBe('0123456789');
    await expectRefused(join(repo, 'ten.txt'), repo, 'too-large', 9);
  });

  it('folders, missing files and links to nothing are refused with their own kinds', async () => {
    const { repo } = fixture();
    symlinkSync(join(repo, 'gone.json'), join(repo, 'dangling.json'));
    await expectRefused(join(repo, 'data'), repo, 'not-regular');
    await expectRefused(join(repo, 'missing.json'), repo, 'not-found');
    await expectRefused(join(repo, 'dangling.json'), repo, 'not-found');
  });

  it('a FIFO is refused at once, sync and async, instead of blocking (checked in a child process with a timeout)', () => {
    const { repo } = fixture();
    const fifo = join(repo, 'pipe.json');
    execFileSync('mkfifo', [fifo]);
    const result = runIsolated(`
      import { readWorkspaceFileSync, readWorkspaceFile } from './src/core/files/workspaceFile';
      const options = { root: ${JSON.stringify(repo)}, maxBytes: 1024, what: 'referenced files' };
      try { readWorkspaceFileSync(${JSON.stringify(fifo)}, options); console.log('read'); } catch (e) { console.log((e as { kind: string }).kind); }
      readWorkspaceFile(${JSON.stringify(fifo)}, options).then(() => console.log('read'), (e) => console.log(e.kind));
    `, 5000);
    expect(result.timedOut).toBe(false);
    expect(result.stdout.trim().split('\n')).toEqual(['not-regular', 'not-regular']);
  });
});

describe('tests sidecars', () => {
  const promptText = '---\nname: homes\nmodel: gpt-4o\n---\nuser:\nFind homes\n';

  it('a sidecar that is a link out of the workspace is a problem, not test cases; an absent one is "no test cases"', () => {
    const { repo, outside } = fixture();
    writeFileSync(join(outside, 'creds.yaml'), `tests:\n  - vars: { leak: "${SECRET}" }\n    assert: [{ type: contains, value: x }]\n`);
    const file = join(repo, 'prompts', 'homes.prompty');
    writeFileSync(file, promptText);
    const doc = parsePromptFile(file, promptText);
    expect(readTestsFileSync(join(repo, 'prompts', 'homes.tests.yaml'))).toBeUndefined();
    expect(loadTestSuite(file, promptText, doc.format, doc.prompts[0]!).problems[0]).toContain('No test cases');
    symlinkSync(join(outside, 'creds.yaml'), join(repo, 'prompts', 'homes.tests.yaml'));
    const suite = loadTestSuite(file, promptText, doc.format, doc.prompts[0]!);
    expect(suite.cases).toEqual([]);
    expect(suite.problems[0]).toMatch(/homes\.tests\.yaml is not read: .*leads outside the workspace/);
    expect(JSON.stringify(suite)).not.toContain('FAKE-CREDENTIAL');
  });

  it('a sidecar that is a FIFO is a problem at once, not a hang (child process with a timeout)', () => {
    const { repo } = fixture();
    const file = join(repo, 'homes.prompty');
    writeFileSync(file, promptText);
    execFileSync('mkfifo', [join(repo, 'homes.tests.yaml')]);
    const result = runIsolated(`
      import { loadTestSuite } from './src/core/adherence/testCases';
      import { parsePromptFile } from './src/core/formats/detect';
      const text = ${JSON.stringify(promptText)};
      const doc = parsePromptFile(${JSON.stringify(file)}, text);
      console.log(JSON.stringify(loadTestSuite(${JSON.stringify(file)}, text, doc.format, doc.prompts[0]!).problems));
    `, 5000);
    expect(result.timedOut).toBe(false);
    expect(JSON.parse(result.stdout)[0]).toContain('FIFO');
  });
});
