import { readFileSync } from 'node:fs';
import { get_encoding } from 'tiktoken';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  CodeLensRequest, DiagnosticSeverity, DocumentSymbolRequest, HoverRequest, type CodeLens, type DocumentSymbol, type MarkupContent,
} from 'vscode-languageserver-protocol/node';
import { tokenSummaryRequest } from '../../src/protocol/lsp';
import { realworldFile } from '../fixtures/realworld';
import { LspHarness } from './lspHarness';

const EXAMPLES = ['homes.prompty', 'homes.prompt.yml', 'homes.prompt', 'homes.prompt.md', 'homes.prompt.txt'];
const example = (name: string) => readFileSync(`examples/homes/${name}`, 'utf8');
const o200k = get_encoding('o200k_base');
const oracle = (text: string) => o200k.encode_ordinary(text).length;

/** The homes prompt's messages as the model receives them, cut out of the example by hand (not by our parser). */
function homesMessages(): { system: string; user: string } {
  const body = example('homes.prompty').split('\n---\n')[1]!;
  const [system, user] = body.replace(/^system:\n/, '').split('\nuser:\n') as [string, string];
  return { system: system.trim().replace('{{city}}', 'Bellevue, WA'), user: 'Find homes nearby with at least three bedrooms.' };
}
const homes = homesMessages();
const homesTotal = 3 + (3 + oracle('system') + oracle(homes.system)) + (3 + oracle('user') + oracle(homes.user));

let server: LspHarness;
beforeAll(async () => {
  server = new LspHarness();
  await server.initialize();
});
afterAll(async () => server.dispose());

describe('language server over stdio', () => {
  it('advertises hover, CodeLens and document symbols', async () => {
    const fresh = new LspHarness();
    const result = (await fresh.initialize()) as { capabilities: Record<string, unknown> };
    expect(result.capabilities).toMatchObject({ hoverProvider: true, documentSymbolProvider: true, codeLensProvider: { resolveProvider: false } });
    await fresh.dispose();
  });

  it.each(EXAMPLES)('%s: CodeLens with token total, Run, Run ×N and Compare above the prompt', async (name) => {
    const { uri } = await server.open(`lens/${name}`, example(name));
    const lenses = (await server.connection.sendRequest(CodeLensRequest.type, { textDocument: { uri } })) as CodeLens[];
    expect(lenses.map((l) => l.command?.title)).toEqual([expect.stringMatching(/^\d+ tokens · \d messages?$/), '▶ Run', 'Run ×10', 'Compare revisions']);
    expect(lenses[1]!.command!.command).toBe('promptInsight.runPrompt');
    expect(lenses[2]!.command!.command).toBe('promptInsight.runPromptRepeated');
    expect(lenses[3]!.command!.arguments![0]).toMatchObject({ uri, promptIndex: 0 });
    expect(lenses[0]!.range.start.line).toBe(0);
  });

  it("a Dotprompt turn that renders empty is not counted, as the dotprompt library drops it (genkit's ex06): the lens says 1 message", async () => {
    const { text } = realworldFile('firebase/genkit/js/doc-snippets/src/dotprompt/prompts/ex06.prompt');
    const { uri } = await server.open('lens/ex06.prompt', text);
    const lenses = (await server.connection.sendRequest(CodeLensRequest.type, { textDocument: { uri } })) as CodeLens[];
    expect(lenses[0]!.command?.title).toMatch(/^≈\d+ tokens · 1 message$/);
  });

  it('hover on a message shows its tokens, the prompt total, the encoding and the context share', async () => {
    const text = example('homes.prompty');
    const { uri } = await server.open('hover/homes.prompty', text);
    const line = text.split('\n').findIndex((l) => l.startsWith('You are a real-estate assistant'));
    const hover = await server.connection.sendRequest(HoverRequest.type, { textDocument: { uri }, position: { line, character: 5 } });
    const value = (hover!.contents as MarkupContent).value;
    expect(value).toContain('`homes-assistant`');
    expect(value).toContain(`| this message (system) | ${oracle(homes.system)} |`);
    expect(value).toContain(`| whole prompt (2 messages + ${homesTotal - oracle(homes.system) - oracle(homes.user)} chat overhead) | **${homesTotal}** |`);
    expect(value).toContain('o200k_base · exact for gpt-4o-mini');
    expect(value).toContain('% of the 128,000-token context window');
    expect(value).toContain('budget 600 tokens');
    expect(hover!.range!.start.line).toBe(line - 1);
  });

  it('hover marks estimates for models whose tokenizer is not OpenAI’s', async () => {
    const { uri } = await server.open('hover/claude.prompt', '---\nmodel: anthropic/claude-sonnet-4\ninput: {}\n---\nHello there');
    const hover = await server.connection.sendRequest(HoverRequest.type, { textDocument: { uri }, position: { line: 4, character: 2 } });
    const value = (hover!.contents as MarkupContent).value;
    expect(value).toMatch(/≈\d+/);
    expect(value).toContain('estimate for anthropic/claude-sonnet-4: Claude tokenizer not available, counted with o200k_base');
  });

  it('publishes diagnostics at exact ranges: YAML error, unknown role, empty message, unresolved variable, budget', async () => {
    const text = '---\nname: broken\ntokenBudget: 3\nsample:\n  a: 1\n---\nsytem:\nHello {{nobody}}\nassistant:\n\nuser:\nplease\n';
    const { diagnostics } = await server.open('diag/broken.prompty', text);
    const byCode = Object.fromEntries(diagnostics.map((d) => [d.code, d]));
    expect(Object.keys(byCode).sort()).toEqual(['empty-message', 'token-budget', 'unknown-role', 'unresolved-variable']);
    expect(byCode['unknown-role']!.range).toEqual({ start: { line: 6, character: 0 }, end: { line: 6, character: 6 } });
    expect(byCode['unresolved-variable']!.range).toEqual({ start: { line: 7, character: 6 }, end: { line: 7, character: 16 } });
    expect(byCode['empty-message']!.range.start.line).toBe(8);
    expect(byCode['token-budget']!.severity).toBe(DiagnosticSeverity.Warning);
    expect(diagnostics.every((d) => d.source === 'Prompt Insight')).toBe(true);

    const yaml = await server.open('diag/bad.prompt.yml', 'model: gpt-4o\nmessages:\n  - role: user\n    content: "unterminated\n');
    expect(yaml.diagnostics[0]).toMatchObject({ code: 'parse-error', severity: DiagnosticSeverity.Error });
  });

  it('document symbols list prompts with their messages and token counts', async () => {
    const { uri } = await server.open('symbols/homes.prompt', example('homes.prompt'));
    const symbols = (await server.connection.sendRequest(DocumentSymbolRequest.type, { textDocument: { uri } })) as DocumentSymbol[];
    expect(symbols).toHaveLength(1);
    expect(symbols[0]!.name).toBe('homes');
    // The dotprompt library sends the newlines around its role tags (it trims only the body's ends).
    const system = `\n${homes.system}\n\n`;
    const user = `\n${homes.user}`;
    expect(symbols[0]!.detail).toBe(`${3 + (3 + oracle('system') + oracle(system)) + (3 + oracle('user') + oracle(user))} tokens`);
    expect(symbols[0]!.children!.map((c) => [c.name, c.detail])).toEqual([['system', `${oracle(system)} tokens`], ['user', `${oracle(user)} tokens`]]);
  });

  it('answers the status bar request: prompt total and selection tokens', async () => {
    const text = example('homes.prompt.txt');
    const { uri } = await server.open('status/homes.prompt.txt', text);
    const summary = await server.connection.sendRequest(tokenSummaryRequest, {
      uri,
      position: { line: 0, character: 0 },
      selections: [{ start: { line: 0, character: 0 }, end: { line: 0, character: 33 } }],
    });
    const body = text.trim();
    expect(summary).toEqual({
      prompt: { name: 'homes', totalTokens: 3 + 3 + oracle('user') + oracle(body), model: 'gpt-4o', encoding: 'o200k_base', exact: true },
      selectionTokens: oracle(text.slice(0, 33)),
    });
    expect(await server.connection.sendRequest(tokenSummaryRequest, { uri: 42 } as never)).toBeNull();
  });

  it('follows incremental edits: diagnostics and counts reflect the new text', async () => {
    const { uri } = await server.open('edit/e.prompty', '---\nname: e\n---\nuser:\nHello\n');
    const published = server.nextDiagnostics(uri, 2);
    await server.change(uri, 2, [{ range: { start: { line: 4, character: 5 }, end: { line: 4, character: 5 } }, text: ' {{who}}' }]);
    const diagnostics = await published;
    expect(diagnostics.map((d) => d.code)).toEqual(['unresolved-variable']);
    const hover = await server.connection.sendRequest(HoverRequest.type, { textDocument: { uri }, position: { line: 4, character: 1 } });
    // Prompty's Jinja renders a variable without a value empty; its parser drops only the line breaks at a message's ends.
    expect((hover!.contents as MarkupContent).value).toContain(`| this message (user) | ${oracle('Hello ')} |`);
  });

  it('survives hostile documents and bad requests and keeps answering', async () => {
    await server.open('hostile/bin.prompt.txt', 'abc\u0000\u0001\u0002');
    await server.open('hostile/deep.prompt.yml', `messages: ${'['.repeat(100_000)}`);
    await server.connection.sendRequest(HoverRequest.type, { textDocument: { uri: 'file:///never-opened.prompty' }, position: { line: 0, character: 0 } });
    await server.connection.sendRequest(HoverRequest.type, { textDocument: { uri: 'file:///x' }, position: { line: -5, character: 1e9 } } as never).catch(() => undefined);
    const { uri } = await server.open('hostile/after.prompt.txt', 'still alive');
    const lenses = (await server.connection.sendRequest(CodeLensRequest.type, { textDocument: { uri } })) as CodeLens[];
    expect(lenses[0]!.command!.title).toBe(`${oracle('still alive') + 3 + 3 + oracle('user')} tokens · 1 message`);
  });

  it('reads settings from initialization options: default model and budget', async () => {
    const configured = new LspHarness();
    await configured.initialize({ settings: { tokens: { defaultModel: 'gpt-4', budget: 5 } } });
    const { uri, diagnostics } = await configured.open('settings/s.prompt.txt', 'A sentence that is longer than five tokens for sure.');
    expect(diagnostics.map((d) => d.code)).toEqual(['token-budget']);
    const summary = await configured.connection.sendRequest(tokenSummaryRequest, { uri, position: { line: 0, character: 0 }, selections: [] });
    expect(summary!.prompt).toMatchObject({ model: 'gpt-4', encoding: 'cl100k_base' });
    await configured.dispose();
  });
});
