/**
 * Exact counts for an open model against the engine that serves it: llama-server with the test
 * model, whose GGUF carries Qwen3's vocabulary (install-llama.sh). Per-message counts must equal the
 * server's `/tokenize`, and the request total through the chat template must equal the
 * `usage.prompt_tokens` of a real chat completion — with the model's folder (`--tokenizer`), with the
 * endpoint alone (`--endpoint`), and with a folder that has no template (the server's `/props` one).
 */
import { copyFileSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../fixtures/cli';
import { chineseCorpus, codeCorpus, englishCorpus } from '../fixtures/corpora.mjs';
import { startLlamaServer, type LlamaServer } from './llamaServer';

const QWEN3 = join(process.env.PROMPT_INSIGHT_TOOLS ?? resolve('.e2e-tools'), 'llama', 'package', 'models');
let server: LlamaServer;
let dir: string;

const MESSAGES = {
  system: `You answer questions about homes for sale. 用中文回答。\n${chineseCorpus(300)}`,
  user: `Which homes fit?\n\n${englishCorpus(400)}\n\n\`\`\`ts\n${codeCorpus(300)}\n\`\`\``,
};

async function serverTokens(content: string): Promise<number> {
  const response = await fetch(`${server.url}/tokenize`, { method: 'POST', body: JSON.stringify({ content, add_special: false }) });
  return ((await response.json()) as { tokens: number[] }).tokens.length;
}

async function promptTokensOfCompletion(): Promise<number> {
  const response = await fetch(`${server.url}/v1/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ messages: [{ role: 'system', content: MESSAGES.system }, { role: 'user', content: MESSAGES.user }], max_tokens: 1, cache_prompt: false }),
  });
  return ((await response.json()) as { usage: { prompt_tokens: number } }).usage.prompt_tokens;
}

interface PromptJson {
  tokens: { total: number; overhead: number; messages: { role: string; tokens: number }[] };
  exact: boolean;
  countedWith: string;
  templateFrom?: string;
  label: string;
}

async function counted(...flags: string[]): Promise<PromptJson> {
  const result = await runCli(['tokens', join(dir, 'homes.prompt.yml'), '--json', ...flags], dir);
  expect(result.stderr).toBe('');
  return (JSON.parse(result.stdout) as { files: { prompts: PromptJson[] }[] }).files[0]!.prompts[0]!;
}

beforeAll(async () => {
  server = await startLlamaServer();
  dir = mkdtempSync(join(tmpdir(), 'pi-model-tokens-'));
  writeFileSync(join(dir, 'homes.prompt.yml'), `name: homes\nmodel: qwen3-8b\nmessages:\n  - role: system\n    content: ${JSON.stringify(MESSAGES.system)}\n  - role: user\n    content: ${JSON.stringify(MESSAGES.user)}\n`);
}, 120_000);
afterAll(async () => server?.stop());

describe(`exact counts against llama-server (${process.env.PROMPT_INSIGHT_TOOLS ?? '.e2e-tools'}/llama)`, () => {
  it("the model's folder: each message equals /tokenize, the request equals usage.prompt_tokens of a real completion", async () => {
    const prompt = await counted('--tokenizer', QWEN3);
    expect(prompt).toMatchObject({ exact: true, countedWith: 'tokenizer', templateFrom: 'tokenizer_config.json' });
    expect(prompt.tokens.messages.map((m) => m.tokens)).toEqual([await serverTokens(MESSAGES.system), await serverTokens(MESSAGES.user)]);
    expect(prompt.tokens.total).toBe(await promptTokensOfCompletion());
    expect(prompt.tokens.overhead).toBeGreaterThan(0);
  });

  it("no tokenizer at hand: the endpoint's /tokenize counts, with the same numbers", async () => {
    const prompt = await counted('--endpoint', `${server.url}/v1`);
    expect(prompt).toMatchObject({ exact: true, countedWith: 'endpoint', label: 'llama.cpp /tokenize of the configured endpoint · exact for qwen3-8b, chat template from the server' });
    expect(prompt.tokens.messages.map((m) => m.tokens)).toEqual([await serverTokens(MESSAGES.system), await serverTokens(MESSAGES.user)]);
    expect(prompt.tokens.total).toBe(await promptTokensOfCompletion());
  });

  it("a folder without a chat template takes the server's from /props", async () => {
    const bare = mkdtempSync(join(tmpdir(), 'pi-bare-model-'));
    copyFileSync(join(QWEN3, 'tokenizer.json'), join(bare, 'tokenizer.json'));
    const prompt = await counted('--tokenizer', bare, '--endpoint', `${server.url}/v1`);
    expect(prompt).toMatchObject({ exact: true, countedWith: 'tokenizer', templateFrom: "the server's /props" });
    expect(prompt.tokens.total).toBe(await promptTokensOfCompletion());
  });
});
