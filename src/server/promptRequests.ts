/** The answers to the client's own requests about a prompt: what it sends (rendered), and the token summary the status bar shows. */
import { loadEncoder } from '../core/tokens/engine';
import type { RenderedPrompt, TokenSummary, TokenSummaryParams } from '../protocol/lsp';
import type { AnalyzedDocument, DocumentAnalyses } from './documentAnalyses';
import { promptAt } from './presenters';

/** The prompt's messages as its runtime renders them, with the notes (not hints) inside it; null when there is no such prompt. */
export function renderedPromptOf(analyzed: AnalyzedDocument, promptIndex: number): RenderedPrompt | null {
  const prompt = analyzed.analysis.prompts[promptIndex];
  if (!prompt) return null;
  const inPrompt = (offset: number) => offset >= prompt.prompt.range.start && offset <= prompt.prompt.range.end;
  return {
    name: prompt.prompt.name,
    model: prompt.model.model,
    modelFromFile: prompt.modelFromFile,
    encoding: prompt.encoding,
    totalTokens: prompt.totalTokens,
    messages: prompt.messages.map((m) => ({ role: m.role, ...(m.name ? { name: m.name } : {}), content: m.content, tokens: m.tokens, mediaParts: m.mediaParts, line: analyzed.lines.positionAt(m.range.start).line })),
    notes: analyzed.analysis.diagnostics.filter((d) => inPrompt(d.range.start) && d.severity !== 'hint').map((d) => `line ${analyzed.lines.positionAt(d.range.start).line + 1}: ${d.message}`),
  };
}

/** The prompt at the cursor and the selections' tokens, counted with that prompt's encoder (o200k_base outside a prompt). */
export async function tokenSummaryOf(analyzed: AnalyzedDocument, params: TokenSummaryParams, counter: DocumentAnalyses['counter']): Promise<TokenSummary> {
  const prompt = promptAt(analyzed.analysis, analyzed.lines.offsetAt(params.position));
  const summary: TokenSummary = {};
  if (prompt) {
    summary.prompt = { name: prompt.prompt.name, totalTokens: prompt.totalTokens, model: prompt.model.model, encoding: prompt.encoding, exact: prompt.exact };
  }
  const selected = params.selections
    .map((r) => analyzed.text.slice(analyzed.lines.offsetAt(r.start), analyzed.lines.offsetAt(r.end)))
    .filter((s) => s.length > 0);
  if (selected.length > 0) {
    const encoder = prompt?.encoder ?? (await loadEncoder('o200k_base'));
    summary.selectionTokens = selected.reduce((sum, s) => sum + counter.count(encoder, s), 0);
  }
  return summary;
}
