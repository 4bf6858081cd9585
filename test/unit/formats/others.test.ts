import { describe, expect, it } from 'vitest';
import { detectFormat, parsePromptFile } from '../../../src/core/formats/detect';
import { parseDotprompt } from '../../../src/core/formats/dotprompt';
import { parsePlainText } from '../../../src/core/formats/plainText';
import { parseVscodePromptMd } from '../../../src/core/formats/vscodePromptMd';

describe('Dotprompt parser', () => {
  const text = `---
model: googleai/gemini-1.5-flash
config:
  temperature: 0.9
input:
  schema:
    location: string
  default:
    location: the beach
output:
  format: json
---
{{role "system"}}
You are a travel agent.
{{role "user"}}
Plan a trip to {{location}}. {{#if style}}Style: {{style}}{{/if}}
`;

  it('reads model, config, input defaults and role markers', () => {
    const doc = parseDotprompt(text, 'trip.prompt');
    expect(doc.diagnostics).toEqual([]);
    const prompt = doc.prompts[0]!;
    expect(prompt.name).toBe('trip');
    expect(prompt.model).toBe('googleai/gemini-1.5-flash');
    expect(prompt.params).toEqual({ temperature: 0.9 });
    expect(prompt.inputs).toEqual({ location: 'the beach' });
    expect(prompt.responseFormat).toEqual({ format: 'json' });
    expect(prompt.messages.map((m) => [m.role, m.template])).toEqual([
      ['system', 'You are a travel agent.'],
      ['user', 'Plan a trip to {{location}}. {{#if style}}Style: {{style}}{{/if}}'],
    ]);
  });

  it('defaults to one user message and flags unknown roles', () => {
    expect(parseDotprompt('Hello {{name}}', 'a.prompt').prompts[0]!.messages.map((m) => m.role)).toEqual(['user']);
    const doc = parseDotprompt('{{role "sytem"}}\nHi', 'b.prompt');
    expect(doc.diagnostics[0]!.code).toBe('unknown-role');
  });
});

describe('VS Code .prompt.md parser', () => {
  it('reads front matter and makes the body one user message', () => {
    const text = '---\ndescription: Review code\nmode: agent\nmodel: GPT-4o\ntools: [codebase]\n---\nReview ${selection} for bugs.\n';
    const doc = parseVscodePromptMd(text, 'review.prompt.md');
    expect(doc.diagnostics).toEqual([]);
    const prompt = doc.prompts[0]!;
    expect(prompt.name).toBe('review');
    expect(prompt.model).toBe('GPT-4o');
    expect(prompt.params).toEqual({ mode: 'agent', tools: ['codebase'] });
    expect(prompt.messages).toHaveLength(1);
    expect(prompt.messages[0]!.role).toBe('user');
    expect(prompt.messages[0]!.template).toBe('Review ${selection} for bugs.');
  });

  it('warns about an empty body', () => {
    const doc = parseVscodePromptMd('---\ndescription: nothing\n---\n', 'e.prompt.md');
    expect(doc.diagnostics.map((d) => d.code)).toEqual(['empty-message']);
  });
});

describe('plain text parser', () => {
  it('makes the whole file one user message without the BOM', () => {
    const doc = parsePlainText('\uFEFFHello there.\n', 'hi.prompt.txt');
    expect(doc.prompts[0]!.messages.map((m) => [m.role, m.template])).toEqual([['user', 'Hello there.']]);
    expect(doc.prompts[0]!.name).toBe('hi');
  });
});

describe('format detection', () => {
  it('uses the file name where it is unambiguous', () => {
    expect(detectFormat('a.prompty', '')).toBe('prompty');
    expect(detectFormat('a.prompt.yml', '')).toBe('github-prompt-yaml');
    expect(detectFormat('a.prompt.YAML', '')).toBe('github-prompt-yaml');
    expect(detectFormat('a.prompt.md', '')).toBe('vscode-prompt-md');
    expect(detectFormat('a.prompt.txt', '---\nmodel: x\n---\n')).toBe('text');
  });

  it('sniffs `.prompt` and user-glob files by content', () => {
    expect(detectFormat('a.prompt', '---\nmodel: googleai/gemini\ninput:\n  default: {}\n---\nHi')).toBe('dotprompt');
    expect(detectFormat('a.prompt', '{{role "system"}}\nHi')).toBe('dotprompt');
    expect(detectFormat('a.prompt', 'Just some text')).toBe('text');
    expect(detectFormat('a.prompt', 'name: x\nmessages:\n  - role: user\n    content: hi\n')).toBe('github-prompt-yaml');
    expect(detectFormat('notes/p.txt', '---\nmodel:\n  api: chat\n---\nsystem:\nHi')).toBe('prompty');
    expect(detectFormat('notes/p.txt', 'Plain')).toBe('text');
  });

  it('parses in the detected format and sorts diagnostics by position', () => {
    const doc = parsePromptFile('x.prompty', '---\nname: [1]\nmodel: 3\n---\nsytem:\nuser:\nhi');
    const starts = doc.diagnostics.map((d) => d.range.start);
    expect(starts).toEqual([...starts].sort((a, b) => a - b));
    expect(doc.format).toBe('prompty');
  });
});
