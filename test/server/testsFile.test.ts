/**
 * Tests files in the editor (issue 39 point 4): the real language server over stdio checks a
 * `NAME.tests.yaml` against the tests-file schema — a broken assertion is a diagnostic on the node it
 * is about, in plain words — completes assertion types and keys, and explains a type on hover. The
 * built CLI, run on the same file against the simulator on 127.0.0.1, warns with the same findings.
 */
import { copyFileSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CodeLensRequest, CompletionRequest, DiagnosticSeverity, HoverRequest, type CodeLens, type CompletionItem, type CompletionList, type MarkupContent } from 'vscode-languageserver-protocol/node';
import { startSim, type RunningSim } from '../../src/core/sim/simServer';
import { runCli } from '../fixtures/cli';
import { LspHarness } from './lspHarness';

/** As a user leaves it mid-edit: an empty `type:`, a negated list check without its list, and one good assertion. */
const BROKEN = [
  'scenario: decision',
  'tests:',
  '  - vars:',
  '      city: Bellevue, WA',
  '      request: Find homes nearby with at least three bedrooms.',
  '    assert:',
  '      - type:',
  '      - type: not-icontains-any',
  '      - type: icontains',
  '        value: house',
  '        wieght: 2',
  '',
].join('\n');

let server: LspHarness;
let sim: RunningSim;
const dir = mkdtempSync(join(tmpdir(), 'pi-tests-file-'));
beforeAll(async () => {
  server = new LspHarness();
  await server.initialize();
  sim = await startSim({ ttftBaseMs: 5, decodeMsPerToken: 0.2, outputTokens: 8, jitterMs: 0, seed: 1 });
});
afterAll(async () => {
  await server.dispose();
  await sim.close();
  rmSync(dir, { recursive: true, force: true });
});

const lineOf = (text: string, needle: string): number => text.split('\n').findIndex((l) => l.includes(needle));

async function completion(uri: string, line: number, character: number, triggerCharacter?: string): Promise<CompletionItem[]> {
  const result = (await server.connection.sendRequest(CompletionRequest.type, {
    textDocument: { uri },
    position: { line, character },
    ...(triggerCharacter ? { context: { triggerKind: 2, triggerCharacter } } : {}),
  })) as CompletionItem[] | CompletionList | null;
  return Array.isArray(result) ? result : (result?.items ?? []);
}

describe('a tests file in the language server', () => {
  it('publishes a diagnostic on each broken assertion, at its node, in plain words', async () => {
    const { diagnostics } = await server.open('homes/homes.tests.yaml', BROKEN);
    const typeLine = BROKEN.split('\n').indexOf('      - type:');
    expect(diagnostics.map((d) => ({ line: d.range.start.line, from: d.range.start.character, to: d.range.end.character, severity: d.severity, message: d.message }))).toEqual([
      // `type:` with nothing: the key is marked (the empty value has no width).
      { line: typeLine, from: 8, to: 12, severity: DiagnosticSeverity.Error, message: 'needs a `type`, e.g. type: icontains' },
      { line: lineOf(BROKEN, 'not-icontains-any'), from: 8, to: 31, severity: DiagnosticSeverity.Error, message: "'not-icontains-any' needs a `value`: the texts to look for, as a list, e.g. value: [apartment, condo]" },
      { line: lineOf(BROKEN, 'wieght'), from: 8, to: 14, severity: DiagnosticSeverity.Warning, message: '`wieght` is not read by Prompt Insight (did you mean `weight`?); it is ignored' },
    ]);
    expect(diagnostics.every((d) => d.source === 'Prompt Insight')).toBe(true);
  });

  it('clears a diagnostic once the assertion is fixed', async () => {
    const { uri } = await server.open('fixed/homes.tests.yaml', BROKEN);
    const fixed = BROKEN.replace('      - type:\n', '      - type: contains\n        value: yard\n').replace('type: not-icontains-any\n', 'type: not-icontains-any\n        value: [apartment, condo]\n').replace('wieght', 'weight');
    const next = server.nextDiagnostics(uri, 2);
    await server.change(uri, 2, [{ text: fixed }]);
    expect(await next).toEqual([]);
  });

  it('completes the assertion types at `type: |`, each explained, and the keys an assertion still lacks', async () => {
    const text = 'tests:\n  - vars: { city: x }\n    assert:\n      - type: \n        value: x\n      - type: icontains\n        \n';
    const { uri } = await server.open('complete/homes.tests.yaml', text);
    const types = await completion(uri, 3, 14, ' ');
    expect(types.map((i) => i.label)).toEqual(expect.arrayContaining(['icontains', 'not-icontains-any', 'llm-rubric', 'latency', 'context-precision']));
    expect(types).toHaveLength(54);
    const notAny = types.find((i) => i.label === 'not-icontains-any')!;
    expect((notAny.documentation as MarkupContent).value).toBe('Passes when the answer contains none of the texts in `value`, in any case.');
    expect(notAny.textEdit).toEqual({ range: { start: { line: 3, character: 14 }, end: { line: 3, character: 14 } }, newText: 'not-icontains-any' });
    // Typed right after the colon, the value comes with its space; a word begun is replaced whole.
    expect((await completion(uri, 3, 13, ':'))[0]!.textEdit).toMatchObject({ newText: ' equals' });
    const begun = await server.open('complete-word/homes.tests.yaml', text.replace('- type: \n', '- type: not-icon\n'));
    expect((await completion(begun.uri, 3, 18)).find((i) => i.label === 'not-icontains-any')!.textEdit).toEqual({ range: { start: { line: 3, character: 14 }, end: { line: 3, character: 22 } }, newText: 'not-icontains-any' });

    const keys = await completion(uri, 6, 8);
    expect(keys.map((i) => i.label)).toEqual(['value', 'threshold', 'weight', 'metric', 'strict']);
    // Indenting a line is not asking for keys.
    expect(await completion(uri, 6, 8, ' ')).toEqual([]);
  });

  it('completes the keys of a test case and the scenarios', async () => {
    const text = 'scenario: \ntests:\n  - vars: { city: x }\n    \n';
    const { uri } = await server.open('complete-case/homes.tests.yaml', text);
    expect((await completion(uri, 0, 10, ' ')).map((i) => i.label)).toEqual(['interactive', 'batch', 'decision']);
    const keys = (await completion(uri, 3, 4)).map((i) => i.label);
    expect(keys).toEqual(expect.arrayContaining(['description', 'assert', 'threshold', 'context', 'reference']));
    expect(keys).not.toContain('vars');
  });

  it('explains an assertion type and a key on hover, in one short line', async () => {
    const text = 'tests:\n  - vars: { city: x }\n    assert:\n      - type: not-icontains-any\n        value: [apartment, condo]\n        weight: 2\n';
    const { uri } = await server.open('hover/homes.tests.yaml', text);
    const onType = await server.connection.sendRequest(HoverRequest.type, { textDocument: { uri }, position: { line: 3, character: 20 } });
    expect((onType!.contents as MarkupContent).value).toBe('`not-icontains-any` — Passes when the answer contains none of the texts in `value`, in any case.');
    expect(onType!.range).toEqual({ start: { line: 3, character: 14 }, end: { line: 3, character: 31 } });
    const onWeight = await server.connection.sendRequest(HoverRequest.type, { textDocument: { uri }, position: { line: 5, character: 10 } });
    expect((onWeight!.contents as MarkupContent).value).toMatch(/^`weight` — This assertion's weight in the case's score/);
    expect((onWeight!.contents as MarkupContent).value.split('\n')).toHaveLength(1);
  });

  it('puts one ▶ Run this case lens above each case, naming the file and the case’s place in tests:', async () => {
    const text = [
      'scenario: decision',
      'tests:',
      '  - vars: { city: Paris }',
      '    assert: [{ type: contains, value: Bonjour }]',
      '  # a case still being written is a case too: running it says what it lacks',
      '  - description: no assertion yet',
      '    vars: { city: Rome }',
      '  - { description: Oslo in Norwegian, vars: { city: Oslo }, assert: [{ type: contains, value: Hei }] }',
      '',
    ].join('\n');
    const { uri } = await server.open('lenses/greet.tests.yaml', text);
    const lenses = (await server.connection.sendRequest(CodeLensRequest.type, { textDocument: { uri } })) as CodeLens[];
    expect(lenses.map((l) => ({ line: l.range.start.line, title: l.command!.title, command: l.command!.command, args: l.command!.arguments }))).toEqual([
      { line: 2, title: '▶ Run this case', command: 'promptInsight.runTestCase', args: [{ uri, position: 0, description: '' }] },
      { line: 5, title: '▶ Run this case', command: 'promptInsight.runTestCase', args: [{ uri, position: 1, description: 'no assertion yet' }] },
      { line: 7, title: '▶ Run this case', command: 'promptInsight.runTestCase', args: [{ uri, position: 2, description: 'Oslo in Norwegian' }] },
    ]);
    // A file that is not YAML yet, or has no list of cases, has no lens (and the server answers).
    const { uri: empty } = await server.open('lenses-none/greet.tests.yaml', 'scenario: decision\n');
    expect(await server.connection.sendRequest(CodeLensRequest.type, { textDocument: { uri: empty } })).toEqual([]);
  });

  it('checks front-matter tests: in a prompt file with the same schema, at the node in the prompt file', async () => {
    const prompt = '---\nname: t\nmodel: gpt-4o-mini\ntests:\n  - vars: { x: 1 }\n    assert:\n      - type: not-icontains-any\n      - type: contains\n        value: yes\n---\nuser:\nhi {{x}}\n';
    const { diagnostics } = await server.open('front/t.prompty', prompt);
    expect(diagnostics.filter((d) => d.code === 'tests-schema').map((d) => [d.range.start.line, d.range.start.character, d.range.end.character, d.message])).toEqual([
      [6, 8, 31, "'not-icontains-any' needs a `value`: the texts to look for, as a list, e.g. value: [apartment, condo]"],
    ]);
  });

  it('gives the same findings as the CLI, which warns when it runs the prompt (one schema)', async () => {
    copyFileSync('examples/homes/homes.prompty', join(dir, 'homes.prompty'));
    writeFileSync(join(dir, 'homes.tests.yaml'), BROKEN);
    const cli = await runCli(['run', 'homes.prompty', '--endpoint', sim.url, '--no-store'], dir);
    expect(cli.code, cli.stderr).toBe(0);
    const warned = cli.stderr.split('\n').filter((l) => l.startsWith('prompt-insight run: warning: '));
    const fromCli = warned.map((l) => /^prompt-insight run: warning: homes\.tests\.yaml:(\d+): [^:]+: (.*)\.$/.exec(l)!).map((m) => `${Number(m[1]) - 1}: ${m[2]}`);
    const { diagnostics } = await server.open('same/homes.tests.yaml', BROKEN);
    expect(fromCli).toEqual(diagnostics.map((d) => `${d.range.start.line}: ${d.message}`));
    expect(warned[0]).toBe('prompt-insight run: warning: homes.tests.yaml:7: tests[0].assert[0]: needs a `type`, e.g. type: icontains.');
    // What runs is the one good assertion: the skipped ones are not counted as passing.
    expect(cli.stdout).toMatch(/adherence \(test case "#1 city=Bellevue, WA · request=Find homes nearby with at least…"\): [01]\/1 pass/);
  });
});
