/**
 * A gap between the product and Prompty's runtime, on the real files that show it (issue 33):
 *  - Prompty's runtime (its v2 chat parser) sends a role line followed by a blank line as a message
 *    with empty content: `user:\n{{question}}` with no value for `question` sends [system, user ""].
 *    16 of the 110 real Prompty files render so; they were counted as [system].
 * (The Dotprompt gap of issue 33, a closing `---` with no line break after it, is now counted as the
 * `dotprompt` library sends it: test/unit/render/dotpromptLibrary.test.ts.)
 */
import { basename } from 'node:path';
import { describe, expect, it } from 'vitest';
import { analyzePromptText } from '../../../src/core/analysis';
import { parsePrompty } from '../../../src/core/formats/prompty';
import { TokenCounter } from '../../../src/core/tokens/counter';
import { REALWORLD, realworldFile, filesUnder } from '../../fixtures/realworld';

const options = { defaultModel: 'gpt-4o', encoding: 'o200k_base' as const };
const counter = new TokenCounter();

describe('Prompty: a role line followed by a blank line is sent, empty', () => {
  it("Prompty's spec fixture summarize.prompty without a text: [system, user \"\"], the user message costing its overhead", async () => {
    const { path, text } = realworldFile('microsoft/prompty/spec/fixtures/summarize.prompty');
    const analysis = await analyzePromptText('summarize.prompty', text, counter, { ...options, filePath: path });
    const messages = analysis.prompts[0]!.messages;
    expect(messages.map((m) => [m.role, m.content])).toEqual([['system', 'You are a summarization assistant. Summarize the following text concisely.'], ['user', '']]);
    expect(messages[1]!.tokens).toBe(0);
    expect(analysis.prompts[0]!.overheadTokens).toBe(4 * 2 + 3); // two messages' overhead (as homes.prompty's two) and the reply's priming
  });

  it('16 of the 110 real Prompty files send an empty message', async () => {
    const files = filesUnder(REALWORLD).filter((f) => f.endsWith('.prompty'));
    expect(files).toHaveLength(110);
    const withEmpty: string[] = [];
    for (const file of files) {
      const { text } = realworldFile(file.slice(REALWORLD.length + 1));
      const analysis = await analyzePromptText(basename(file), text, counter, { ...options, filePath: file });
      if (analysis.prompts[0]?.messages.some((m) => m.content === '')) withEmpty.push(file.slice(REALWORLD.length + 1));
    }
    expect(withEmpty).toHaveLength(16);
    expect(withEmpty).toContain('microsoft/prompty/runtime/csharp/Prompty.Core.Tests/Prompts/tools.prompty');
  });

  it('as written: a blank line after the role line sends it empty (flagged); none, or the end of the file, sends nothing', () => {
    const doc = parsePrompty('---\nname: t\n---\nsystem:\nA\nassistant:\n\nuser:\nB\nassistant:\nuser:\n  indented\n\nassistant:\n', 't.prompty');
    expect(doc.prompts[0]!.messages.map((m) => [m.role, m.template])).toEqual([['system', 'A'], ['assistant', ''], ['user', 'B'], ['user', '  indented']]);
    expect(doc.diagnostics.map((d) => [d.code, d.message])).toEqual([['empty-message', 'The assistant message is empty; Prompty sends it with empty content. Add content or remove the role line.']]);
  });
});
