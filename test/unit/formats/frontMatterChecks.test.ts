/**
 * Front matter as users break it: a stray character on the closing `---` is named with its line and
 * the YAML is not counted as a message; sampling parameters of the wrong type are reported at the value.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { analyzePromptText } from '../../../src/core/analysis';
import { parsePromptFile } from '../../../src/core/formats/detect';
import { TokenCounter } from '../../../src/core/tokens/counter';

const homes = readFileSync('examples/homes/homes.prompty', 'utf8');
const options = { defaultModel: 'gpt-4o' };
const closingLine = homes.split('\n').indexOf('---', 1) + 1;

async function analyse(file: string, text: string) {
  return analyzePromptText(file, text, new TokenCounter(), options);
}

describe('a closing fence with a stray character', () => {
  for (const broken of ['---x', '--- x', '---   # end', '----']) {
    it(`\`${broken}\`: a diagnostic naming line ${closingLine} and its text, and the same messages and tokens as the intact file`, async () => {
      const intact = await analyse('homes.prompty', homes);
      const text = homes.replace(/\n---\n/, `\n${broken}\n`);
      const analysis = await analyse('homes.prompty', text);
      const fence = analysis.diagnostics.filter((d) => d.code === 'unterminated-front-matter');
      expect(fence).toHaveLength(1);
      expect(fence[0]!.severity).toBe('error');
      expect(fence[0]!.message).toContain(`The front matter is not closed: line ${closingLine} has \`${broken}\``);
      expect(text.slice(fence[0]!.range.start, fence[0]!.range.end)).toBe(broken);
      // Not the YAML sent as a system message: 103 tokens, system + user, as the intact file.
      expect(analysis.prompts[0]!.messages.map((m) => m.role)).toEqual(['system', 'user']);
      expect(analysis.prompts[0]!.totalTokens).toBe(intact.prompts[0]!.totalTokens);
      expect(analysis.prompts[0]!.prompt.name).toBe('homes-assistant');
    });
  }

  it('a Dotprompt file with `---x` is named the same way, and counted as the dotprompt library sends it: the whole file, no front matter (issue 39)', () => {
    const text = '---\nmodel: gpt-4o\n---x\nHello {{name}}\n';
    const doc = parsePromptFile('greet.prompt', text);
    expect(doc.diagnostics.map((d) => d.message)).toEqual([expect.stringMatching(/line 3 has `---x`.*It reads no front matter: it sends the whole file, YAML included/)]);
    expect(doc.prompts[0]!.model).toBeUndefined();
    expect(doc.prompts[0]!.messages.map((m) => [m.role, m.template])).toEqual([['user', text]]);
  });

  it('an intact file, and a body with a `----` rule after a proper fence, get no such diagnostic', async () => {
    const ruled = homes.replace('Rules:', '----\nRules:');
    for (const text of [homes, ruled, homes.replace(/\n---\n/, '\n...\n')]) {
      const analysis = await analyse('homes.prompty', text);
      expect(analysis.diagnostics.filter((d) => d.code === 'unterminated-front-matter')).toEqual([]);
    }
  });

  it('front matter with no closing line at all is still reported as never closed, and the file counted as text', async () => {
    const analysis = await analyse('t.prompty', '---\nname: x\nsystem:\nHello\n');
    expect(analysis.diagnostics.map((d) => d.message)).toEqual([expect.stringContaining('is never closed')]);
  });
});

describe('sampling parameters of the wrong type', () => {
  it('Prompty `temperature: "hot"` and `max_tokens: lots` are reported at their values', async () => {
    const text = homes.replace('temperature: 0.2', 'temperature: "hot"').replace('max_tokens: 400', 'max_tokens: lots');
    const analysis = await analyse('homes.prompty', text);
    const wrong = analysis.diagnostics.filter((d) => d.code === 'invalid-field');
    expect(wrong.map((d) => [text.slice(d.range.start, d.range.end), d.message])).toEqual([
      ['"hot"', expect.stringMatching(/^'model\.parameters\.temperature' should be a number, not the string "hot"/)],
      ['lots', expect.stringMatching(/^'model\.parameters\.max_tokens' should be an integer, not the string "lots"/)],
    ]);
  });

  it('Dotprompt `config` and GitHub `modelParameters` too; right types and unknown keys pass', () => {
    const dot = parsePromptFile('a.prompt', '---\nmodel: gpt-4o\nconfig:\n  temperature: warm\n  maxOutputTokens: 1.5\n  stopSequences: END\n  topK: 40\n  custom: anything\n---\nHi\n');
    expect(dot.diagnostics.map((d) => d.message.split(':')[0])).toEqual(["'config.temperature' should be a number, not the string \"warm\"", "'config.maxOutputTokens' should be an integer, not 1.5", "'config.stopSequences' should be a list of strings, not the string \"END\""]);
    const github = parsePromptFile('a.prompt.yml', 'model: openai/gpt-4o\nmodelParameters:\n  temperature: 0.5\n  max_tokens: "many"\nmessages:\n  - role: user\n    content: Hi\n');
    expect(github.diagnostics.map((d) => d.message.split(':')[0])).toEqual(["'modelParameters.max_tokens' should be an integer, not the string \"many\""]);
    const fine = parsePromptFile('b.prompty', '---\nmodel:\n  id: gpt-4o\n  parameters:\n    temperature: 1\n    max_tokens: 100\n    stop: ["\\n"]\n    response_format: { type: json_object }\n---\nsystem:\nHi\n');
    expect(fine.diagnostics).toEqual([]);
  });
});
