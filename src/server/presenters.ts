import {
  DiagnosticSeverity, DocumentSymbol, MarkupKind, SymbolKind,
  type CodeLens, type Diagnostic, type Hover,
} from 'vscode-languageserver';
import type { FileAnalysis, PromptAnalysis } from '../core/analysis';
import { rangeAt, type PositionMapper } from '../core/formats/lineIndex';
import type { PromptDiagnostic } from '../core/formats/model';
import { CLIENT_COMMANDS, type PromptCommandArgs } from '../protocol/lsp';
import { contextNote, encodingNote, formatCount } from './format';
import { commandLink } from './hoverLinks';
import { runHoverSection, runLensTitle, runsViewFor, type RunLookup } from './runPresenters';
import type { ProductionLookup } from './productionFigures';
import { productionHoverSection, productionLensTitle } from './productionPresenter';

const SEVERITY: Record<PromptDiagnostic['severity'], DiagnosticSeverity> = {
  error: DiagnosticSeverity.Error,
  warning: DiagnosticSeverity.Warning,
  information: DiagnosticSeverity.Information,
  hint: DiagnosticSeverity.Hint,
};

export function toDiagnostics(analysis: FileAnalysis, lines: PositionMapper): Diagnostic[] {
  return analysis.diagnostics.map((d) => ({
    range: rangeAt(lines, d.range),
    severity: SEVERITY[d.severity],
    code: d.code,
    source: 'Prompt Insight',
    message: d.message,
  }));
}

export function toCodeLenses(uri: string, analysis: FileAnalysis, lines: PositionMapper, runs: RunLookup, repeats: number, production?: ProductionLookup): CodeLens[] {
  const lenses: CodeLens[] = [];
  analysis.prompts.forEach((prompt, promptIndex) => {
    const line = lines.positionAt(prompt.prompt.range.start).line;
    const range = { start: { line, character: 0 }, end: { line, character: 0 } };
    const args: PromptCommandArgs = { uri, promptName: prompt.prompt.name, promptIndex };
    const count = `${formatCount(prompt.totalTokens, prompt.exact)} tokens · ${prompt.messages.length} message${prompt.messages.length === 1 ? '' : 's'}`;
    lenses.push(
      { range, command: { title: count, command: CLIENT_COMMANDS.showRendered, arguments: [args], tooltip: 'Show what will be sent: the messages as the runtime renders them' } },
      { range, command: { title: '▶ Run', command: CLIENT_COMMANDS.runPrompt, arguments: [args] } },
      { range, command: { title: `Run ×${repeats}`, command: CLIENT_COMMANDS.runPromptRepeated, arguments: [args] } },
      { range, command: { title: 'Compare revisions', command: CLIENT_COMMANDS.compareRevisions, arguments: [args] } },
    );
    const view = runsViewFor(prompt, runs);
    if (view) {
      // A line of its own (above the first message), so a split editor shows it whole beside the count lens's actions.
      const firstMessage = prompt.messages[0];
      const messageLine = firstMessage ? lines.positionAt(firstMessage.range.start).line : line;
      const promptEnd = lines.positionAt(prompt.prompt.range.end).line;
      const runLine = messageLine > line ? messageLine : Math.min(line + 1, promptEnd);
      const runRange = { start: { line: runLine, character: 0 }, end: { line: runLine, character: 0 } };
      lenses.push({ range: runRange, command: { title: runLensTitle(view, prompt), command: CLIENT_COMMANDS.showRuns, arguments: [args] } });
    }
    const prod = productionLensTitle(production, prompt);
    if (prod) lenses.push({ range, command: { title: prod, command: CLIENT_COMMANDS.showProduction, arguments: [args], tooltip: 'Production numbers of this prompt per version over time' } });
  });
  return lenses;
}

/**
 * The hover in short sections: the tokens first (what the editor is about), then the runs and
 * production each in a line or two with a link to its full view — no scroll box of tables.
 */
export function toHover(uri: string, analysis: FileAnalysis, offset: number, lines: PositionMapper, runs: RunLookup, production?: ProductionLookup): Hover | null {
  const prompt = promptAt(analysis, offset);
  if (!prompt) return null;
  const messageIndex = prompt.messages.findIndex((m) => m.range.start <= offset && offset <= m.range.end);
  const message = messageIndex >= 0 ? prompt.messages[messageIndex] : undefined;
  const rows = ['| | tokens |', '|---|---:|'];
  if (message) rows.push(`| this message (${message.role}${message.name ? ` · ${message.name}` : ''}) | ${formatCount(message.tokens, prompt.exact)} |`);
  const overhead = prompt.overheadTokens > 0 ? ` + ${prompt.overheadTokens} chat overhead` : '';
  rows.push(`| whole prompt (${prompt.messages.length} message${prompt.messages.length === 1 ? '' : 's'}${overhead}) | **${formatCount(prompt.totalTokens, prompt.exact)}** |`);
  const notes = [encodingNote(prompt), contextNote(prompt), prompt.tokenBudget ? `budget ${formatCount(prompt.tokenBudget, true)} tokens` : undefined, ...prompt.countNotes].filter(Boolean);
  const args: PromptCommandArgs = { uri, promptName: prompt.prompt.name, promptIndex: analysis.prompts.indexOf(prompt) };
  const view = runsViewFor(prompt, runs);
  const prod = productionHoverSection(production, prompt, commandLink('production view', CLIENT_COMMANDS.showProduction, args));
  const sections = [
    [`**Prompt Insight** · \`${prompt.prompt.name.replace(/`/g, "'")}\``, '', ...rows, '', notes.join(' · ')].join('\n'),
    ...(view ? [runHoverSection(view, prompt, commandLink('all runs and figures', CLIENT_COMMANDS.showRuns, args))] : []),
    ...(prod ? [prod] : []),
  ];
  const range = message ? rangeAt(lines, message.range) : undefined;
  return { contents: { kind: MarkupKind.Markdown, value: sections.join('\n\n---\n\n') }, ...(range ? { range } : {}) };
}

export function toSymbols(analysis: FileAnalysis, lines: PositionMapper): DocumentSymbol[] {
  return analysis.prompts.map((prompt) => {
    const range = rangeAt(lines, prompt.prompt.range);
    const children = prompt.messages.map((message) => {
      const messageRange = rangeAt(lines, message.range);
      return DocumentSymbol.create(message.role, `${formatCount(message.tokens, prompt.exact)} tokens`, SymbolKind.String, messageRange, messageRange);
    });
    const selection = { start: range.start, end: range.start };
    return DocumentSymbol.create(prompt.prompt.name || 'prompt', `${formatCount(prompt.totalTokens, prompt.exact)} tokens`, SymbolKind.Module, range, selection, children);
  });
}

export function promptAt(analysis: FileAnalysis, offset: number): PromptAnalysis | undefined {
  return analysis.prompts.find((p) => p.prompt.range.start <= offset && offset <= p.prompt.range.end) ?? analysis.prompts[0];
}
