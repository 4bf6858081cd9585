/** "What will be sent" over stdio: the count lens opens it, and loop-made messages come back rendered. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CodeLensRequest, type CodeLens } from 'vscode-languageserver-protocol/node';
import { get_encoding } from 'tiktoken';
import { CLIENT_COMMANDS, renderedPromptRequest } from '../../src/protocol/lsp';
import { LspHarness } from './lspHarness';

const o200k = get_encoding('o200k_base');

let server: LspHarness;
beforeAll(async () => {
  server = new LspHarness();
  await server.initialize();
});
afterAll(async () => server.dispose());

const LOOP = `---
name: loop
sample:
  who: Ada
  turns:
    - role: user
      content: Hi, I am {{ who }}?
    - role: assistant
      content: Hello.
---
system:
Be brief with {{ who }}.
{% for t in turns %}
{{ t.role }}:
{{ t.content }}
{% endfor %}
user:
{{ missing }}Find homes.
`;

describe('what will be sent', () => {
  it('the count lens opens the rendered messages; a Jinja loop makes its messages, a missing variable renders empty', async () => {
    const { uri, diagnostics } = await server.open('rendered/loop.prompty', LOOP);
    expect(diagnostics.map((d) => [d.code, d.range.start.line])).toEqual([['unresolved-variable', 17]]);
    expect(diagnostics[0]!.message).toContain('renders it empty');
    const lenses = (await server.connection.sendRequest(CodeLensRequest.type, { textDocument: { uri } })) as CodeLens[];
    expect(lenses[0]!.command).toMatchObject({ command: CLIENT_COMMANDS.showRendered, arguments: [{ uri, promptIndex: 0 }] });
    expect(lenses[0]!.command!.title).toMatch(/ tokens · 4 messages$/);
    const rendered = await server.connection.sendRequest(renderedPromptRequest, { uri, promptIndex: 0 });
    expect(rendered!.messages.map((m) => [m.role, m.content, m.line])).toEqual([
      ['system', 'Be brief with Ada.', 10],
      // Made by the loop inside the system section (line 10): values are output as they are, not rendered again.
      ['user', 'Hi, I am {{ who }}?', 10],
      ['assistant', 'Hello.', 10],
      ['user', 'Find homes.', 16],
    ]);
    expect(rendered!.messages.map((m) => m.tokens)).toEqual(rendered!.messages.map((m) => o200k.encode_ordinary(m.content).length));
    expect(rendered!.notes.join()).toContain("Variable 'missing'");
  });

  it('a template error is a diagnostic and the text is counted as written', async () => {
    const { uri, diagnostics } = await server.open('rendered/broken.prompty', '---\nname: b\n---\nuser:\n{% if %}x\n');
    expect(diagnostics.map((d) => d.code)).toContain('template-error');
    const rendered = await server.connection.sendRequest(renderedPromptRequest, { uri, promptIndex: 0 });
    expect(rendered!.messages).toEqual([expect.objectContaining({ role: 'user', content: '{% if %}x' })]);
  });
});
