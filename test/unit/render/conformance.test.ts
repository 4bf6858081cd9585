/**
 * Conformance on real prompt files (test/fixtures/realworld): every file is rendered by a reference the
 * test builds with each runtime's own rules, independently of the product's parsers, and counted
 * with tiktoken; the product's messages must have the same roles and the same token counts.
 *  - Prompty: front matter read with `yaml`; samples, scalar defaults and `${file:}` samples; the
 *    body trimmed and rendered with Jinja2 (nunjucks) or Mustache, then split at role lines by the
 *    rule of Prompty's v2 runtime parser: a role line followed by a blank line is an empty message.
 *  - Dotprompt: Google's `dotprompt` library renders the file with its own values (licence header
 *    before the front matter skipped, as its repository's parser does; `_name.prompt` partials from
 *    the folder); a message that renders empty is dropped, a file whose front matter it does not
 *    find is sent whole.
 *  - GitHub Models: `yaml`, then gh-models' rule: `{{key}}` replaced for each key of the first testData row.
 *  - VS Code prompt files: the body after the front matter, one user message.
 *  - Dotprompt's own spec cases (spec/**.yaml): the expected messages written in the spec.
 * The table is written to test-artifacts/conformance.md (README quotes it); the goals are asserted.
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { basename, dirname, join, relative } from 'node:path';
import Mustache from 'mustache';
import nunjucks from 'nunjucks';
import { get_encoding } from 'tiktoken';
import { describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import { analyzePromptText } from '../../../src/core/analysis';
import { parseDotprompt } from '../../../src/core/formats/dotprompt';
import { renderPrompt } from '../../../src/core/render/renderPrompt';
import { TokenCounter } from '../../../src/core/tokens/counter';
import { librarySends } from '../../fixtures/dotpromptLibrary';
import { filesUnder, REALWORLD } from '../../fixtures/realworld';

const o200k = get_encoding('o200k_base');
const tokens = (text: string) => o200k.encode_ordinary(text).length;
type Msg = { role: string; content: string };

const ALL = filesUnder(REALWORLD);

// ---- references -------------------------------------------------------------------------------

const FRONT = /^---[ \t]*\r?\n(?:([\s\S]*?)\r?\n)?---[ \t]*(?:\r?\n|$)/;

function promptyReference(file: string): Msg[] {
  const text = readFileSync(file, 'utf8');
  const match = FRONT.exec(text);
  const front = (match ? parseYaml(match[1] ?? "") : {}) ?? {};
  const body = (match ? text.slice(match[0].length) : text).trim(); // Prompty's loader keeps the body trimmed
  const values: Record<string, unknown> = {};
  // Inputs: a mapping name → spec (or → default value), or (v2) a list of specs with a name.
  const inputs = Array.isArray(front.inputs) ? Object.fromEntries((front.inputs as Record<string, unknown>[]).map((spec) => [String(spec.name), spec])) : front.inputs;
  if (inputs && typeof inputs === 'object') {
    for (const [key, spec] of Object.entries(inputs as Record<string, unknown>)) {
      if (spec && typeof spec === 'object' && !Array.isArray(spec)) {
        const s = spec as Record<string, unknown>;
        const value = s.sample ?? s.example ?? s.default;
        if (value !== undefined) values[key] = value;
      } else if (spec !== null && spec !== undefined) values[key] = spec;
    }
  }
  let sample = front.sample;
  if (typeof sample === 'string' && sample.startsWith('${file:')) sample = JSON.parse(readFileSync(join(dirname(file), sample.slice(7, -1)), 'utf8'));
  if (sample && typeof sample === 'object') Object.assign(values, sample);
  for (const [key, value] of Object.entries(values)) {
    if (typeof value === 'string' && value.startsWith('${file:')) values[key] = JSON.parse(readFileSync(join(dirname(file), value.slice(7, -1)), 'utf8'));
  }
  const format = typeof front.template === 'string' ? front.template : (front.template?.format?.kind ?? front.template?.format);
  const rendered = format === 'mustache' ? Mustache.render(body, values, {}, { escape: (v: string) => v }) : new nunjucks.Environment([], { autoescape: false }).renderString(body, values);
  // Prompty's v2 chat parser (runtime/*/parsers/prompty): the trimmed body's lines; a role line followed by at least one
  // line is a message (empty when the lines are blank); lines before the first role line are a system message; content
  // loses only the line breaks at its ends.
  const boundary = /^\s*#?\s*(assistant|developer|system|user|tool|function)(\[((\w+\s*=\s*"?[^"]*"?\s*,?\s*)+)\])?\s*:\s*$/i;
  const messages: Msg[] = [];
  let role = 'system';
  let buffer: string[] = [];
  const flush = () => {
    if (buffer.length > 0) messages.push({ role, content: buffer.join('\n').replace(/^[\r\n]+|[\r\n]+$/g, '') });
    buffer = [];
  };
  for (const line of rendered.split('\n')) {
    const m = boundary.exec(line.trim());
    if (m) {
      flush();
      role = m[1]!.toLowerCase();
    } else buffer.push(line);
  }
  flush();
  return messages;
}

async function dotpromptReference(file: string): Promise<Msg[]> {
  // The file's own values only: a message that renders empty without a value is dropped, as the library drops it.
  return (await librarySends(file)).map((m) => ({ role: m.role, content: m.text }));
}

function ghModelsReference(file: string): Msg[] {
  const doc = parseYaml(readFileSync(file, 'utf8'));
  const row: Record<string, unknown> = Array.isArray(doc.testData) && doc.testData[0] && typeof doc.testData[0] === 'object' ? doc.testData[0] : {};
  return (doc.messages as { role: string; content?: string }[]).map((m) => {
    let content = m.content ?? '';
    for (const [key, value] of Object.entries(row)) content = content.split(`{{${key}}}`).join(typeof value === 'string' ? value : String(value));
    return { role: m.role, content };
  });
}

function vscodeReference(file: string): Msg[] {
  const text = readFileSync(file, 'utf8');
  const match = FRONT.exec(text);
  const body = (match ? text.slice(match[0].length) : text).trim();
  return body ? [{ role: 'user', content: body }] : [];
}

// ---- comparison -------------------------------------------------------------------------------

interface Row {
  format: string;
  files: number;
  rendered: number;
  roles: number;
  tokens: number;
  differing: string[];
}

async function conform(format: string, files: string[], reference: (file: string) => Msg[] | Promise<Msg[]>, productFormat?: Parameters<typeof analyzePromptText>[3]['format']): Promise<Row> {
  const row: Row = { format, files: files.length, rendered: 0, roles: 0, tokens: 0, differing: [] };
  const counter = new TokenCounter();
  for (const file of files) {
    let expected: Msg[];
    try {
      expected = await reference(file);
    } catch {
      continue; // the runtime itself cannot render this file: counted in `files`, not in `rendered`
    }
    row.rendered++;
    const analysis = await analyzePromptText(basename(file), readFileSync(file, 'utf8'), counter, { defaultModel: 'gpt-4o', encoding: 'o200k_base', filePath: file, ...(productFormat ? { format: productFormat } : {}) });
    const ours = analysis.prompts[0]?.messages ?? [];
    const sameRoles = ours.map((m) => m.role).join() === expected.map((m) => m.role).join();
    if (sameRoles) row.roles++;
    if (sameRoles && ours.every((m, i) => m.tokens === tokens(expected[i]!.content))) row.tokens++;
    else row.differing.push(relative(REALWORLD, file));
  }
  return row;
}

async function dotpromptSpec(): Promise<Row> {
  const row: Row = { format: 'Dotprompt spec cases', files: 0, rendered: 0, roles: 0, tokens: 0, differing: [] };
  const specFiles = ALL.filter((f) => f.includes('/google/dotprompt/spec/') && f.endsWith('.yaml'));
  for (const specFile of specFiles) {
    for (const suite of parseYaml(readFileSync(specFile, 'utf8')) as { name: string; template: string; data?: Record<string, unknown>; partials?: Record<string, string>; resolverPartials?: Record<string, string>; tests: { desc: string; data?: Record<string, unknown>; options?: { input?: { default?: Record<string, unknown> } }; expect: { messages?: { role: string; content: { text?: string }[] }[] } }[] }[]) {
      for (const test of suite.tests) {
        if (!test.expect.messages) continue;
        row.files++;
        row.rendered++;
        const defaults = test.options?.input?.default ?? {};
        const text = suite.template;
        const doc = parseDotprompt(text, `${suite.name}.prompt`);
        const prompt = doc.prompts[0]!;
        // A suite's data applies to its tests; a test's own data wins.
        const data = { ...suite.data, ...test.data } as { input?: Record<string, unknown>; context?: Record<string, unknown>; messages?: unknown[] };
        const rendering = await renderPrompt(text, prompt, { ...defaults, ...(data.input ?? {}) }, { ...suite.partials, ...suite.resolverPartials }, { ...(data.context ? { context: data.context } : {}), ...(data.messages ? { messages: data.messages } : {}) });
        const expected = test.expect.messages.map((m) => ({ role: m.role, content: m.content.map((p) => p.text ?? '').join('') }));
        const sameRoles = rendering.messages.map((m) => m.role).join() === expected.map((m) => m.role).join();
        if (sameRoles) row.roles++;
        // The spec's messages as written, untrimmed (a trailing newline is part of the text sent).
        if (sameRoles && rendering.messages.every((m, i) => m.content === expected[i]!.content)) row.tokens++;
        else row.differing.push(`${relative(REALWORLD, specFile)} › ${suite.name} › ${test.desc}`);
      }
    }
  }
  return row;
}

describe('conformance with the runtimes on real prompt files', () => {
  it('renders like each runtime: roles and per-message tokens, per format', { timeout: 240_000 }, async () => {
    const isGhModels = (f: string) => /\.prompt\.ya?ml$/.test(f) || (f.includes('/github/gh-models/examples/') && f.endsWith('.yml'));
    const rows = [
      await conform('Prompty', ALL.filter((f) => f.endsWith('.prompty')), promptyReference),
      await conform('Dotprompt', ALL.filter((f) => f.endsWith('.prompt') && !f.includes('/google/dotprompt/spec/')), dotpromptReference, 'dotprompt'),
      await conform('.prompt.yml (incl. gh-models *.yml)', ALL.filter(isGhModels), ghModelsReference, 'github-prompt-yaml'),
      await conform('.prompt.md', ALL.filter((f) => f.endsWith('.prompt.md')), vscodeReference),
      await dotpromptSpec(),
    ];
    const table = [
      '| format | files | reference renders | roles equal | per-message tokens equal |',
      '|---|---:|---:|---:|---:|',
      ...rows.map((r) => `| ${r.format} | ${r.files} | ${r.rendered} | ${r.roles}/${r.rendered} | ${r.tokens}/${r.rendered} (${((100 * r.tokens) / Math.max(1, r.rendered)).toFixed(1)}%) |`),
    ].join('\n');
    const differing = rows.flatMap((r) => r.differing.map((d) => `- ${r.format}: ${d}`)).join('\n');
    mkdirSync('test-artifacts', { recursive: true });
    writeFileSync('test-artifacts/conformance.md', `${table}\n\nDiffering:\n${differing}\n`);
    console.log(`${table}\n\nDiffering:\n${differing}`);
    for (const row of rows) expect(row.tokens / row.rendered, row.format).toBeGreaterThanOrEqual(row.format.startsWith('Dotprompt spec') ? 0.9 : 0.95);
  });
});
