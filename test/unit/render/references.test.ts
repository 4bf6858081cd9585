/** Files a prompt refers to are read beside it only: real files from the corpus, and attacks built here. */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, mkdirSync, realpathSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { analyzePromptText } from '../../../src/core/analysis';
import { loadPartials, resolveFileValues } from '../../../src/core/render/references';
import { TokenCounter } from '../../../src/core/tokens/counter';
import { realworldFile } from '../../fixtures/realworld';
import { renderedPromptMarkdown } from '../../../src/extension/renderedDocument';
import { runIsolated } from '../files/isolated';

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

  it('refuses paths outside the workspace, absolute paths, links that lead out of it, and files over 1 MB', () => {
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
    // Outside git and the current directory, the prompt's own folder is its workspace.
    expect(notes.map((n) => n.message).join('\n')).toMatch(/'\.\.\/secret\.txt' leads outside the workspace[\s\S]*is an absolute path[\s\S]*'inside\.json' leads outside the workspace[\s\S]*over the 1048576-byte limit/);
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

describe('references inside the workspace only (issue 20)', () => {
  /** A git repository like a CI checkout: a token in .git/config, prompts below, data beside them. */
  function checkout() {
    const top = realpathSync(mkdtempSync(join(tmpdir(), 'pi-refs-ws-')));
    const repo = join(top, 'repo');
    mkdirSync(join(repo, 'prompts'), { recursive: true });
    mkdirSync(join(repo, 'data'));
    mkdirSync(join(top, 'elsewhere'));
    execFileSync('git', ['init', '-q', repo]);
    execFileSync('git', ['-C', repo, 'config', 'http.https://github.com/.extraheader', 'AUTHORIZATION: basic FAKE-EXTRAHEADER-TOKEN']);
    writeFileSync(join(repo, 'data', 'facts.json'), '{"city": "Bellevue"}');
    writeFileSync(join(top, 'elsewhere', 'creds'), 'https://ci:FAKE-CREDENTIAL@github.com');
    return { top, repo };
  }

  it('${file:.git/config}, ${file:../.git/config} and a link into .git are refused; the token is never read', () => {
    const { repo } = checkout();
    symlinkSync('../.git/config', join(repo, 'prompts', 'cfg.json'));
    writeFileSync(join(repo, 'p.prompty'), '');
    const atTop = resolveFileValues(join(repo, 'p.prompty'), { cfg: '${file:.git/config}' });
    const below = resolveFileValues(join(repo, 'prompts', 'p.prompty'), { up: '${file:../.git/config}', link: '${file:cfg.json}' });
    for (const { values, notes } of [atTop, below]) {
      expect(JSON.stringify(values)).not.toContain('FAKE-EXTRAHEADER-TOKEN');
      for (const note of notes) expect(note.message).toMatch(/inside a \.git folder.*never read/);
    }
    expect(atTop.notes).toHaveLength(1);
    expect(below.notes).toHaveLength(2);
  });

  it('a file elsewhere in the workspace is read, by ../ or through a link inside it; a link to a file outside is not', () => {
    const { repo, top } = checkout();
    symlinkSync('../data/facts.json', join(repo, 'prompts', 'facts.json'));
    symlinkSync(join(top, 'elsewhere', 'creds'), join(repo, 'prompts', 'creds.txt'));
    const { values, notes } = resolveFileValues(join(repo, 'prompts', 'p.prompty'), { up: '${file:../data/facts.json}', link: '${file:facts.json}', out: '${file:creds.txt}' });
    expect(values).toMatchObject({ up: { city: 'Bellevue' }, link: { city: 'Bellevue' }, out: '${file:creds.txt}' });
    expect(notes.map((n) => n.message)).toEqual([expect.stringContaining("'creds.txt' leads outside the workspace")]);
    expect(JSON.stringify(notes)).not.toContain('FAKE-CREDENTIAL');
  });

  it('a partial that is a link to a file outside the workspace, or under .git, is not loaded', () => {
    const { repo, top } = checkout();
    symlinkSync(join(top, 'elsewhere', 'creds'), join(repo, 'prompts', '_style.prompt'));
    symlinkSync('../.git/config', join(repo, 'prompts', '_cfg.prompt'));
    const { partials, notes } = loadPartials(join(repo, 'prompts', 'p.prompt'), '{{> style}} {{> cfg}}');
    expect(partials).toEqual({});
    expect(notes.map((n) => n.message).join('\n')).toMatch(/partial 'style': .*leads outside the workspace[\s\S]*partial 'cfg': .*inside a \.git folder/);
    expect(JSON.stringify(notes)).not.toMatch(/FAKE-/);
  });

  it('the editor bounds references by the workspace folder holding the prompt (language-server option workspaceFolders)', async () => {
    const { repo } = checkout();
    const file = join(repo, 'prompts', 'p.prompty');
    const text = '---\nname: p\nmodel: gpt-4o\nsample:\n  facts: ${file:../data/facts.json}\n---\nuser:\nCity: {{facts.city}}\n';
    writeFileSync(file, text);
    const cli = await analyzePromptText('p.prompty', text, new TokenCounter(), { defaultModel: 'gpt-4o', filePath: file });
    expect(cli.prompts[0]!.messages[0]!.content).toBe('City: Bellevue');
    // With only prompts/ open as the workspace folder, ../data is outside it.
    const editor = await analyzePromptText('p.prompty', text, new TokenCounter(), { defaultModel: 'gpt-4o', filePath: file, workspaceFolders: [join(repo, 'prompts')] });
    expect(editor.prompts[0]!.messages[0]!.content).not.toContain('Bellevue');
    expect(editor.diagnostics.map((d) => d.message).join('\n')).toMatch(/leads outside the workspace/);
  });

  it('a ${file:} that is a FIFO is refused at once instead of blocking (child process with a timeout)', () => {
    const { repo } = checkout();
    execFileSync('mkfifo', [join(repo, 'pipe.json')]);
    const result = runIsolated(`
      import { resolveFileValues } from './src/core/render/references';
      console.log(JSON.stringify(resolveFileValues(${JSON.stringify(join(repo, 'p.prompty'))}, { x: '\${file:pipe.json}' }).notes));
    `, 5000);
    expect(result.timedOut).toBe(false);
    expect(JSON.parse(result.stdout)[0].message).toContain('FIFO');
  });
});
