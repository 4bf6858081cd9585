/**
 * Dotprompt counted as Genkit sends it (issue 21): a file naming a schema the application registers
 * is rendered anyway (with a note that the schema was not checked); the spec's expected messages are
 * matched as written, trailing newline included; a message whose only content is a variable with no
 * value renders empty and is dropped, as the library drops it (issue 39; it was kept, empty, before).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse as parseYaml } from 'yaml';
import { describe, expect, it } from 'vitest';
import { analyzePromptText } from '../../../src/core/analysis';
import { parseDotprompt } from '../../../src/core/formats/dotprompt';
import { renderPrompt } from '../../../src/core/render/renderPrompt';
import { TokenCounter } from '../../../src/core/tokens/counter';
import { REALWORLD, realworldFile } from '../../fixtures/realworld';

const options = { defaultModel: 'gpt-4o', encoding: 'o200k_base' as const };

describe('Dotprompt as its runtime sends it', () => {
  it('a file whose output schema is registered by the application (genkit fastapi-bugbot) is rendered, with a note', async () => {
    const { path, text } = realworldFile('firebase/genkit/py/samples/fastapi-bugbot/prompts/analyze_bugs.prompt');
    const analysis = await analyzePromptText('analyze_bugs.prompt', text, new TokenCounter(), { ...options, filePath: path });
    const codes = analysis.diagnostics.map((d) => d.code);
    expect(codes).not.toContain('template-error');
    expect(analysis.diagnostics.find((d) => d.code === 'schema-not-checked')?.message).toMatch(/Schema 'Analysis' is registered by the application.*not checked/);
    const content = analysis.prompts[0]!.messages.map((m) => m.content).join('');
    expect(content).toContain('Analyze the following  code');
    expect(content).not.toContain('{{');
  });

  it('input and output schemas both named: rendered, both named in the note', async () => {
    const text = '---\nmodel: gpt-4o\ninput:\n  schema: RecipeInput\n  default:\n    food: soup\noutput:\n  schema: Recipe\n---\n{{role "system"}}\nYou are a chef.\n{{#if food}}Cook {{food}}.{{/if}}\n';
    const analysis = await analyzePromptText('r.prompt', text, new TokenCounter(), options);
    expect(analysis.prompts[0]!.messages.map((m) => m.content.trim())).toEqual(['You are a chef.\nCook soup.']);
    expect(analysis.diagnostics.map((d) => d.message).join('\n')).toContain("Schemas 'RecipeInput' and 'Recipe' are registered by the application");
  });

  it("the spec's expected messages, as written: the template's trailing newline is kept (spec/unicode.yaml)", async () => {
    const suites = parseYaml(readFileSync(join(REALWORLD, 'google/dotprompt/spec/unicode.yaml'), 'utf8')) as { name: string; template: string; tests: { desc: string; data?: { input?: Record<string, unknown> }; expect: { messages?: { role: string; content: { text?: string }[] }[] } }[] }[];
    const basic = suites.find((suite) => suite.name === 'unicode_basic')!;
    for (const test of basic.tests) {
      const prompt = parseDotprompt(basic.template, 'unicode_basic.prompt').prompts[0]!;
      const rendering = await renderPrompt(basic.template, prompt, test.data?.input ?? {});
      const expected = test.expect.messages!.map((m) => ({ role: m.role, content: m.content.map((part) => part.text ?? '').join('') }));
      expect(rendering.messages.map((m) => ({ role: m.role, content: m.content })), test.desc).toEqual(expected);
      expect(expected[0]!.content.endsWith('\n')).toBe(true);
    }
  });

  it('a message whose only content is a variable with no value renders empty and is not sent: not counted, the variable named', async () => {
    const text = '---\nmodel: gpt-4o\n---\n{{role "system"}}\nBe brief.\n{{role "user"}}\n{{question}}\n';
    const analysis = await analyzePromptText('q.prompt', text, new TokenCounter(), options);
    const messages = analysis.prompts[0]!.messages;
    expect(messages.map((m) => m.role)).toEqual(['system']);
    expect(analysis.diagnostics.find((d) => d.code === 'unresolved-variable')?.message).toMatch(/'question'.*renders it empty.*a message left empty is not sent/);
    // Given a value, the same message carries it: only the value's tokens differ.
    const valued = await analyzePromptText('q.prompt', text.replace('model: gpt-4o\n', 'model: gpt-4o\ninput:\n  default:\n    question: Where?\n'), new TokenCounter(), options);
    expect(valued.prompts[0]!.messages.map((m) => [m.role, m.content.trim()])).toEqual([['system', 'Be brief.'], ['user', 'Where?']]);
  });

  it('a variable with no value inside a condition keeps the condition false (no stand-in value leaks into logic)', async () => {
    const text = '---\nmodel: gpt-4o\n---\n{{role "user"}}\n{{#if extra}}EXTRA {{extra}}{{/if}}Hi {{name}}\n';
    const analysis = await analyzePromptText('c.prompt', text, new TokenCounter(), options);
    expect(analysis.prompts[0]!.messages.map((m) => m.content.trim())).toEqual(['Hi']);
  });
});
