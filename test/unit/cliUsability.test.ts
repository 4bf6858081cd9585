/**
 * The CLI as a CI user meets it (issue 21): help for every command, --version, the providers and
 * exit codes it documents, --budget as a gate, --model winning over the file, sidecars skipped in a
 * glob, a reader that closes the pipe early, an export with no store. Every case runs the built
 * binary (`node dist/cli.js`) as a child process; `npm test` builds first.
 */
import { execFile, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { get_encoding } from 'tiktoken';
import { describe, expect, it } from 'vitest';
import { ResultsStore, type NewRun } from '../../src/core/store/resultsStore';
import { runKeyOf } from '../../src/core/store/runKey';

const CLI = resolve('dist/cli.js');
const COMMANDS = ['tokens', 'run', 'sim', 'export', 'history', 'compare'];

function cli(args: string[], cwd = process.cwd()): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((done) =>
    execFile(process.execPath, [CLI, ...args], { cwd, maxBuffer: 64 * 1024 * 1024 }, (error, stdout, stderr) => done({ code: error ? Number((error as { code: number }).code) : 0, stdout, stderr })),
  );
}

/** Runs the CLI with a reader that takes the first chunk of stdout and closes the pipe, as `| head -c N` does. */
function cliIntoClosedPipe(args: string[], cwd = process.cwd()): Promise<{ code: number | null; firstChunk: string; stderr: string }> {
  return new Promise((done) => {
    const child = spawn(process.execPath, [CLI, ...args], { cwd, stdio: ['ignore', 'pipe', 'pipe'] });
    let firstChunk = '';
    let stderr = '';
    child.stdout.once('data', (chunk: Buffer) => {
      firstChunk = chunk.toString('utf8');
      child.stdout.destroy();
    });
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
    child.on('close', (code) => done({ code, firstChunk, stderr }));
  });
}

describe('help and version', () => {
  it.each(COMMANDS)('%s --help prints that command\'s usage and exits 0', async (command) => {
    for (const flag of ['--help', '-h']) {
      const { code, stdout, stderr } = await cli([command, flag]);
      expect(stderr).toBe('');
      expect(code).toBe(0);
      expect(stdout).toContain(`usage: prompt-insight ${command}`);
      expect(stdout).toMatch(/\nExit codes: 0 /);
    }
  });

  it('a file named --help after -- is a file, not a request for help', async () => {
    const { code, stderr } = await cli(['tokens', '--', '--help']);
    expect(code).toBe(1);
    expect(stderr).toContain('--help');
  });

  it('--version prints the version of the package', async () => {
    const { code, stdout } = await cli(['--version']);
    expect(code).toBe(0);
    expect(stdout).toBe(`prompt-insight ${JSON.parse(readFileSync('package.json', 'utf8')).version}\n`);
  });

  it('the providers include ollama, and the exit codes include insufficient evidence', async () => {
    for (const text of [(await cli(['run', '--help'])).stdout, (await cli(['compare', '--help'])).stdout]) {
      expect(text).toMatch(/--provider openai\|azure\|anthropic\|ollama/);
      expect(text).toMatch(/ollama \(Ollama's native \/api\/chat/);
    }
    expect((await cli(['compare', '--help'])).stdout).toMatch(/Exit codes: 0 ok .*· 1 .*--fail-on-regression decided hold or insufficient evidence · 2 usage error.* · 130 interrupted/);
    expect((await cli(['tokens', '--help'])).stdout).toMatch(/Exit codes: 0 ok · 1 .*over --budget · 2 usage error/);
    expect((await cli(['--help'])).stdout).toMatch(/Exit codes: 0 ok · 1 .* · 2 usage error · 130 interrupted/);
  });
});

describe('tokens in CI', () => {
  const homes = 'examples/homes/homes.prompty'; // names gpt-4o-mini and its own tokenBudget: 600

  it('--budget gates even a file with its own budget: over it, exit 1 and which budget says so', async () => {
    const over = await cli(['tokens', homes, '--budget', '50']);
    expect(over.code).toBe(1);
    expect(over.stderr).toMatch(/homes\.prompty: prompt 'homes-assistant' is \d+ tokens, over --budget 50 by \d+/);
    expect(over.stdout).toMatch(/--budget 50 EXCEEDED by \d+ · the file's tokenBudget 600/);

    const json = JSON.parse((await cli(['tokens', homes, '--budget', '50', '--json'])).stdout);
    expect(json.files[0].prompts[0].budgets).toEqual([
      { tokens: 50, source: '--budget', exceeded: true },
      { tokens: 600, source: 'file', exceeded: false },
    ]);

    const under = await cli(['tokens', homes, '--budget', '5000']);
    expect(under.code).toBe(0);
    expect(under.stdout).toMatch(/--budget 5000 · the file's tokenBudget 600/);
    expect((await cli(['tokens', 'examples/homes/homes.prompt.txt', '--budget', '20'])).code).toBe(1); // no budget of its own
    expect((await cli(['tokens', homes, '--budget', 'lots'])).code).toBe(2);
  });

  it('--model wins over the model the file names, is counted with its encoding, and is not labelled "(default)"', async () => {
    const flagged = JSON.parse((await cli(['tokens', homes, '--model', 'gpt-4', '--json', '--rendered'])).stdout).files[0].prompts[0];
    expect(flagged).toMatchObject({ model: 'gpt-4', modelSource: '--model', fileModel: 'gpt-4o-mini', encoding: 'cl100k_base', exact: true });
    const cl100k = get_encoding('cl100k_base');
    for (const message of flagged.tokens.messages) expect(message.tokens).toBe(cl100k.encode_ordinary(message.content).length);
    cl100k.free();

    const text = await cli(['tokens', homes, '--model', 'gpt-4']);
    expect(text.stdout).toContain('gpt-4 (--model; the file names gpt-4o-mini) · cl100k_base exact');
    expect(text.stdout).not.toContain('(default)');
    // "(default)" is for a file that names no model when no --model is given, and only then.
    expect((await cli(['tokens', 'examples/homes/homes.prompt.txt'])).stdout).toContain('gpt-4o (default)');
    expect((await cli(['tokens', 'examples/homes/homes.prompt.txt', '--model', 'gpt-4o'])).stdout).toContain('gpt-4o (--model)');
    expect((await cli(['tokens', homes])).stdout).toMatch(/tokens · gpt-4o-mini · o200k_base exact/);
  });

  it('a glob over a folder skips tests files and simulator scenarios, with a note', async () => {
    const files = ['homes.prompt', 'homes.prompt.md', 'homes.prompt.txt', 'homes.prompt.yml', 'homes.prompty', 'homes.sim.yaml', 'homes.tests.yaml'].map((f) => `examples/homes/${f}`);
    const { code, stdout, stderr } = await cli(['tokens', ...files, '--json']);
    expect(code).toBe(0);
    const counted = JSON.parse(stdout).files.map((f: { file: string }) => f.file);
    expect(counted).toEqual(files.slice(0, 5));
    expect(stderr).toContain('examples/homes/homes.sim.yaml: skipped, a simulator scenario file, not a prompt');
    expect(stderr).toContain('examples/homes/homes.tests.yaml: skipped, a tests file, not a prompt');

    const onlySidecars = await cli(['tokens', 'examples/homes/homes.tests.yaml']);
    expect(onlySidecars.code).toBe(2);
    expect(onlySidecars.stderr).toContain('no prompt files among the files given');
  });
});

describe('output into a closed pipe, and an empty export', () => {
  it('export | head: no EPIPE stack trace; the command ends with its own exit code', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'pi-epipe-'));
    const store = new ResultsStore(join(dir, 'runs.jsonl'));
    const key = runKeyOf({ name: 'sim', provider: 'openai', baseUrl: 'http://127.0.0.1:1/v1' }, { model: 'm', messages: [], params: {} });
    const run: NewRun['run'] = { ok: true, status: 200, error: null, ttftMs: 1, firstAnswerMs: 1, e2eMs: 2, streamEndMs: 3, outputTokens: 4, outputTokensSource: 'usage', inputTokens: 5, inputTokensSource: 'usage', tpotMs: 0.3, itlMs: [], finishReason: 'stop', streamed: true, retries: 0 };
    store.append(Array.from({ length: 300 }, (_, i) => ({ key, file: 'homes.prompty', prompt: 'homes', endpointName: 'sim', simulated: true, run, answer: `Detached house ${i} `.repeat(400) })));
    for (const format of ['json', 'csv']) {
      const { code, firstChunk, stderr } = await cliIntoClosedPipe(['export', '--store', join(dir, 'runs.jsonl'), '--format', format]);
      expect(firstChunk.length).toBeGreaterThan(0);
      expect(stderr).not.toMatch(/EPIPE|Error|at .*\.js/);
      expect(code).toBe(0);
    }
  });

  it('tokens --budget … | head: the gate still fails the build when the reader stops early', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'pi-epipe-'));
    writeFileSync(join(dir, 'big.prompt.txt'), 'Find detached houses near the school.\n'.repeat(40_000));
    const { code, stderr } = await cliIntoClosedPipe(['tokens', join(dir, 'big.prompt.txt'), '--rendered', '--budget', '1000'], dir);
    expect(stderr).not.toMatch(/EPIPE|at .*\.js/);
    expect(stderr).toMatch(/over --budget 1,000/);
    expect(code).toBe(1);
  });

  it('export with no store: valid empty output, a note on stderr, exit 0', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'pi-nostore-'));
    const json = await cli(['export'], dir);
    expect(json).toMatchObject({ code: 0, stdout: '[]\n' });
    expect(json.stderr).toMatch(/no results store at \.prompt-insight\/runs\.jsonl: nothing to export/);
    const csv = await cli(['export', '--format', 'csv', '--store', join(dir, 'elsewhere.jsonl')], dir);
    expect(csv.code).toBe(0);
    expect(csv.stdout.split('\r\n')[0]).toMatch(/^[a-zA-Z]/); // the header row
    expect(csv.stderr).toContain(`no results store at ${join(dir, 'elsewhere.jsonl')}`);
    writeFileSync(join(dir, 'empty.jsonl'), '');
    expect((await cli(['export', '--store', join(dir, 'empty.jsonl')], dir)).stderr).toContain('holds no runs: nothing to export');
  });
});
