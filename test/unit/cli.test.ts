import { execFile, execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, realpathSync, symlinkSync, truncateSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { get_encoding } from 'tiktoken';
import { beforeAll, describe, expect, it } from 'vitest';
import { delta, DONE, scriptedServer, usage } from '../fixtures/scriptedServer';

const run = promisify(execFile);
const CLI = resolve('dist/cli.js');
const o200k = get_encoding('o200k_base');
const oracle = (text: string) => o200k.encode_ordinary(text).length;

async function cli(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await run(process.execPath, [CLI, ...args]);
    return { code: 0, stdout, stderr };
  } catch (error) {
    const e = error as { code: number; stdout: string; stderr: string };
    return { code: e.code, stdout: e.stdout, stderr: e.stderr };
  }
}

let dir: string;
beforeAll(async () => {
  // The suite runs against the built bundle, as users run it; `npm test` builds first.
  dir = mkdtempSync(join(tmpdir(), 'pi-cli-'));
});

describe('prompt-insight tokens', () => {
  it('prints the documented JSON for every format', async () => {
    const files = ['homes.prompty', 'homes.prompt.yml', 'homes.prompt', 'homes.prompt.md', 'homes.prompt.txt'].map((f) => `examples/homes/${f}`);
    const { code, stdout } = await cli('tokens', ...files, '--json');
    expect(code).toBe(0);
    const json = JSON.parse(stdout);
    expect(json.files.map((f: { format: string }) => f.format)).toEqual(['prompty', 'github-prompt-yaml', 'dotprompt', 'vscode-prompt-md', 'text']);
    for (const file of json.files) {
      const [prompt] = file.prompts;
      expect(prompt).toMatchObject({ name: expect.any(String), model: expect.any(String), encoding: 'o200k_base', exact: true });
      expect(prompt.range.start).toEqual({ line: 0, character: 0 });
      const content = prompt.tokens.messages.reduce((s: number, m: { tokens: number }) => s + m.tokens, 0);
      expect(prompt.tokens.total).toBe(content + prompt.tokens.overhead);
      expect(prompt.tokens.messages.every((m: { role: string; tokens: number }) => typeof m.role === 'string' && m.tokens > 0)).toBe(true);
    }
    const text = json.files[4];
    expect(text.prompts[0].tokens.messages[0].tokens).toBe(oracle(`${(await import('node:fs')).readFileSync('examples/homes/homes.prompt.txt', 'utf8').trim()}`));
  });

  it('--encoding forces an encoding and makes the count exact for it', async () => {
    const file = join(dir, 'claude.prompt');
    writeFileSync(file, '---\nmodel: anthropic/claude-sonnet-4\ninput: {}\n---\nBonjour tout le monde');
    const estimate = JSON.parse((await cli('tokens', file, '--json')).stdout).files[0].prompts[0];
    expect(estimate).toMatchObject({ exact: false, encoding: 'o200k_base' });
    const forced = JSON.parse((await cli('tokens', file, '--json', '--encoding', 'cl100k_base')).stdout).files[0].prompts[0];
    expect(forced).toMatchObject({ exact: true, encoding: 'cl100k_base' });
    const cl100k = get_encoding('cl100k_base');
    expect(forced.tokens.messages[0].tokens).toBe(cl100k.encode_ordinary('Bonjour tout le monde').length);
    cl100k.free();
  });

  it('prints a readable table by default', async () => {
    const { code, stdout } = await cli('tokens', 'examples/homes/homes.prompty');
    expect(code).toBe(0);
    expect(stdout).toMatch(/^examples\/homes\/homes\.prompty \(prompty\)\n  homes-assistant: \d+ tokens · gpt-4o-mini · o200k_base exact\n    system +\d+\n    user +\d+\n    overhead +\d+\n$/);
  });

  it('fails with a message on stderr for missing, binary and non-UTF-8 files, and still reports the good ones', async () => {
    const binary = join(dir, 'x.prompt.txt');
    writeFileSync(binary, Buffer.from([0x89, 0x50, 0x4e, 0x47, 0, 1, 2]));
    const latin1 = join(dir, 'l.prompt.txt');
    writeFileSync(latin1, Buffer.from([0x63, 0x61, 0x66, 0xe9]));
    const { code, stdout, stderr } = await cli('tokens', 'nope.prompty', binary, latin1, 'examples/homes/homes.prompt.txt', '--json');
    expect(code).toBe(1);
    expect(stderr).toContain('nope.prompty: no such file');
    expect(stderr).toContain('looks binary');
    expect(stderr).toContain('not valid UTF-8');
    expect(JSON.parse(stdout).files).toHaveLength(1);
  });

  it('exits 1 with located errors for a broken prompt file', async () => {
    const file = join(dir, 'broken.prompt.yml');
    writeFileSync(file, 'model: gpt-4o\nmessages:\n  - role: user\n    content: "open\n');
    const { code, stdout, stderr } = await cli('tokens', file, '--json');
    expect(code).toBe(1);
    expect(JSON.parse(stdout).files[0].diagnostics[0]).toMatchObject({ severity: 'error', code: 'parse-error' });
    expect(stderr).toMatch(/broken\.prompt\.yml:\d+:\d+: error: YAML/);
  });

  it('rejects bad usage with exit 2', async () => {
    expect((await cli('tokens')).code).toBe(2);
    expect((await cli('tokens', 'a', '--encoding', 'p50k')).stderr).toContain('--encoding must be one of o200k_base, cl100k_base');
    expect((await cli('tokens', 'a', '--bogus')).code).toBe(2);
    expect((await cli('frobnicate')).code).toBe(2);
    expect((await cli('--help')).stdout).toMatch(/^ {2}tokens +token counts/m);
  });
});

describe('files a repository names, through the CLI (issue 20)', () => {
  const CREDENTIAL = 'https://ci:FAKE-CREDENTIAL-9c2b@github.com';
  const TOKEN = 'FAKE-EXTRAHEADER-TOKEN-41d7';

  /** A checkout as CI makes it: a token in .git/config; a credentials file outside the repository. */
  function checkout() {
    const top = realpathSync(mkdtempSync(join(tmpdir(), 'pi-cli-files-')));
    const repo = join(top, 'repo');
    mkdirSync(join(top, 'home'), { recursive: true });
    execFileSync('git', ['init', '-q', repo]);
    execFileSync('git', ['-C', repo, 'config', 'http.https://github.com/.extraheader', `AUTHORIZATION: basic ${TOKEN}`]);
    writeFileSync(join(top, 'home', '.git-credentials'), CREDENTIAL);
    return { top, repo, credentials: join(top, 'home', '.git-credentials') };
  }

  /** The built CLI with a timeout (a blocked read fails the test, not the suite); `maxRssMb` from the process itself. */
  function cliIn(cwd: string, args: string[], timeoutMs = 15_000): Promise<{ code: number | null; stdout: string; stderr: string; timedOut: boolean; ms: number; maxRssMb: number }> {
    const preload = join(dir, 'report-rss.cjs');
    writeFileSync(preload, "process.on('exit', () => require('node:fs').writeSync(2, `\\nmaxRSS=${process.resourceUsage().maxRSS}\\n`));\n");
    const started = performance.now();
    return new Promise((done) => {
      execFile(process.execPath, ['-r', preload, CLI, ...args], { cwd, timeout: timeoutMs, killSignal: 'SIGKILL', maxBuffer: 64 * 1024 * 1024 }, (error, stdout, stderr) => {
        const rss = /maxRSS=(\d+)/.exec(stderr);
        done({ code: error ? ((error as { code?: number }).code ?? null) : 0, stdout, stderr: stderr.replace(/\nmaxRSS=\d+\n/, ''), timedOut: (error as { killed?: boolean } | null)?.killed === true, ms: performance.now() - started, maxRssMb: rss ? Number(rss[1]) / 1024 : NaN });
      });
    });
  }

  it('tokens --rendered: ${file:.git/config} is refused with the reason; the extraheader token is not printed', async () => {
    const { repo } = checkout();
    writeFileSync(join(repo, 'p.prompty'), '---\nname: p\nmodel: gpt-4o\nsample:\n  cfg: ${file:.git/config}\n---\nuser:\nConfig: {{cfg}}\n');
    const result = await cliIn(repo, ['tokens', '--json', '--rendered', 'p.prompty']);
    expect(result.stdout + result.stderr).not.toContain(TOKEN);
    expect(result.stdout + result.stderr).not.toContain('extraheader');
    const file = JSON.parse(result.stdout).files[0];
    expect(file.diagnostics.map((d: { message: string }) => d.message).join('\n')).toContain("'.git/config' is inside a .git folder");
  });

  it('run: ${file:.git/config} is not sent to the endpoint', async () => {
    const { repo } = checkout();
    writeFileSync(join(repo, 'p.prompty'), '---\nname: p\nmodel: gpt-4o\nsample:\n  cfg: ${file:.git/config}\n---\nuser:\nConfig: {{cfg}}\n');
    const server = await scriptedServer(() => ({ steps: [{ write: delta({ content: 'ok' }, 'stop') }, { write: usage(3, 1) }, { write: DONE }] }));
    try {
      const result = await cliIn(repo, ['run', 'p.prompty', '--endpoint', server.url, '--no-store', '--json']);
      expect(result.code).toBe(0);
      const chat = server.requests.find((r) => r.method === 'POST')!;
      expect(chat.body).toContain('Config: ${file:.git/config}');
      expect(server.requests.map((r) => r.body).join('\n')).not.toContain(TOKEN);
    } finally {
      await server.close();
    }
  });

  it('a committed prompt file that is a link to ~/.git-credentials is refused by tokens and run; nothing is printed or sent', async () => {
    const { repo, credentials } = checkout();
    symlinkSync(credentials, join(repo, 'notes.prompt.txt'));
    const tokens = await cliIn(repo, ['tokens', '--json', '--rendered', 'notes.prompt.txt']);
    expect(tokens.code).toBe(1);
    expect(tokens.stderr).toContain("'notes.prompt.txt' leads outside the workspace");
    expect(tokens.stdout + tokens.stderr).not.toContain('FAKE-CREDENTIAL');
    const server = await scriptedServer(() => ({ steps: [{ write: delta({ content: 'ok' }, 'stop') }, { write: DONE }] }));
    try {
      const run = await cliIn(repo, ['run', 'notes.prompt.txt', '--endpoint', server.url, '--model', 'gpt-4o', '--no-store']);
      expect(run.code).toBe(1);
      expect(run.stderr).toContain('leads outside the workspace');
      expect(server.requests).toEqual([]);
    } finally {
      await server.close();
    }
  });

  it('a committed link to /dev/zero is refused at once with memory bounded (it drove tokens past 600 MB)', async () => {
    const { repo } = checkout();
    symlinkSync('/dev/zero', join(repo, 'zero.prompty'));
    const result = await cliIn(repo, ['tokens', '--json', 'zero.prompty']);
    expect(result.timedOut).toBe(false);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain("'zero.prompty' leads outside the workspace");
    expect(result.maxRssMb).toBeLessThan(200);
    console.log(`tokens on a link to /dev/zero: ${Math.round(result.ms)} ms, max RSS ${Math.round(result.maxRssMb)} MB`);
  });

  it('a FIFO as the prompt file or as a ${file:} value is refused at once, never a hang', async () => {
    const { repo } = checkout();
    execFileSync('mkfifo', [join(repo, 'pipe.prompty')]);
    execFileSync('mkfifo', [join(repo, 'pipe.json')]);
    writeFileSync(join(repo, 'p.prompty'), '---\nname: p\nmodel: gpt-4o\nsample:\n  x: ${file:pipe.json}\n---\nuser:\nX: {{x}}\n');
    const result = await cliIn(repo, ['tokens', '--json', 'pipe.prompty', 'p.prompty'], 10_000);
    expect(result.timedOut).toBe(false);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain("'pipe.prompty' is a FIFO (named pipe), not a regular file");
    expect(JSON.parse(result.stdout).files[0].diagnostics[0].message).toContain("'pipe.json' is a FIFO");
  });

  it('a prompt file over 8 MB is refused from its size before reading (a 6 GiB sparse file)', async () => {
    const { repo } = checkout();
    writeFileSync(join(repo, 'huge.prompt.txt'), '');
    truncateSync(join(repo, 'huge.prompt.txt'), 6 * 1024 ** 3);
    const result = await cliIn(repo, ['tokens', 'huge.prompt.txt']);
    expect(result.stderr).toContain(`is ${6 * 1024 ** 3} bytes, over the 8388608-byte limit for prompt files`);
    expect(result.maxRssMb).toBeLessThan(200);
  });

  it('a link inside the repository to another file of it is read as usual', async () => {
    const { repo } = checkout();
    mkdirSync(join(repo, 'shared'));
    writeFileSync(join(repo, 'shared', 'base.prompt.txt'), 'You find single-family homes.');
    symlinkSync('shared/base.prompt.txt', join(repo, 'linked.prompt.txt'));
    const result = await cliIn(repo, ['tokens', '--json', '--rendered', 'linked.prompt.txt']);
    expect(result.code).toBe(0);
    expect(JSON.parse(result.stdout).files[0].prompts[0].tokens.messages[0].content).toBe('You find single-family homes.');
  });

  it('sim --scenario: a FIFO or a device is refused at once (the user\'s own file may be anywhere, but is bounded)', async () => {
    const { repo } = checkout();
    execFileSync('mkfifo', [join(repo, 'scenario.yaml')]);
    for (const scenario of [join(repo, 'scenario.yaml'), '/dev/zero']) {
      const result = await cliIn(repo, ['sim', '--scenario', scenario], 10_000);
      expect(result.timedOut).toBe(false);
      expect(result.code).toBe(1);
      expect(result.stderr).toMatch(/is a (FIFO|device)/);
    }
  });
});
