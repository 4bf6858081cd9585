import { execFile } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { get_encoding } from 'tiktoken';
import { beforeAll, describe, expect, it } from 'vitest';

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
    expect((await cli('--help')).stdout).toContain('prompt-insight tokens FILE...');
  });
});
