/**
 * Tests files (`NAME.tests.yaml`) in the editor: diagnostics, completion and hover, all from the one
 * tests-file schema the CLI checks with (core/adherence/testsSchema.ts). VS Code and code-server ship
 * no YAML language support, so this small part over the `yaml` package's parser stands in for it.
 */
import { CompletionItemKind, DiagnosticSeverity, InsertTextFormat, MarkupKind, type CodeLens, type CompletionItem, type Diagnostic, type Hover } from 'vscode-languageserver';
import { checkTestsFile } from '../core/adherence/testsFileCheck';
import { schemaAt, type SchemaNode } from '../core/adherence/testsSchema';
import { rangeAt, type PositionMapper } from '../core/formats/lineIndex';
import { sidecarKind } from '../core/formats/sidecars';
import { CLIENT_COMMANDS, type TestCaseCommandArgs } from '../protocol/lsp';
import { nodeAtOffset, testCaseNodes, typingAt } from './testsYamlPath';
import { fileNameOfUri } from './uri';

export const isTestsFileUri = (uri: string): boolean => sidecarKind(fileNameOfUri(uri)) === 'tests';

export function testsFileDiagnostics(text: string, lines: PositionMapper): Diagnostic[] {
  const checked = checkTestsFile(text);
  const parseErrors = checked.parseErrors.map((d) => ({ range: rangeAt(lines, d.range), severity: DiagnosticSeverity.Error, code: d.code, source: 'Prompt Insight', message: d.message }));
  const findings = checked.findings.map((f) => ({
    range: rangeAt(lines, f.range),
    severity: f.severity === 'error' ? DiagnosticSeverity.Error : DiagnosticSeverity.Warning,
    code: 'tests-schema',
    source: 'Prompt Insight',
    message: f.message,
  }));
  return [...parseErrors, ...findings];
}

/** ▶ Run this case above each case: the prompt beside the file, sent once with that case's inputs and checked against it. */
export function testsFileLenses(uri: string, text: string, lines: PositionMapper): CodeLens[] {
  return testCaseNodes(text).map((c) => {
    const line = lines.positionAt(c.start).line;
    const args: TestCaseCommandArgs = { uri, position: c.position, description: c.description };
    return {
      range: { start: { line, character: 0 }, end: { line, character: 0 } },
      command: { title: '▶ Run this case', command: CLIENT_COMMANDS.runTestCase, arguments: [args], tooltip: 'Run the prompt beside this file once with this case’s inputs, and check the answer against this case' },
    };
  });
}

/**
 * Keys of the mapping being typed in (those not there yet), or the values the key being typed takes
 * (assertion types, scenarios, true/false). A space typed anywhere but after `key:` or `- ` offers nothing:
 * indenting a line is not asking for keys.
 */
export function testsFileCompletion(text: string, offset: number, lines: PositionMapper, triggerCharacter: string | undefined): CompletionItem[] {
  const typing = typingAt(text, offset);
  if (!typing) return [];
  // The whole word is replaced (`not-icon` → `not-icontains-any`), whatever the editor takes a word to be.
  const range = rangeAt(lines, { start: typing.replace[0], end: typing.replace[1] });
  const lineStart = text.lastIndexOf('\n', offset - 1) + 1;
  const before = text.slice(lineStart, offset);
  // Typed right after the colon: the value goes after a space.
  const space = before.endsWith(':') ? ' ' : '';
  if (typing.kind === 'value') {
    const node = schemaAt(typing.path);
    const values = node?.enum ?? (node?.type === 'boolean' ? [true, false] : []);
    return values.map((value, i) => ({
      label: String(value),
      kind: CompletionItemKind.EnumMember,
      textEdit: { range, newText: `${space}${String(value)}` },
      ...(node?.enumDescriptions?.[i] ? { documentation: { kind: MarkupKind.Markdown, value: node.enumDescriptions[i]! } } : {}),
      sortText: String(i).padStart(3, '0'),
    }));
  }
  if (triggerCharacter === ' ' && !/-\s$/.test(before)) return [];
  if (triggerCharacter === ':') return [];
  const properties = schemaAt(typing.mapPath)?.properties ?? {};
  return Object.entries(properties)
    .filter(([name]) => !typing.existingKeys.includes(name))
    .map(([name, property], i) => ({
      label: name,
      kind: CompletionItemKind.Property,
      textEdit: { range, newText: `${name}: $0` },
      insertTextFormat: InsertTextFormat.Snippet,
      ...(property.description ? { documentation: { kind: MarkupKind.Markdown, value: property.description } } : {}),
      sortText: String(i).padStart(3, '0'),
    }));
}

/** A key: what it is for. A value the schema lists (an assertion type, a scenario): what it means. */
export function testsFileHover(text: string, offset: number, lines: PositionMapper): Hover | null {
  const at = nodeAtOffset(text, offset);
  if (!at) return null;
  const node = schemaAt(at.path);
  const value = at.role === 'key' ? keyText(String(at.value), node) : valueText(at.value, node);
  if (!value) return null;
  return { contents: { kind: MarkupKind.Markdown, value }, range: rangeAt(lines, { start: at.range[0], end: at.range[1] }) };
}

function keyText(key: string, node: SchemaNode | undefined): string | undefined {
  return node?.description ? `\`${key}\` — ${node.description}` : undefined;
}

function valueText(value: unknown, node: SchemaNode | undefined): string | undefined {
  const index = node?.enum?.indexOf(value) ?? -1;
  const description = index >= 0 ? node?.enumDescriptions?.[index] : undefined;
  return description ? `\`${String(value)}\` — ${description}` : undefined;
}
