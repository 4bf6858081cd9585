/**
 * Endpoints that echo the request back: the key must not reach stderr, `--json` stdout, the store,
 * an export or a report, for any provider; nor proxy passwords, even ones that break URL decoding.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { forgetSecrets, registerSecret, registerUrlSecrets, scrubSecrets, SecretStream } from '../../../src/core/endpoint/secrets';
import { scriptedServer, type ScriptedServer } from '../../fixtures/scriptedServer';

const CLI = resolve('dist/cli.js');
const KEY = 'sk-test-Q9x7Vb2LmN4pR8sT1uW3yZ5aC6dE0fG';
function cli(args: string[], env: Record<string, string> = {}): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((done) =>
    execFile(process.execPath, [CLI, ...args], { env: { ...process.env, PI_TEST_KEY: KEY, ...env }, timeout: 30_000 }, (error, stdout, stderr) => done({ code: error ? Number((error as { code: number }).code) : 0, stdout, stderr })),
  );
}

/** Echoes every request header back: in an error body (401 / 500) or inside a streamed answer. */
let echo: ScriptedServer;
beforeAll(async () => {
  echo = await scriptedServer((request, index) => {
    const headers = JSON.stringify(request.headers);
    if (index % 3 === 0) return { status: 401, headers: { 'content-type': 'application/json' }, steps: [{ write: JSON.stringify({ error: { message: `bad key, you sent ${headers}` } }) }, { end: true }] };
    if (index % 3 === 1) return { status: 500, headers: { 'content-type': 'text/plain' }, steps: [{ write: `internal error; request was ${headers}` }, { end: true }] };
    // The key split across two deltas of a 200 stream.
    const half = KEY.length >> 1;
    const chunk = (text: string) => `data: ${JSON.stringify({ choices: [{ index: 0, delta: { content: text } }] })}\n\n`;
    return { steps: [{ write: chunk(`your key is ${KEY.slice(0, half)}`) }, { write: chunk(`${KEY.slice(half)} ok`) }, { write: `data: ${JSON.stringify({ choices: [{ index: 0, delta: {}, finish_reason: 'stop' }] })}\n\ndata: [DONE]\n\n` }, { end: true }] };
  });
});
afterAll(() => echo.close());

describe('a server that echoes the key', () => {
  for (const provider of ['openai', 'azure', 'anthropic'] as const) {
    it(`${provider}: no trace of the key in stderr, --json, the store, the export`, async () => {
      const dir = mkdtempSync(join(tmpdir(), 'pi-leak-'));
      writeFileSync(join(dir, 'p.prompt.txt'), 'Say hi.\n');
      const store = join(dir, 'runs.jsonl');
      const args = ['run', join(dir, 'p.prompt.txt'), '--endpoint', echo.url, '--provider', provider, '--api-key-env', 'PI_TEST_KEY', '--runs', '3', '--store', store, '--model', 'gpt-4o-mini', ...(provider === 'azure' ? ['--api-version', '2024-10-21'] : [])];
      const before = echo.requests.length;
      const text = await cli(args);
      const json = await cli([...args, '--json']);
      // The server did get the key (so it could echo it), in the provider's own header.
      const sent = echo.requests.slice(before).map((r) => JSON.stringify(r.headers)).join('\n');
      expect(sent).toContain(KEY);
      const exported = await cli(['export', '--store', store, '--format', 'csv']);
      const outputs = { stderr: text.stderr + json.stderr, stdout: text.stdout + json.stdout, store: readFileSync(store, 'utf8'), export: exported.stdout };
      for (const [where, output] of Object.entries(outputs)) {
        expect(output, where).not.toContain(KEY);
        expect(output, where).not.toContain(KEY.slice(0, 20));
      }
      expect(outputs.store).toContain('[REDACTED]');
      expect(JSON.parse(json.stdout).runs.length).toBe(3);
    });
  }
});

describe('proxy credentials', () => {
  it('a password with a bare % is a clear error without the password, and the process lives', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'pi-proxy-'));
    writeFileSync(join(dir, 'p.prompt.txt'), 'Say hi.\n');
    const store = join(dir, 'runs.jsonl');
    const out = await cli(['run', join(dir, 'p.prompt.txt'), '--endpoint', 'http://api.example.invalid/v1', '--runs', '2', '--store', store, '--timeout-ms', '5000', '--model', 'gpt-4o-mini'], { HTTP_PROXY: 'http://bob:50%off@127.0.0.1:9', HTTPS_PROXY: '' });
    expect(out.stderr).toContain('percent-encoding');
    expect(out.stderr).not.toContain('50%off');
    expect(out.stderr).not.toMatch(/URIError|at .*\.js:\d+/);
    expect(out.code).toBe(1);
    const stored = readFileSync(store, 'utf8');
    expect(stored.trim().split('\n')).toHaveLength(2);
    expect(stored).not.toContain('50%off');
  });
});

describe('scrubSecrets / SecretStream', () => {
  it('removes every registered form, also when a secret arrives split across pieces', () => {
    forgetSecrets();
    registerSecret('abc/def+ghi=jkl');
    registerUrlSecrets('http://alice:s3cr%40t!@proxy.local:3128');
    const text = 'k=abc/def+ghi=jkl u=abc%2Fdef%2Bghi%3Djkl j=abc\\/def b=YWJjL2RlZitnaGk9amts p=s3cr@t! basic=YWxpY2U6czNjckB0IQ==';
    const scrubbed = scrubSecrets(text);
    expect(scrubbed).not.toMatch(/abc\/def|abc%2Fdef|YWJjL2RlZitnaGk9amts|s3cr@t|YWxpY2U6czNjckB0IQ==/);
    const stream = new SecretStream();
    const pieces = ['the key: abc/d', 'ef+gh', 'i=jkl and more'];
    const shown = pieces.map((p) => stream.push(p)).join('') + stream.flush();
    expect(shown).toBe('the key: [REDACTED] and more');
    forgetSecrets();
  });
});
