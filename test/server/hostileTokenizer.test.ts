/**
 * The language server in a trusted workspace whose settings name a tokenizer folder with hostile
 * patterns (issue 38): a pattern RE2 runs is counted exactly and at once; one only the backtracking
 * engine runs is counted in a worker stopped at the deadline, and while it counts, every request
 * about another file is answered. Build first (`npm run build`).
 */
import { mkdirSync, realpathSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { CodeLensRequest, DocumentSymbolRequest, HoverRequest, type CodeLens, type MarkupContent } from 'vscode-languageserver-protocol/node';
import { LspHarness } from './lspHarness';

const BASE = '/tmp/prompt-insight-test';
const DIR = join(realpathSync((mkdirSync(BASE, { recursive: true }), BASE)), `hostile-tokenizer-${process.pid}`);
const vocab = Object.fromEntries([...' ab!\n'].map((c, i) => [c, i]).concat([['aa', 10]]));

/** A tokenizer folder inside the workspace, as a repository may commit one. */
function tokenizerFolder(name: string, splitPattern: string): string {
  const folder = join(DIR, name);
  mkdirSync(folder, { recursive: true });
  const split = { type: 'Split', pattern: { Regex: splitPattern }, behavior: 'Isolated', invert: false };
  writeFileSync(join(folder, 'tokenizer.json'), JSON.stringify({ model: { type: 'BPE', vocab, merges: ['a a'] }, normalizer: null, pre_tokenizer: split, decoder: null, post_processor: null, added_tokens: [] }));
  return folder;
}

const prompt = (model: string, content: string) => `name: p\nmodel: ${model}\nmessages:\n  - role: user\n    content: ${JSON.stringify(content)}\n`;
const SIXTY = `${'a'.repeat(60)}!`;

const servers: LspHarness[] = [];
afterAll(async () => {
  await Promise.all(servers.map((server) => server.dispose()));
});

async function start(folder: string): Promise<LspHarness> {
  const server = new LspHarness();
  servers.push(server);
  // The plain object of settings.json: the workspace's own.
  await server.initialize({ workspaceFolders: [BASE], settings: { tokens: { tokenizers: { 'mistral*': folder } } } }, 'trusted');
  return server;
}

const hoverText = async (server: LspHarness, uri: string) => ((await server.connection.sendRequest(HoverRequest.type, { textDocument: { uri }, position: { line: 4, character: 8 } }))!.contents as MarkupContent).value;

describe('a tokenizer folder with hostile patterns, named by the workspace', () => {
  it("(a|aa)+$ against a line of 60 a's is run by RE2: the message's count is exact", async () => {
    const server = await start(tokenizerFolder('re2', '(a|aa)+$'));
    const { uri } = await server.open(`hostile-tokenizer-${process.pid}/sixty.prompt.yml`, prompt('mistral-7b', SIXTY));
    const hover = await hoverText(server, uri);
    expect(hover).toContain('| this message (user) | ≈31 |'); // exact, in a prompt whose chat framing is estimated (no template beside it)
    expect(hover).toContain('tokenizer.json of re2 · messages exact for mistral-7b');
  });

  it('a pattern only a worker may run: hovers, lenses and symbols of another file answer while it counts; then the count is the estimate, with the reason', async () => {
    // Long enough that the other file's answers, each a few milliseconds, come well inside it.
    process.env.PROMPT_INSIGHT_TOKENIZER_DEADLINE_MS = '4000';
    const server = await start(tokenizerFolder('lookahead', '(a|aa)+(?=b)'));
    delete process.env.PROMPT_INSIGHT_TOKENIZER_DEADLINE_MS;
    const other = await server.open(`hostile-tokenizer-${process.pid}/other.prompt.yml`, prompt('gpt-4o', 'Name three rivers.'));
    const answered: string[] = [];
    const track = <T>(name: string, request: Promise<T>) => request.then((value) => (answered.push(name), value));

    // The slow file's hover goes first: its count is under way when the other file's requests arrive.
    const stuckName = `hostile-tokenizer-${process.pid}/stuck.prompt.yml`;
    void server.open(stuckName, prompt('mistral-7b', SIXTY));
    const slow = track('slow file', hoverText(server, pathToFileURL(join(BASE, stuckName)).toString()));
    await server.change(other.uri, 2, [{ text: prompt('gpt-4o', 'Name four rivers.') }]);
    const { uri } = other;
    const [hover, lenses, symbols] = await Promise.all([
      track('hover', hoverText(server, uri)),
      track('lens', server.connection.sendRequest(CodeLensRequest.type, { textDocument: { uri } }) as Promise<CodeLens[]>),
      track('symbols', server.connection.sendRequest(DocumentSymbolRequest.type, { textDocument: { uri } })),
    ]);
    expect(hover).toContain('o200k_base');
    expect(lenses[0]!.command!.title).toMatch(/^\d+ tokens · 1 message$/);
    expect(symbols).toHaveLength(1);

    const stuck = await slow;
    expect(answered.slice(0, 3).sort()).toEqual(['hover', 'lens', 'symbols']);
    expect(answered[3]).toBe('slow file');
    expect(stuck).toContain("tokenizer.json's pre-tokenizer pattern (a|aa)+(?=b) took longer than 4 s on this text and was stopped");
    expect(stuck).toContain('the count is an estimate');
    expect(stuck).toContain('≈');
  });
});
