/** Files a prompt refers to are read beside it only: real files from the corpus, and attacks built here. */
import { mkdtempSync, mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { analyzePromptText } from '../../../src/core/analysis';
import { loadPartials, resolveFileValues } from '../../../src/core/render/references';
import { TokenCounter } from '../../../src/core/tokens/counter';
import { realworldFile } from '../../fixtures/realworld';
import { renderedPromptMarkdown } from '../../../src/extension/renderedDocument';

describe('references beside the prompt', () => {
  it("Prompty ${file:} inputs are read and rendered (contoso-creative-writer's writer agent)", async () => {
    const { path, text } = realworldFile('Azure-Samples/contoso-creative-writer/src/api/agents/writer/writer.prompty');
    const research = JSON.parse(realworldFile('Azure-Samples/contoso-creative-writer/src/api/agents/writer/research.json').text);
    const analysis = await analyzePromptText('writer.prompty', text, new TokenCounter(), { defaultModel: 'gpt-4o', filePath: path });
    const system = analysis.prompts[0]!.messages[0]!.content;
    const firstUrl = JSON.stringify(research).match(/https?:\/\/[^"\\]+/)![0];
    expect(system).toContain(firstUrl);
    expect(system).not.toContain('${file:');
    expect(analysis.diagnostics.filter((d) => d.code === 'unresolved-reference')).toEqual([]);
  });

  it('Dotprompt partials come from _name.prompt beside the prompt (genkit story.prompt)', async () => {
    const { path, text } = realworldFile('firebase/genkit/js/testapps/prompt-file/prompts/story.prompt');
    const partial = realworldFile('firebase/genkit/js/testapps/prompt-file/prompts/_style.prompt').text.trim().split('\n').at(-1)!.trim();
    const analysis = await analyzePromptText('story.prompt', text, new TokenCounter(), { defaultModel: 'gpt-4o', filePath: path });
    expect(analysis.prompts[0]!.messages.map((m) => m.content).join('\n')).toContain(partial.replace(/\{\{[^}]*\}\}/g, '').trim().slice(0, 20));
  });

  it('refuses paths outside the folder, links that lead out of it, and files over 1 MB', () => {
    const root = mkdtempSync(join(tmpdir(), 'pi-refs-'));
    const folder = join(root, 'prompts');
    mkdirSync(folder);
    writeFileSync(join(root, 'secret.txt'), 'TOP SECRET');
    symlinkSync(join(root, 'secret.txt'), join(folder, 'inside.json'));
    symlinkSync(join(root, 'secret.txt'), join(folder, '_style.prompt'));
    writeFileSync(join(folder, 'big.json'), `"${'x'.repeat(1024 * 1024 + 10)}"`);
    writeFileSync(join(folder, 'ok.json'), '{"a": 1}');
    const prompt = join(folder, 'p.prompty');
    const { values, notes } = resolveFileValues(prompt, { up: '${file:../secret.txt}', abs: `\${file:${join(root, 'secret.txt')}}`, link: '${file:inside.json}', big: '${file:big.json}', ok: '${file:ok.json}' });
    expect(values.ok).toEqual({ a: 1 });
    for (const key of ['up', 'abs', 'link', 'big']) expect(String(values[key])).toMatch(/^\$\{file:/);
    expect(notes.map((n) => n.message).join('\n')).toMatch(/outside the prompt's folder[\s\S]*outside the prompt's folder[\s\S]*leads outside[\s\S]*over the 1048576-byte limit/);
    const partials = loadPartials(prompt, '{{> style}}');
    expect(partials.partials).toEqual({});
    expect(JSON.stringify(partials)).not.toContain('TOP SECRET');
  });

  it('partials are also looked for in configured folders, after the prompt\'s own (CLI --partials)', async () => {
    const root = mkdtempSync(join(tmpdir(), 'pi-partials-'));
    mkdirSync(join(root, 'prompts'));
    mkdirSync(join(root, 'shared'));
    writeFileSync(join(root, 'shared', '_tone.prompt'), 'Answer in a warm tone.');
    writeFileSync(join(root, 'prompts', '_local.prompt'), 'Local rules.');
    const file = join(root, 'prompts', 'p.prompt');
    writeFileSync(file, '---\nmodel: gpt-4o\n---\n{{role "system"}}\n{{> local}} {{> tone}}\n{{role "user"}}\nHi\n');
    expect(loadPartials(file, '{{> tone}}').partials).toEqual({});
    expect(loadPartials(file, '{{> tone}} {{> local}}', [join(root, 'shared')]).partials).toEqual({ tone: 'Answer in a warm tone.', local: 'Local rules.' });
    const { execFile } = await import('node:child_process');
    const out = await new Promise<string>((done, fail) => execFile(process.execPath, ['dist/cli.js', 'tokens', '--json', '--rendered', '--partials', join(root, 'shared'), file], (error, stdout) => (error ? fail(error) : done(stdout))));
    expect(JSON.parse(out).files[0].prompts[0].tokens.messages[0].content).toContain('Local rules. Answer in a warm tone.');
  });

  it('the "what will be sent" document fences content so that no backticks in it can end the block', () => {
    const markdown = renderedPromptMarkdown({ name: 'p', model: 'gpt-4o', modelFromFile: true, encoding: 'o200k_base', totalTokens: 12, messages: [{ role: 'user', content: 'a ```` b', tokens: 5, mediaParts: 0, line: 3 }], notes: ['line 4: x'] }, 'p.prompty');
    expect(markdown).toContain('`````text\na ```` b\n`````');
    expect(markdown).toContain('## user · 5 tokens · from line 4');
    expect(markdown).toContain('- line 4: x');
  });
});
