/**
 * The .prompty and .prompt grammars as VS Code runs them (vscode-textmate on the Oniguruma WASM
 * VS Code ships): front matter embedded as YAML and closed where the parser closes it, template
 * expressions and statements, and role markers exactly where the product's own parsers find them —
 * over the examples and every real-world prompt file in test/fixtures/realworld.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import * as oniguruma from 'vscode-oniguruma';
import { INITIAL, parseRawGrammar, Registry, type IGrammar } from 'vscode-textmate';
import { beforeAll, describe, expect, it } from 'vitest';
import { parsePromptFile } from '../../../src/core/formats/detect';
import { splitFrontMatter } from '../../../src/core/formats/frontMatter';
import { dotpromptSourceStart } from '../../../src/core/formats/dotprompt';

interface Token {
  text: string;
  /** Offset in the whole file. */
  start: number;
  scopes: string[];
}

const manifest = JSON.parse(readFileSync('package.json', 'utf8')) as { contributes: { grammars: { language?: string; scopeName: string; path: string; injectTo?: string[] }[] } };
const grammarFiles = new Map(manifest.contributes.grammars.map((g) => [g.scopeName, g.path]));

/** A stand-in for VS Code's Markdown grammar, just enough to host the injection: text and fenced code. */
const MARKDOWN_HOST = JSON.stringify({
  scopeName: 'text.html.markdown',
  patterns: [{ name: 'markup.fenced_code.block.markdown', begin: '^```', end: '^```' }],
});

let registry: Registry;

beforeAll(async () => {
  await oniguruma.loadWASM(readFileSync('node_modules/vscode-oniguruma/release/onig.wasm').buffer as ArrayBuffer);
  registry = new Registry({
    onigLib: Promise.resolve({ createOnigScanner: (sources) => new oniguruma.OnigScanner(sources), createOnigString: (text) => new oniguruma.OnigString(text) }),
    loadGrammar: async (scopeName) => {
      if (scopeName === 'text.html.markdown') return parseRawGrammar(MARKDOWN_HOST, 'markdown.json');
      // source.yaml is VS Code's own in the editor; here a real YAML grammar from test/fixtures/grammars.
      const path = scopeName === 'source.yaml' ? 'test/fixtures/grammars/yaml.tmLanguage.json' : grammarFiles.get(scopeName);
      return path ? parseRawGrammar(readFileSync(path, 'utf8'), path) : null;
    },
    getInjections: (scopeName) => manifest.contributes.grammars.filter((g) => g.injectTo?.includes(scopeName)).map((g) => g.scopeName),
  });
});

async function tokenize(scopeName: string, text: string): Promise<Token[]> {
  const grammar = (await registry.loadGrammar(scopeName)) as IGrammar;
  expect(grammar, scopeName).toBeTruthy();
  const tokens: Token[] = [];
  let stack = INITIAL;
  let offset = 0;
  for (const line of text.split('\n')) {
    const result = grammar.tokenizeLine(line, stack);
    for (const t of result.tokens) tokens.push({ text: line.slice(t.startIndex, t.endIndex), start: offset + t.startIndex, scopes: t.scopes });
    stack = result.ruleStack;
    offset += line.length + 1;
  }
  return tokens;
}

const scopesOf = (tokens: Token[], text: string): string[] => tokens.find((t) => t.text === text)?.scopes ?? [];
/** Scopes at the first occurrence of `needle` in the file (YAML's grammar splits words into several tokens). */
const scopesAt = (tokens: Token[], file: string, needle: string): string[] => {
  const at = file.indexOf(needle);
  return tokens.find((t) => t.start <= at && at < t.start + t.text.length)?.scopes ?? [];
};
const has = (tokens: Token[], text: string, scope: string): boolean => tokens.some((t) => t.text === text && t.scopes.some((s) => s === scope || s.startsWith(`${scope}.`)));

function filesUnder(dir: string, ext: RegExp): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? filesUnder(path, ext) : ext.test(name) ? [path] : [];
  });
}

describe('package.json contributes the grammars', () => {
  it('for prompty, dotprompt and the .prompt.md injection, each with its file under syntaxes/', () => {
    expect(manifest.contributes.grammars.map((g) => [g.language ?? null, g.scopeName, g.path])).toEqual([
      ['prompty', 'source.prompty', './syntaxes/prompty.tmLanguage.json'],
      ['dotprompt', 'source.dotprompt', './syntaxes/dotprompt.tmLanguage.json'],
      [null, 'text.prompt-insight.prompt-md-variables', './syntaxes/prompt-md.injection.tmLanguage.json'],
    ]);
  });
});

describe('Prompty grammar', () => {
  it('homes.prompty: YAML front matter embedded, role lines, {{variables}}', async () => {
    const text = readFileSync('examples/homes/homes.prompty', 'utf8');
    const tokens = await tokenize('source.prompty', text);
    expect(scopesAt(tokens, text, 'gpt-4o-mini')).toEqual(expect.arrayContaining(['meta.embedded.block.frontmatter', 'source.yaml']));
    expect(scopesAt(tokens, text, 'temperature')).toContain('entity.name.tag.yaml');
    expect(scopesAt(tokens, text, '0.2')).toContain('constant.numeric.float.yaml');
    expect(scopesOf(tokens, 'system')).toContain('entity.name.tag.role.prompty');
    expect(scopesOf(tokens, 'user')).toContain('entity.name.tag.role.prompty');
    expect(has(tokens, 'city', 'variable.other.jinja')).toBe(true);
    expect(has(tokens, '{{', 'punctuation.definition.template-expression.begin.jinja')).toBe(true);
    // "Rules:" in the body is text, not a role; nothing after the closing fence is YAML.
    const bodyStart = splitFrontMatter(text).bodyStart;
    expect(tokens.filter((t) => t.start >= bodyStart && t.scopes.includes('source.yaml'))).toEqual([]);
    expect(tokens.filter((t) => t.text.includes('Rules')).every((t) => !t.scopes.some((s) => s.startsWith('entity.name.tag.role')))).toBe(true);
  });

  it('Jinja statements, filters and comments', async () => {
    const tokens = await tokenize('source.prompty', '---\nname: x\n---\nsystem:\n{% for item in docs %}{{ item.title | upper }}{% endfor %}{# note #}\n# user:\n{{question}}\n');
    expect(scopesOf(tokens, 'for')).toContain('keyword.control.jinja');
    expect(scopesOf(tokens, 'endfor')).toContain('keyword.control.jinja');
    expect(scopesOf(tokens, 'upper')).toContain('support.function.filter.jinja');
    expect(tokens.find((t) => t.text.includes('note'))!.scopes).toContain('comment.block.jinja');
    expect(scopesOf(tokens, 'user')).toContain('entity.name.tag.role.prompty');
  });

  it('a closing fence with a stray character does not close the front matter: what follows stays YAML-coloured, beside the diagnostic', async () => {
    const text = '---\nname: x\n---x\nsystem:\nHi\n';
    const tokens = await tokenize('source.prompty', text);
    expect(scopesAt(tokens, text, 'system')).toContain('source.yaml');
  });

  const realworld = filesUnder('test/fixtures/realworld', /\.prompty$/);
  it(`role markers where the parser finds them, front matter closed where it closes, in ${realworld.length} real .prompty files`, async () => {
    expect(realworld.length).toBeGreaterThan(10);
    for (const file of ['examples/homes/homes.prompty', ...realworld]) {
      const text = readFileSync(file, 'utf8').replace(/\r\n/g, '\n');
      const tokens = await tokenize('source.prompty', text);
      const doc = parsePromptFile(file, text);
      const markers = doc.prompts[0]!.body!.markers.map((m) => m.range.start);
      const roleTokens = tokens.filter((t) => t.scopes.includes('entity.name.tag.role.prompty')).map((t) => text.lastIndexOf('\n', t.start - 1) + 1);
      expect(roleTokens, file).toEqual(markers);
      const bodyStart = splitFrontMatter(text).bodyStart;
      expect(tokens.filter((t) => t.start >= bodyStart && t.scopes.includes('source.yaml')).map((t) => t.text), file).toEqual([]);
    }
  });
});

describe('Dotprompt grammar', () => {
  it('homes.prompt: YAML front matter, {{role "…"}} markers, variables', async () => {
    const text = readFileSync('examples/homes/homes.prompt', 'utf8');
    const tokens = await tokenize('source.dotprompt', text);
    expect(scopesAt(tokens, text, 'maxOutputTokens')).toEqual(expect.arrayContaining(['meta.embedded.block.frontmatter', 'source.yaml', 'entity.name.tag.yaml']));
    expect(scopesOf(tokens, 'system')).toContain('entity.name.tag.role.dotprompt');
    expect(scopesOf(tokens, 'role')).toContain('support.function.helper.dotprompt');
    expect(has(tokens, 'request', 'variable.other.handlebars')).toBe(true);
  });

  it('{{#if}}…{{else}}…{{/if}}, {{#each}}, partials, comments, hash arguments, licence lines', async () => {
    const text = '# Copyright 2025\n# SPDX-License-Identifier: Apache-2.0\n\n---\nmodel: x\n---\n{{!-- hidden --}}{{#if ingredients}}Use {{list ingredients}}{{else}}none{{/if}}\n{{#each items as |item|}}{{@index}}{{/each}}{{> _style}}{{media url=videoUrl}}\n';
    const tokens = await tokenize('source.dotprompt', text);
    expect(tokens.find((t) => t.text.includes('Copyright'))!.scopes).toContain('comment.line.number-sign.dotprompt');
    expect(scopesAt(tokens, text, 'model')).toContain('source.yaml');
    expect(tokens.find((t) => t.text.includes('hidden'))!.scopes).toContain('comment.block.handlebars');
    expect(tokens.filter((t) => t.text === 'if').map((t) => t.scopes.at(-1))).toEqual(['keyword.control.block.handlebars', 'keyword.control.block.handlebars']);
    expect(scopesOf(tokens, 'else')).toContain('keyword.control.handlebars');
    expect(tokens.filter((t) => t.text === 'each').map((t) => t.scopes.at(-1))).toEqual(['keyword.control.block.handlebars', 'keyword.control.block.handlebars']);
    expect(scopesOf(tokens, '@index')).toContain('variable.language.handlebars');
    expect(scopesOf(tokens, '_style')).toContain('entity.name.function.partial.handlebars');
    expect(scopesOf(tokens, 'url')).toContain('entity.other.attribute-name.handlebars');
    expect(scopesOf(tokens, 'media')).toContain('support.function.helper.dotprompt');
    expect(tokens.filter((t) => t.start > text.indexOf('{{!--') && t.scopes.includes('source.yaml'))).toEqual([]);
  });

  const realworld = filesUnder('test/fixtures/realworld', /\.prompt$/);
  it(`role markers where the parser finds them, front matter closed where it closes, in ${realworld.length} real .prompt files`, async () => {
    expect(realworld.length).toBeGreaterThan(10);
    for (const file of ['examples/homes/homes.prompt', ...realworld]) {
      const text = readFileSync(file, 'utf8').replace(/\r\n/g, '\n');
      const tokens = await tokenize('source.dotprompt', text);
      const doc = parsePromptFile(file, text);
      const markers = (doc.prompts[0]?.body?.markers ?? []).map((m) => m.range.start);
      const roleTags = tokens.filter((t) => t.scopes.includes('meta.role-marker.dotprompt') && t.text.startsWith('{{')).map((t) => t.start);
      expect(roleTags, file).toEqual(markers);
      const bodyStart = splitFrontMatter(text, dotpromptSourceStart(text)).bodyStart;
      expect(tokens.filter((t) => t.start >= bodyStart && t.scopes.includes('source.yaml')).map((t) => t.text), file).toEqual([]);
    }
  });
});

describe('.prompt.md variables', () => {
  it('${input:name:placeholder} and ${selection} in Markdown text are variables; in a code block they are not', async () => {
    const tokens = await tokenize('text.html.markdown', 'Review ${input:file:path to review} and ${selection}.\n```\necho ${input:x}\n```\n');
    expect(scopesOf(tokens, 'input')).toContain('support.variable.prompt-md');
    expect(scopesOf(tokens, 'file')).toContain('variable.parameter.prompt-md');
    expect(scopesOf(tokens, 'path to review')).toContain('string.unquoted.placeholder.prompt-md');
    expect(scopesOf(tokens, 'selection')).toContain('support.variable.prompt-md');
    expect(tokens.filter((t) => t.text.includes('echo')).flatMap((t) => t.scopes)).not.toContain('variable.other.prompt-md');
    expect(tokens.filter((t) => t.scopes.includes('variable.other.prompt-md') && t.start > 60)).toEqual([]);
  });
});
