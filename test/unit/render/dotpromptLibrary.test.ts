/**
 * Dotprompt counted as the `dotprompt` library sends it (issue 39, point 7), with the library as the
 * oracle: every Dotprompt file of the real-world corpus is rendered by `Dotprompt` with the file's own
 * values, and its messages (role, text, media parts) must be the ones the counting pipeline counts.
 *  - A message that renders empty is dropped by the library (genkit's ex06, codemirror samples 04 and
 *    07: a last turn made of a variable with no value); the counts kept it, empty, with its overhead.
 *  - A front matter the library does not find (ex03: the closing `---` has no line break after it)
 *    makes it send the whole file as one user message; the counts read it as front matter and counted
 *    nothing.
 * One reading is kept apart on purpose: '#' licence lines before the front matter are skipped, as the
 * Dotprompt repository's parser does since 2026 (the installed library, 1.1.2, predates it).
 * The oracle itself: test/fixtures/dotpromptLibrary.ts.
 */
import { readFileSync } from 'node:fs';
import { basename, join, relative } from 'node:path';
import { Dotprompt } from 'dotprompt';
import { describe, expect, it, vi } from 'vitest';
import { analyzePromptText, type FileAnalysis } from '../../../src/core/analysis';
import { TokenCounter } from '../../../src/core/tokens/counter';
import { runCli } from '../../fixtures/cli';
import { librarySends, type SentMessage } from '../../fixtures/dotpromptLibrary';
import { filesUnder, REALWORLD, realworldFile } from '../../fixtures/realworld';

const options = { defaultModel: 'gpt-4o', encoding: 'o200k_base' as const, format: 'dotprompt' as const };
const counter = new TokenCounter();

const EX03 = 'firebase/genkit/js/doc-snippets/src/dotprompt/prompts/ex03.prompt';
const EX06 = 'firebase/genkit/js/doc-snippets/src/dotprompt/prompts/ex06.prompt';
const TOOLS = 'google/dotprompt/packages/codemirror/samples/04-tools.prompt';
const HISTORY = 'google/dotprompt/packages/codemirror/samples/07-multi-turn-history.prompt';

async function analyze(path: string, workspaceTrusted = true): Promise<FileAnalysis> {
  const file = realworldFile(path);
  return analyzePromptText(basename(file.path), file.text, counter, { ...options, filePath: file.path, workspaceTrusted });
}

const counted = (analysis: FileAnalysis): SentMessage[] => (analysis.prompts[0]?.messages ?? []).map((m) => ({ role: m.role, text: m.content, mediaParts: m.mediaParts }));

describe('Dotprompt counts follow the dotprompt library', () => {
  it("genkit's ex06: the user turn `{{userQuestion}}` renders empty and is not sent — one message counted, the variable named", async () => {
    const analysis = await analyze(EX06);
    expect(counted(analysis).map((m) => m.role)).toEqual(['system']);
    expect(counted(analysis)).toEqual(await librarySends(join(REALWORLD, EX06)));
    expect(analysis.prompts[0]!.overheadTokens).toBe(3 + 4); // one message's overhead and the reply's priming, not two
    expect(analysis.diagnostics.find((d) => d.code === 'unresolved-variable')?.message).toMatch(/'userQuestion'.*a message left empty is not sent/);
  });

  it('codemirror 04-tools: the user turn (`{{query}}` and a false condition) is not sent — one message', async () => {
    const analysis = await analyze(TOOLS);
    expect(counted(analysis).map((m) => m.role)).toEqual(['system']);
    expect(counted(analysis)).toEqual(await librarySends(join(REALWORLD, TOOLS)));
  });

  it('codemirror 07-multi-turn-history: nothing after the system turn is sent without history and a new message — one message; the empty user turn is flagged', async () => {
    const analysis = await analyze(HISTORY);
    expect(counted(analysis).map((m) => m.role)).toEqual(['system']);
    expect(counted(analysis)).toEqual(await librarySends(join(REALWORLD, HISTORY)));
    // `{{role "user"}}` is followed only by a comment and `{{history}}`: the library sends no user turn.
    expect(analysis.diagnostics.filter((d) => d.code === 'empty-message').map((d) => d.message)).toEqual(['The user message is empty; it sends nothing. Add content or remove the marker.']);
  });

  it("genkit's ex03: no line break after the closing --- — the whole file is one user message, YAML included, counted with the default model", async () => {
    const { text } = realworldFile(EX03);
    const analysis = await analyze(EX03);
    expect(counted(analysis)).toEqual([{ role: 'user', text, mediaParts: 0 }]);
    expect(counted(analysis)).toEqual(await librarySends(join(REALWORLD, EX03)));
    expect(analysis.prompts[0]!.model.model).toBe('gpt-4o'); // the library reads no `model:` either
    expect(analysis.prompts[0]!.totalTokens).toBeGreaterThan(60);
    const warning = analysis.diagnostics.find((d) => d.code === 'front-matter-end')!;
    expect(warning.message).toMatch(/reads no front matter: it sends the whole file, YAML included, as prompt text, and that is what is counted/);
    expect(warning.range).toEqual({ start: text.length - 3, end: text.length });
  });

  it('where the library reads no front matter, neither do the counts: `...`, `---x`, an empty one, YAML it cannot parse, no front matter at all', async () => {
    const quiet = vi.spyOn(console, 'error').mockImplementation(() => undefined); // the library logs the YAML error
    const texts = ['---\nmodel: x\n...\nHello {{name}}\n', '---\nmodel: x\n---x\nHello\n', '---\n---\nHello\n', '---\nmodel: x\nbad: [\n---\nHi\n', '---\nmodel: x\nbad: [\n---\n{{role "system"}}Hi {{name}}\n', 'Hello\n\n'];
    for (const text of texts) {
      const analysis = await analyzePromptText('t.prompt', text, counter, options);
      const dotprompt = new Dotprompt();
      const library = (await dotprompt.render(text, { input: {} })).messages.map((m) => ({ role: m.role, text: m.content.map((p) => ('text' in p ? p.text : '')).join(''), mediaParts: 0 }));
      expect(counted(analysis), JSON.stringify(text)).toEqual(library);
      expect(analysis.prompts[0]!.model.model, JSON.stringify(text)).toBe('gpt-4o');
    }
    quiet.mockRestore();
  });

  it('in Restricted Mode (nothing rendered) the counts follow the library’s reading of the source: its front matter, role and history markers, empty turns dropped', async () => {
    expect(counted(await analyze(EX03, false))).toEqual([{ role: 'user', text: realworldFile(EX03).text, mediaParts: 0 }]);
    // As written, a variable's tag is its text: the turn is counted as the runtime, which has a value, sends it.
    expect(counted(await analyze(EX06, false)).map((m) => [m.role, m.text])).toEqual([
      ['system', 'You are a helpful AI assistant that really loves to talk about food. Try to work\nfood items into all of your conversations.'],
      ['user', '{{userQuestion}}'],
    ]);
    // `{{history}}` starts a model turn (the library's rule); the user turn before it holds only a comment and is not sent.
    expect(counted(await analyze(HISTORY, false)).map((m) => [m.role, m.text.split('\n').at(-1)])).toEqual([
      ['system', 'Keep responses concise but helpful.'],
      ['model', '{{newMessage}}'],
    ]);
  });

  it('the built CLI counts them so: `tokens --json` on ex06, 04 and 07 gives one system message each, on ex03 one user message', async () => {
    const result = await runCli(['tokens', '--json', ...[EX06, TOOLS, HISTORY, EX03].map((p) => join(REALWORLD, p))], process.cwd(), { killAfterMs: 60_000 });
    expect(result.code, result.stderr).toBe(0);
    const files = (JSON.parse(result.stdout) as { files: { prompts: { tokens: { messages: { role: string }[] } }[] }[] }).files;
    expect(files.map((f) => f.prompts[0]!.tokens.messages.map((m) => m.role))).toEqual([['system'], ['system'], ['system'], ['user']]);
  });
});

/**
 * Files the library itself cannot render, and why: deliberately broken examples, helpers or partials
 * the application registers, circular partials. The counts fall back to the text as written, with a
 * warning; a file that starts or stops rendering changes this list.
 */
const LIBRARY_REFUSES: Record<string, RegExp> = {
  'firebase/genkit/js/testapps/prompt-file/prompts/recipe.prompt': /knownHelpersOnly/,
  'firebase/genkit/py/samples/prompts/prompts/recipe.prompt': /knownHelpersOnly/,
  'google/dotprompt/examples/autocomplete.prompt': /Parse error/,
  'google/dotprompt/examples/error-multiple-issues.prompt': /Parse error/,
  'google/dotprompt/examples/error-unclosed-block.prompt': /Parse error/,
  'google/dotprompt/examples/error-unmatched-closing-block.prompt': /Parse error/,
  'google/dotprompt/examples/partials/circular-partial-a.prompt': /call stack/,
  'google/dotprompt/examples/partials/circular-partial-b.prompt': /call stack/,
  'google/dotprompt/examples/partials.prompt': /partial footer could not be found/,
  'google/dotprompt/examples/valid-comments-and-partials.prompt': /partial header could not be found/,
  'google/dotprompt/examples/valid-greeting.prompt': /Parse error/,
  'google/dotprompt/packages/codemirror/samples/05-handlebars-helpers.prompt': /knownHelpersOnly/,
  'google/dotprompt/packages/codemirror/samples/06-partials.prompt': /knownHelpersOnly/,
  'google/dotprompt/packages/codemirror/samples/08-sections-thinking.prompt': /doesn't match section/,
  'google/dotprompt/packages/codemirror/samples/10-kitchen-sink.prompt': /Parse error/,
};

describe('oracle: the dotprompt library on every Dotprompt file of the corpus', () => {
  it('the counted messages are the messages the library sends: roles, text and media parts', { timeout: 120_000 }, async () => {
    const quiet = vi.spyOn(console, 'error').mockImplementation(() => undefined); // the library logs front matter it cannot parse
    const files = filesUnder(REALWORLD).filter((f) => f.endsWith('.prompt'));
    expect(files.length).toBeGreaterThan(90);
    const refused: Record<string, string> = {};
    const differing: string[] = [];
    let compared = 0;
    for (const file of files) {
      const path = relative(REALWORLD, file);
      let expected: SentMessage[];
      try {
        expected = await librarySends(file);
      } catch (error) {
        refused[path] = String(error);
        continue;
      }
      compared++;
      const analysis = await analyzePromptText(basename(file), readFileSync(file, 'utf8'), counter, { ...options, filePath: file });
      const ours = counted(analysis);
      if (JSON.stringify(ours) !== JSON.stringify(expected)) differing.push(`${path}\n  library ${JSON.stringify(expected)}\n  counted ${JSON.stringify(ours)}`);
    }
    expect(differing).toEqual([]);
    expect(Object.keys(refused).sort()).toEqual(Object.keys(LIBRARY_REFUSES).sort());
    for (const [path, why] of Object.entries(refused)) expect(why, path).toMatch(LIBRARY_REFUSES[path]!);
    expect(compared).toBe(files.length - Object.keys(LIBRARY_REFUSES).length);
    quiet.mockRestore();
  });
});
