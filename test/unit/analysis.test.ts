import { readFileSync } from 'node:fs';
import { get_encoding } from 'tiktoken';
import { describe, expect, it } from 'vitest';
import { analyzePromptText } from '../../src/core/analysis';
import { TokenCounter } from '../../src/core/tokens/counter';
import { chineseCorpus } from '../fixtures/corpora.mjs';

const options = { defaultModel: 'gpt-4o' };

/** OpenAI cookbook: 3 per message + role + content (+ name + 1), + 3 reply priming, computed with tiktoken. */
function cookbookTotal(encoding: 'o200k_base' | 'cl100k_base', messages: { role: string; content: string; name?: string }[]): number {
  const tiktoken = get_encoding(encoding);
  try {
    let total = 3;
    for (const m of messages) {
      total += 3 + tiktoken.encode_ordinary(m.role).length + tiktoken.encode_ordinary(m.content).length;
      if (m.name) total += tiktoken.encode_ordinary(m.name).length + 1;
    }
    return total;
  } finally {
    tiktoken.free();
  }
}

describe('analyzePromptText', () => {
  it('counts the examples/ homes prompt as each runtime sends it: the same words, Dotprompt keeping the newlines around its role tags', async () => {
    const counter = new TokenCounter();
    const analyses = [];
    for (const file of ['homes.prompty', 'homes.prompt.yml', 'homes.prompt']) {
      const text = readFileSync(`examples/homes/${file}`, 'utf8');
      const analysis = await analyzePromptText(file, text, counter, options);
      expect(analysis.diagnostics.filter((d) => d.severity !== 'information')).toEqual([]);
      analyses.push(analysis.prompts[0]!);
    }
    const [prompty, github, dotprompt] = analyses;
    expect(github!.totalTokens).toBe(prompty!.totalTokens);
    expect(dotprompt!.messages.map((m) => m.content.trim())).toEqual(prompty!.messages.map((m) => m.content));
    // The dotprompt library does not trim: "{{role "user"}}\n{{request}}\n" sends the newline after the tag (the library trims only the body's ends).
    expect(dotprompt!.messages[1]!.content).toBe('\nFind homes nearby with at least three bedrooms.');
    expect(dotprompt!.totalTokens).toBeGreaterThan(prompty!.totalTokens);
  });

  it('substitutes sample values, adds the chat overhead and matches the cookbook formula', async () => {
    const text = '---\nname: t\nmodel:\n  api: chat\n  configuration:\n    name: gpt-4\nsample:\n  who: Ada\n---\nsystem:\nYou help {{who}}.\n\nuser[name="ada"]:\nHello, I am {{ who }}.\n';
    const analysis = await analyzePromptText('t.prompty', text, new TokenCounter(), options);
    const prompt = analysis.prompts[0]!;
    expect(prompt.encoding).toBe('cl100k_base');
    expect(prompt.exact).toBe(true);
    const expected = cookbookTotal('cl100k_base', [
      { role: 'system', content: 'You help Ada.' },
      { role: 'user', content: 'Hello, I am Ada.', name: 'ada' },
    ]);
    expect(prompt.totalTokens).toBe(expected);
    expect(prompt.messages.map((m) => m.tokens)).toEqual([
      get_encoding('cl100k_base').encode_ordinary('You help Ada.').length,
      get_encoding('cl100k_base').encode_ordinary('Hello, I am Ada.').length,
    ]);
    expect(prompt.overheadTokens).toBe(expected - prompt.messages[0]!.tokens - prompt.messages[1]!.tokens);
    expect(prompt.contextShare).toBeCloseTo(expected / 8192, 8);
  });

  it('reports unresolved variables at the placeholder, in verbatim text and in YAML block scalars', async () => {
    const prompty = '---\nname: v\n---\nuser:\nHi {{name}}, {{name}}!\n';
    const a = await analyzePromptText('v.prompty', prompty, new TokenCounter(), options);
    const ranges = a.diagnostics.filter((d) => d.code === 'unresolved-variable').map((d) => prompty.slice(d.range.start, d.range.end));
    expect(ranges).toEqual(['{{name}}', '{{name}}']);
    expect(a.diagnostics[0]!.range.start).toBe(prompty.indexOf('{{name}}'));
    expect(a.diagnostics[1]!.range.start).toBe(prompty.lastIndexOf('{{name}}'));

    const yaml = 'model: gpt-4o\nmessages:\n  - role: user\n    content: |\n      Line one\n      about {{topic}} here\n';
    const b = await analyzePromptText('v.prompt.yml', yaml, new TokenCounter(), options);
    const d = b.diagnostics.find((x) => x.code === 'unresolved-variable')!;
    expect(yaml.slice(d.range.start, d.range.end)).toBe('{{topic}}');
    expect(d.message).toContain("first 'testData' row");
  });

  it('marks non-OpenAI models as estimates and uses the default model when the file names none', async () => {
    const claude = await analyzePromptText('c.prompt', '---\nmodel: anthropic/claude-sonnet-4\ninput: {}\n---\nHi', new TokenCounter(), options);
    expect(claude.prompts[0]).toMatchObject({ exact: false, encoding: 'o200k_base', modelFromFile: true });
    const plain = await analyzePromptText('p.prompt.txt', 'Hi', new TokenCounter(), { defaultModel: 'gpt-3.5-turbo' });
    expect(plain.prompts[0]).toMatchObject({ exact: true, encoding: 'cl100k_base', modelFromFile: false });
    const forced = await analyzePromptText('c.prompt', '---\nmodel: claude-3\ninput: {}\n---\nHi', new TokenCounter(), { ...options, encoding: 'cl100k_base' });
    expect(forced.prompts[0]).toMatchObject({ exact: true, encoding: 'cl100k_base' });
  });

  it('warns when a prompt exceeds its budget, from the file or from settings', async () => {
    const overFile = await analyzePromptText('b.prompty', '---\nname: b\ntokenBudget: 5\n---\nuser:\nThis sentence is certainly longer than five tokens.\n', new TokenCounter(), options);
    const budget = overFile.diagnostics.find((d) => d.code === 'token-budget')!;
    expect(budget.message).toMatch(/over its budget of 5/);
    expect(budget.range.start).toBe(0);
    const overSetting = await analyzePromptText('b.prompt.txt', 'This sentence is certainly longer than five tokens.', new TokenCounter(), { ...options, tokenBudget: 5 });
    expect(overSetting.diagnostics.map((d) => d.code)).toContain('token-budget');
    const under = await analyzePromptText('b.prompt.txt', 'Short.', new TokenCounter(), { ...options, tokenBudget: 10 });
    expect(under.diagnostics.map((d) => d.code)).not.toContain('token-budget');
  });

  it('after a one-character edit recounts only the edited message, and only its changed segment', async () => {
    const counter = new TokenCounter();
    const big = chineseCorpus(100_000);
    const text = `---\nname: big\n---\nsystem:\n${big}\n\nuser:\n请找附近的房子。\n`;
    const first = await analyzePromptText('big.prompty', text, counter, options);
    const before = { ...counter.stats };
    const at = text.indexOf('user:\n') + 8;
    const edited = `${text.slice(0, at)}好${text.slice(at)}`;
    const second = await analyzePromptText('big.prompty', edited, counter, options);
    const encoded = counter.stats.charsEncoded - before.charsEncoded;
    expect(encoded).toBeLessThan(20); // only the short user message segment went through BPE again
    expect(second.prompts[0]!.messages[0]!.tokens).toBe(first.prompts[0]!.messages[0]!.tokens);

    const mid = text.indexOf(big.slice(50_000, 50_010));
    const third = await analyzePromptText('big.prompty', `${text.slice(0, mid)}X${text.slice(mid)}`, counter, options);
    expect(counter.stats.charsEncoded - before.charsEncoded - encoded).toBeLessThan(2_000);
    const oracle = get_encoding('o200k_base');
    expect(third.prompts[0]!.messages[0]!.tokens).toBe(oracle.encode_ordinary(`${big.slice(0, 50_000)}X${big.slice(50_000)}`).length);
    oracle.free();
  });

  it('refuses binary text with a diagnostic', async () => {
    const analysis = await analyzePromptText('x.prompt.txt', 'abc\u0000def', new TokenCounter(), options);
    expect(analysis.prompts).toEqual([]);
    expect(analysis.diagnostics[0]!.code).toBe('not-text');
  });
});
