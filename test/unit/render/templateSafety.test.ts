/**
 * Rendering never runs code from the file and never hangs: prompt files come from repositories we
 * do not trust, and the language server renders them as they open. The escapes that run code on
 * nunjucks find nothing in the interpreting engine (@huggingface/jinja); a template that loops for
 * minutes or builds a huge string is stopped by the render process's limits, here through the real
 * CLI bundle (dist/cli.js).
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { renderJinja } from '../../../src/core/render/jinja';
import { renderMustache } from '../../../src/core/render/mustache';
import { analyzePromptText } from '../../../src/core/analysis';
import { TokenCounter } from '../../../src/core/tokens/counter';

const run = promisify(execFile);
const CLI = resolve('dist/cli.js');

// Payloads that reach Function (and so require/process) on an unguarded nunjucks.
const ESCAPES = [
  '{{ range.constructor("return process.pid")() }}',
  '{{ cycler.constructor("return process.pid")() }}',
  '{{ joiner.constructor.constructor("return process.pid")() }}',
  '{% set c = "constructor" %}{{ range[c]("return process.pid")() }}',
  '{{ "".constructor.constructor("return process.pid")() }}',
  '{{ name.__proto__.constructor.constructor("return process.pid")() }}',
  '{{ items.constructor.constructor("return process.pid")() }}',
  '{{ items.map.call(items, range.constructor) }}',
  '{% set f = range %}{{ f.apply(null, []) }}',
];

describe('template safety', () => {
  it('first shows the payloads are real: nunjucks (which compiles templates to JavaScript), unguarded, runs them', async () => {
    const nunjucks = (await import('nunjucks')).default;
    expect(new nunjucks.Environment([], { autoescape: false }).renderString(ESCAPES[0]!, {})).toBe(String(process.pid));
  });

  it.each(ESCAPES)('refuses %s', (payload) => {
    const result = renderJinja(payload, { name: 'Ann', items: [1, 2] });
    expect(result).toHaveProperty('error');
    expect(JSON.stringify(result)).not.toContain(String(process.pid));
  });

  it('reads no file through include, import or extends, and caps range()', () => {
    for (const tag of ['{% include "/etc/passwd" %}', '{% import "/etc/passwd" as x %}', '{% extends "/etc/passwd" %}']) {
      const result = renderJinja(tag, {});
      expect(result).toHaveProperty('error');
      expect(JSON.stringify(result)).not.toContain('root:');
    }
    expect(renderJinja('{% for i in range(100000000) %}x{% endfor %}', {})).toEqual({ error: expect.stringContaining('range() of 100000000 items refused') });
    expect(renderJinja('{% for i in range(3) %}{{ i }}{% endfor %}', {})).toEqual({ text: '012', missing: [] });
  });

  it('mustache runs nothing: a value shaped like a lambda stays data', () => {
    expect(renderMustache('{{#f}}x{{/f}}{{g}}', { f: 'return process.pid', g: '{{h}}' })).toEqual({ text: 'x{{h}}', missing: [] });
  });

  it('a hostile prompt opened in the analysis is a diagnostic, never code', async () => {
    const text = `---\nname: hostile\n---\nsystem:\n${ESCAPES[0]}\nuser:\nhi\n`;
    const analysis = await analyzePromptText('h.prompty', text, new TokenCounter(), { defaultModel: 'gpt-4o' });
    expect(analysis.diagnostics.map((d) => d.code)).toContain('template-error');
    expect(analysis.prompts[0]!.messages.map((m) => m.content).join()).not.toContain(String(process.pid));
  });

  it('the CLI stops a template that loops for minutes at the render deadline, says so, and exits', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'pi-hostile-'));
    const file = join(dir, 'loop.prompty');
    writeFileSync(file, '---\nname: loop\n---\nsystem:\n{% for a in range(10000) %}{% for b in range(10000) %}{% for c in range(10000) %}x{% endfor %}{% endfor %}{% endfor %}\nuser:\nhi\n');
    const started = Date.now();
    const { stdout } = await run(process.execPath, [CLI, 'tokens', '--json', file], { timeout: 30_000 });
    const elapsed = Date.now() - started;
    const diagnostics = JSON.parse(stdout).files[0].diagnostics as { code: string; message: string }[];
    expect(diagnostics.find((d) => d.code === 'template-error')?.message).toContain('did not finish rendering within 2000 ms');
    expect(elapsed).toBeLessThan(15_000);
  });

  it('the CLI stops a template that builds a gigabyte string, and goes on with the next file', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'pi-hostile-'));
    const big = join(dir, 'big.prompty');
    writeFileSync(big, '---\nname: big\n---\nsystem:\n{% set s = "xxxxxxxxxxxxxxxx" %}{% for i in range(40) %}{% set s = s + s + s %}{% endfor %}{{ s | length }}\nuser:\nhi\n');
    const fine = join(dir, 'fine.prompty');
    writeFileSync(fine, '---\nname: fine\nsample:\n  who: Ada\n---\nuser:\nHello {{ who }}\n');
    const { stdout } = await run(process.execPath, [CLI, 'tokens', '--json', '--rendered', big, fine], { timeout: 30_000 });
    const files = JSON.parse(stdout).files;
    expect(files[0].diagnostics.map((d: { code: string }) => d.code)).toContain('template-error');
    expect(files[1].prompts[0].tokens.messages[0].content).toBe('Hello Ada');
  });
});
