/**
 * Issue 20's attack chain against the template engines, each step alone and all together, then
 * through the real CLI bundle (dist/cli.js, render processes and all) with canaries: a payload that
 * ran would create a file or write `id`'s output into one. Mustache and Handlebars prototype walks
 * must find nothing. Build first (`npm run build`).
 */
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, realpathSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { renderDotprompt } from '../../../src/core/render/dotprompt';
import { renderJinja } from '../../../src/core/render/jinja';
import { renderMustache } from '../../../src/core/render/mustache';
import {
  AFTER_THE_ATTACK, canariesIn, dotprompt, HANDLEBARS_WALKS, jinjaChain, jinjaSteps, LEAKS, MUSTACHE_WALKS, mustachePrompty, prompty,
} from '../../fixtures/isolation/attackPrompts';

const run = promisify(execFile);
const CLI = resolve('dist/cli.js');
const DATA = { who: 'Ann', items: [1, 2] };

function leaksIn(text: string): string[] {
  return LEAKS.filter((leak) => text.includes(leak));
}

function expectNothingReached(result: { text: string } | { error: string }): void {
  if ('error' in result) expect(result.error).not.toMatch(/native code|uid=/);
  else expect(leaksIn(result.text)).toEqual([]);
  expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  expect(({} as Record<string, unknown>).pwn).toBeUndefined();
}

describe('the attack chain, each step alone and together (Jinja2)', () => {
  const dir = realpathSync(mkdtempSync(join(tmpdir(), 'pi-chain-')));
  const canaries = canariesIn(dir);
  const steps = Object.entries({ ...jinjaSteps(canaries), 'all steps together': jinjaChain(canaries) });

  it.each(steps)('%s: reaches nothing, and pollutes nothing for the next render', (_name, template) => {
    expectNothingReached(renderJinja(template, DATA));
    // The next render sees clean data: nothing the step wrote persists.
    expect(renderJinja('{{ polluted }}|{{ pwn }}|{{ who }}', DATA)).toEqual({ text: '||Ann', missing: ['polluted', 'pwn'] });
    expect(existsSync(canaries.written)).toBe(false);
    expect(existsSync(canaries.spawned)).toBe(false);
  });

  it('top-level names that exist only on prototypes are variables with no value', () => {
    expect(renderJinja('{{ valueOf }}|{{ constructor }}|{{ __proto__ }}', DATA)).toEqual({ text: '||', missing: ['valueOf', 'constructor', '__proto__'] });
  });
});

describe('prototype walks find nothing (Mustache, Handlebars)', () => {
  it('Mustache: {{#__proto__}}{{constructor.name}}{{/__proto__}} and its variants render nothing', () => {
    expect(renderMustache('{{#__proto__}}{{constructor.name}}{{/__proto__}}', {})).toEqual({ text: '', missing: ['__proto__'] });
    const walked = renderMustache(MUSTACHE_WALKS, DATA);
    expect(walked).toMatchObject({ text: '||||' });
  });

  it('Handlebars (Dotprompt): the same walks render nothing', async () => {
    const rendered = await renderDotprompt(dotprompt(HANDLEBARS_WALKS), {}, {});
    expect(rendered).not.toHaveProperty('error');
    const text = 'messages' in rendered ? rendered.messages.map((m) => m.text).join('') : '';
    expect(text).toContain('||||||');
    expect(leaksIn(text)).toEqual([]);
  });
});

describe('the chain through the real CLI (render processes)', () => {
  it('tokens --rendered: no canary, no leak, and the next file renders clean', async () => {
    const dir = realpathSync(mkdtempSync(join(tmpdir(), 'pi-chain-cli-')));
    const canaries = canariesIn(dir);
    const files: string[] = [];
    const write = (name: string, text: string): void => {
      writeFileSync(join(dir, name), text);
      files.push(join(dir, name));
    };
    Object.values(jinjaSteps(canaries)).forEach((body, i) => write(`step${i + 1}.prompty`, prompty(`step${i + 1}`, body)));
    write('chain.prompty', prompty('chain', jinjaChain(canaries)));
    write('after.prompty', prompty('after', AFTER_THE_ATTACK));
    write('walk.prompty', mustachePrompty('walk', MUSTACHE_WALKS));
    write('walk.prompt', dotprompt(HANDLEBARS_WALKS));
    const { stdout } = await run(process.execPath, [CLI, 'tokens', '--json', '--rendered', ...files], { timeout: 60_000, cwd: dir });
    const results = JSON.parse(stdout).files as { file: string; prompts: { tokens: { messages: { content: string }[] } }[]; diagnostics: { code: string }[] }[];
    const contentOf = (name: string) => results.find((r) => r.file.endsWith(name))!.prompts[0]!.tokens.messages[0]!.content;
    for (const result of results) {
      const refused = result.diagnostics.some((d) => d.code === 'template-error');
      // Refused steps are counted as written (their own text); rendered ones show nothing they reached.
      if (!refused) expect({ file: result.file, leaks: leaksIn(result.prompts[0]!.tokens.messages[0]!.content) }).toEqual({ file: result.file, leaks: [] });
    }
    expect(contentOf('after.prompty')).toBe('||Ann');
    expect(contentOf('walk.prompty')).toBe('||||');
    expect(contentOf('walk.prompt')).toContain('||||||');
    expect(stdout).not.toContain('uid=');
    expect(existsSync(canaries.written)).toBe(false);
    expect(existsSync(canaries.spawned)).toBe(false);
  }, 90_000);
});
