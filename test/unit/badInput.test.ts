import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { seeded } from '../fixtures/propertySeed';
import { analyzePromptText } from '../../src/core/analysis';
import { decodePromptBytes } from '../../src/core/formats/decode';
import { parsePromptFile } from '../../src/core/formats/detect';
import type { PromptFormat } from '../../src/core/formats/model';
import { TokenCounter } from '../../src/core/tokens/counter';

const FORMATS: PromptFormat[] = ['prompty', 'github-prompt-yaml', 'dotprompt', 'vscode-prompt-md', 'text'];

// Fragments of every format's syntax, recombined at random: these reach far deeper into the
// parsers than uniform random strings do.
const FRAGMENTS = [
  '---', '...', 'name: x', 'name: [1, 2]', 'model:', '  api: chat', '  configuration:', '    azure_deployment: gpt-4o',
  '  id: 7', 'model: gpt-4o', 'sample:', '  a: 1', 'inputs:', '  - name: q', '    default: {x: 1}', 'messages:',
  '  - role: user', '  - role: 3', '    content: |', '      text {{a}}', '    content: [1]', 'testData:', '  - a: b', '  - 5',
  'evaluators: 3', 'tokenBudget: -1', 'tokenBudget: 1e309', 'system:', 'user[name="n"]:', '# assistant:', 'sytem:',
  '{{role "system"}}', "{{role 'nope'}}", '{{#if x}}', '{{/if}}', '{{{raw}}}', '{{', '}}', '{%', '%}', '{#', '${input:x:y}', '${selection}',
  '&a [1]', '*a', '*missing', '!!binary', '? complex', '- -', '"unclosed', "'", '\t', '\r', '\uFEFF', '\u0000', '😀', '中文。', '\uD800',
];
const structured = fc.array(fc.constantFrom(...FRAGMENTS), { maxLength: 30 }).chain((parts) =>
  fc.array(fc.constantFrom('\n', '\r\n', ' ', ''), { minLength: parts.length, maxLength: parts.length }).map((seps) => parts.map((p, i) => p + seps[i]).join('')),
);
const anyInput = fc.oneof(structured, fc.string({ unit: 'binary', maxLength: 300 }), fc.string({ unit: 'grapheme', maxLength: 300 }));

describe('parsers never throw', () => {
  it.each(FORMATS)('%s: 10,000 generated inputs, every range inside the text', (format) => {
    fc.assert(
      fc.property(anyInput, (text) => {
        const doc = parsePromptFile(`fuzz.${format}`, text, format);
        for (const d of doc.diagnostics) {
          expect(d.range.start).toBeGreaterThanOrEqual(0);
          expect(d.range.end).toBeLessThanOrEqual(text.length);
          expect(d.range.start).toBeLessThanOrEqual(d.range.end);
          expect(d.message.length).toBeGreaterThan(0);
        }
        for (const prompt of doc.prompts) {
          for (const m of prompt.messages) {
            expect(m.range.end).toBeLessThanOrEqual(text.length);
            expect(typeof m.template).toBe('string');
          }
        }
      }),
      seeded(10_000),
    );
  });

  it('the whole analysis (templates and counting) survives 10,000 generated files across the formats', async () => {
    const counter = new TokenCounter();
    await fc.assert(
      fc.asyncProperty(anyInput, fc.constantFrom(...FORMATS), async (text, format) => {
        const analysis = await analyzePromptText('fuzz', text, counter, { defaultModel: 'gpt-4o', format });
        for (const p of analysis.prompts) expect(Number.isInteger(p.totalTokens)).toBe(true);
      }),
      seeded(10_000),
    );
  });
});

describe('hostile files get a diagnostic, never a crash or a hang', () => {
  const counter = new TokenCounter();
  const analyze = (name: string, text: string) => analyzePromptText(name, text, counter, { defaultModel: 'gpt-4o' });

  it('deeply nested YAML flow collections and block mappings', async () => {
    for (const text of [
      `name: x\nmessages: ${'['.repeat(50_000)}${']'.repeat(50_000)}\n`,
      `---\nname: ${'{a: '.repeat(20_000)}1${'}'.repeat(20_000)}\n---\nhi`,
      `---\n${Array.from({ length: 3000 }, (_, i) => `${' '.repeat(i)}k:`).join('\n')}\n---\nhi`,
    ]) {
      const analysis = await analyze(text.startsWith('---') ? 'deep.prompty' : 'deep.prompt.yml', text);
      expect(Array.isArray(analysis.diagnostics)).toBe(true);
    }
  });

  it('an alias bomb in front matter', async () => {
    let yaml = 'a0: &a0 [x, x, x, x, x, x, x, x, x, x]\n';
    for (let i = 1; i < 10; i++) yaml += `a${i}: &a${i} [${Array(10).fill(`*a${i - 1}`).join(', ')}]\n`;
    const analysis = await analyze('bomb.prompty', `---\n${yaml}sample: *a9\n---\nuser:\nhi {{x}}\n`);
    expect(analysis.diagnostics.some((d) => d.code === 'parse-error' && /alias/i.test(d.message))).toBe(true);
    expect(analysis.prompts[0]!.messages).toHaveLength(1);
  });

  it('a 10 MB prompt file is counted', async () => {
    const line = 'The assistant finds single-family homes near the user and lists them.\n';
    const text = `---\nname: huge\n---\nuser:\n${line.repeat(Math.ceil(10_000_000 / line.length))}`;
    const analysis = await analyze('huge.prompty', text);
    expect(analysis.prompts[0]!.totalTokens).toBeGreaterThan(1_000_000);
  });

  it('a 10 MB YAML file with one huge content block', async () => {
    const text = `model: gpt-4o\nmessages:\n  - role: user\n    content: |\n${'      lorem ipsum dolor sit amet\n'.repeat(330_000)}`;
    const analysis = await analyze('huge.prompt.yml', text);
    expect(analysis.prompts[0]!.messages).toHaveLength(1);
  });

  it('invalid UTF-8, binary bytes and oversized input are refused with a reason', () => {
    expect(decodePromptBytes(new Uint8Array([0x68, 0x69, 0xc3, 0x28]))).toEqual({ ok: false, reason: expect.stringContaining('not valid UTF-8') });
    expect(decodePromptBytes(new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0, 0, 0, 0x0d]))).toEqual({ ok: false, reason: expect.stringContaining('binary') });
    expect(decodePromptBytes(new TextEncoder().encode('\uFEFFhello'))).toEqual({ ok: true, text: '\uFEFFhello' });
  });
});

describe('file bytes: NUL anywhere, UTF-16 with a byte-order mark', () => {
  it('a NUL byte past the first 8 KB still marks the file binary', () => {
    const bytes = Buffer.concat([Buffer.from('system:\n'), Buffer.alloc(20_000, 0x61), Buffer.from([0]), Buffer.from('tail')]);
    expect(decodePromptBytes(bytes)).toEqual({ ok: false, reason: expect.stringContaining('binary') });
  });

  it('UTF-16 LE and BE with a BOM decode to their text; UTF-16 holding a NUL character is binary', () => {
    const text = 'system:\n房产助手: find homes\n';
    const le = Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(text, 'utf16le')]);
    const be = Buffer.from(le.subarray(2)).swap16();
    expect(decodePromptBytes(le)).toEqual({ ok: true, text });
    expect(decodePromptBytes(Buffer.concat([Buffer.from([0xfe, 0xff]), be]))).toEqual({ ok: true, text });
    expect(decodePromptBytes(Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from('a\u0000b', 'utf16le')]))).toMatchObject({ ok: false, reason: expect.stringContaining('binary') });
  });
});
