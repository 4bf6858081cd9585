import { describe, expect, it } from 'vitest';
import { parseGithubPromptYaml } from '../../../src/core/formats/githubPromptYaml';

const FILE = `name: Summarizer
description: Summarizes text
model: openai/gpt-4o-mini
modelParameters:
  temperature: 0.5
messages:
  - role: system
    content: You are a text summarizer.
  - role: user
    content: |
      Summarize: {{input}}
testData:
  - input: The quick brown fox.
    expected: A fox.
  - input: Second row.
evaluators:
  - name: starts
    string:
      startsWith: 'Summary'
  - name: similarity
    uses: github/similarity
responseFormat: json_schema
jsonSchema: '{"type":"object"}'
`;

describe('GitHub .prompt.yml parser', () => {
  it('reads name, model, parameters, messages with ranges, testData and evaluators', () => {
    const doc = parseGithubPromptYaml(FILE, 'summarizer.prompt.yml');
    expect(doc.diagnostics).toEqual([]);
    const prompt = doc.prompts[0]!;
    expect(prompt.name).toBe('Summarizer');
    expect(prompt.model).toBe('openai/gpt-4o-mini');
    expect(prompt.params).toEqual({ temperature: 0.5 });
    expect(prompt.messages.map((m) => [m.role, m.template])).toEqual([
      ['system', 'You are a text summarizer.'],
      ['user', 'Summarize: {{input}}\n'],
    ]);
    expect(prompt.messages[0]!.contentIsVerbatim).toBe(true);
    expect(prompt.messages[1]!.contentIsVerbatim).toBe(false);
    const item = prompt.messages[0]!;
    expect(FILE.slice(item.range.start, item.range.end)).toContain('role: system');
    expect(prompt.tests).toHaveLength(2);
    expect(prompt.tests[0]).toMatchObject({ vars: { input: 'The quick brown fox.' }, expected: 'A fox.' });
    expect(prompt.inputs).toEqual({ input: 'The quick brown fox.' });
    expect(prompt.evaluators).toHaveLength(2);
    expect(prompt.responseFormat).toEqual({ type: 'json_schema', jsonSchema: '{"type":"object"}' });
  });

  it('reports unknown roles, empty content, wrong shapes and a missing messages list', () => {
    const text = 'model: gpt-4o\nmessages:\n  - role: sytem\n    content: hi\n  - role: user\n    content: ""\n  - just a string\n  - content: no role\n';
    const doc = parseGithubPromptYaml(text, 'bad.prompt.yml');
    const codes = doc.diagnostics.map((d) => d.code);
    expect(codes).toEqual(expect.arrayContaining(['unknown-role', 'empty-message', 'invalid-field']));
    const unknown = doc.diagnostics.find((d) => d.code === 'unknown-role')!;
    expect(text.slice(unknown.range.start, unknown.range.end)).toBe('sytem');
    // gh-models sends a message without content anyway, empty: it is kept (and still warned about).
    expect(doc.prompts[0]!.messages.map((m) => [m.role, m.template])).toEqual([['sytem', 'hi'], ['user', '']]);
    const missing = parseGithubPromptYaml('name: x\nmodel: gpt-4o\n', 'm.prompt.yml');
    expect(missing.diagnostics.map((d) => d.message).join()).toContain("'messages' is missing");
  });

  it('turns a YAML document that is not a mapping into a diagnostic', () => {
    const doc = parseGithubPromptYaml('- a\n- b\n', 'list.prompt.yml');
    expect(doc.prompts).toEqual([]);
    expect(doc.diagnostics[0]!.message).toContain('should be a YAML mapping');
  });

  it('refuses a YAML alias bomb instead of expanding it', () => {
    const lines = ['a: &a ["x","x","x","x","x","x","x","x","x"]'];
    for (let i = 1; i < 12; i++) lines.push(`${String.fromCharCode(97 + i)}: &${String.fromCharCode(97 + i)} [*${String.fromCharCode(96 + i)},*${String.fromCharCode(96 + i)},*${String.fromCharCode(96 + i)},*${String.fromCharCode(96 + i)},*${String.fromCharCode(96 + i)},*${String.fromCharCode(96 + i)},*${String.fromCharCode(96 + i)},*${String.fromCharCode(96 + i)},*${String.fromCharCode(96 + i)}]`);
    lines.push('messages:\n  - role: user\n    content: *l');
    const started = Date.now();
    const doc = parseGithubPromptYaml(lines.join('\n'), 'bomb.prompt.yml');
    expect(Date.now() - started).toBeLessThan(5000);
    expect(doc.diagnostics[0]!.code).toBe('parse-error');
    expect(doc.diagnostics[0]!.message).toMatch(/alias/i);
  });
});
