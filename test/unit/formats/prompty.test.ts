import { describe, expect, it } from 'vitest';
import { parsePrompty } from '../../../src/core/formats/prompty';

const V1 = `---
name: Basic
description: A basic prompt
model:
  api: chat
  configuration:
    type: azure_openai
    azure_deployment: gpt-35-turbo
  parameters:
    max_tokens: 128
sample:
  firstName: Jane
---
system:
You are an AI assistant who helps {{firstName}}.

user[name="jane"]:
{{question}}
`;

describe('Prompty parser', () => {
  it('reads a v1 file: name, deployment as model, parameters, sample, role markers with ranges', () => {
    const doc = parsePrompty(V1, 'basic.prompty');
    expect(doc.diagnostics).toEqual([]);
    const [prompt] = doc.prompts;
    expect(prompt!.name).toBe('Basic');
    expect(prompt!.model).toBe('gpt-35-turbo');
    expect(prompt!.params).toEqual({ max_tokens: 128 });
    expect(prompt!.inputs).toEqual({ firstName: 'Jane' });
    expect(prompt!.messages.map((m) => [m.role, m.template, m.name])).toEqual([
      ['system', 'You are an AI assistant who helps {{firstName}}.', undefined],
      ['user', '{{question}}', 'jane'],
    ]);
    const system = prompt!.messages[0]!;
    expect(V1.slice(system.range.start, system.range.end)).toBe('system:\nYou are an AI assistant who helps {{firstName}}.');
    expect(V1.slice(system.contentRange.start, system.contentRange.end)).toBe(system.template);
  });

  it('reads a v2 file: model.id, options, inputs with default and example', () => {
    const text = `---
name: v2
model:
  id: gpt-4o
  provider: openai
  options:
    temperature: 0.1
inputs:
  city:
    kind: string
    default: Paris
  topic:
    kind: string
    example: museums
---
Tell me about {{topic}} in {{city}}.
`;
    const doc = parsePrompty(text, 'x.prompty');
    expect(doc.diagnostics).toEqual([]);
    const prompt = doc.prompts[0]!;
    expect(prompt.model).toBe('gpt-4o');
    expect(prompt.params).toEqual({ temperature: 0.1 });
    expect(prompt.inputs).toEqual({ city: 'Paris', topic: 'museums' });
    // No role marker: Prompty sends the text as a system message.
    expect(prompt.messages).toHaveLength(1);
    expect(prompt.messages[0]!.role).toBe('system');
  });

  it('accepts `# role:` headings and any letter case', () => {
    const doc = parsePrompty('---\nname: h\n---\n# System:\nA\n# USER:\nB\n', 'h.prompty');
    expect(doc.prompts[0]!.messages.map((m) => [m.role, m.template])).toEqual([['system', 'A'], ['user', 'B']]);
  });

  it('flags a misspelt role marker with a suggestion, and an empty message', () => {
    const text = '---\nname: t\n---\nsytem:\nHello\nassistant:\n\nuser:\nHi\n';
    const doc = parsePrompty(text, 't.prompty');
    const unknown = doc.diagnostics.find((d) => d.code === 'unknown-role')!;
    expect(unknown.message).toContain("did you mean 'system'");
    expect(text.slice(unknown.range.start, unknown.range.end)).toBe('sytem:');
    const empty = doc.diagnostics.find((d) => d.code === 'empty-message')!;
    expect(text.slice(empty.range.start, empty.range.end)).toBe('assistant:');
  });

  it('does not mistake ordinary headings such as "Rules:" or "Tools:" for roles', () => {
    const doc = parsePrompty('system:\nRules:\n- one\nTools:\n- two\nNote:\n', 'r.prompty');
    expect(doc.diagnostics).toEqual([]);
    expect(doc.prompts[0]!.messages).toHaveLength(1);
  });

  it('reports an unterminated front matter and still counts the text', () => {
    const doc = parsePrompty('---\nname: x\nsystem:\nHello\n', 'u.prompty');
    expect(doc.diagnostics.map((d) => d.code)).toEqual(['unterminated-front-matter']);
    expect(doc.diagnostics[0]!.range).toEqual({ start: 0, end: 3 });
    expect(doc.prompts[0]!.messages.length).toBeGreaterThan(0);
  });

  it('reports wrong field types at the field and ignores them', () => {
    const text = '---\nname: [1, 2]\nmodel:\n  api: chat\n  parameters: 5\n---\nuser:\nhi\n';
    const doc = parsePrompty(text, 'w.prompty');
    const messages = doc.diagnostics.filter((d) => d.code === 'invalid-field');
    expect(messages).toHaveLength(2);
    const name = messages.find((d) => d.message.startsWith("'name'"))!;
    expect(text.slice(name.range.start, name.range.end)).toBe('[1, 2]');
    const parameters = messages.find((d) => d.message.includes("'model.parameters' should be a mapping"))!;
    expect(text.slice(parameters.range.start, parameters.range.end)).toBe('5');
    expect(doc.prompts[0]!.name).toBe('w');
  });

  it('reports YAML syntax errors at their position', () => {
    const text = '---\nname: "unclosed\nmodel: x\n---\nhi\n';
    const doc = parsePrompty(text, 'y.prompty');
    const error = doc.diagnostics.find((d) => d.code === 'parse-error')!;
    expect(error.severity).toBe('error');
    expect(error.range.start).toBeGreaterThanOrEqual(4);
    expect(error.range.start).toBeLessThanOrEqual(text.indexOf('---', 4));
  });

  it('handles CRLF line endings and a BOM', () => {
    const text = '\uFEFF---\r\nname: crlf\r\n---\r\nsystem:\r\nA\r\nuser:\r\nB\r\n';
    const doc = parsePrompty(text, 'c.prompty');
    expect(doc.diagnostics).toEqual([]);
    expect(doc.prompts[0]!.name).toBe('crlf');
    expect(doc.prompts[0]!.messages.map((m) => m.template)).toEqual(['A', 'B']);
  });
});
