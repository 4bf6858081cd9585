import { textLooksBinary } from './formats/decode';
import { detectFormat, parsePromptFile } from './formats/detect';
import type { OffsetRange, Prompt, PromptDiagnostic, PromptFormat, PromptMessage } from './formats/model';
import { renderTemplate, type Placeholder } from './formats/template';
import { chatTokenTotal } from './tokens/chatOverhead';
import type { TokenCounter } from './tokens/counter';
import { loadEncoder, type EncodingName, type TokenEncoder } from './tokens/engine';
import { modelTokenInfo, type ModelTokenInfo } from './tokens/models';

export interface AnalysisOptions {
  /** Model assumed when a file names none (setting `promptInsight.tokens.defaultModel`). */
  defaultModel: string;
  /** Forces an encoding (CLI `--encoding`); counts are then exact for that encoding. */
  encoding?: EncodingName;
  /** Budget from settings; a file's own `tokenBudget` wins. 0 or undefined = none. */
  tokenBudget?: number;
  format?: PromptFormat;
}

export interface MessageAnalysis {
  role: string;
  name?: string;
  range: OffsetRange;
  /** Tokens of the content after variable substitution. */
  tokens: number;
}

export interface PromptAnalysis {
  prompt: Prompt;
  model: ModelTokenInfo;
  /** False when the model came from the default setting rather than the file. */
  modelFromFile: boolean;
  encoding: EncodingName;
  exact: boolean;
  messages: MessageAnalysis[];
  /** All messages plus chat overhead. */
  totalTokens: number;
  overheadTokens: number;
  /** Share of the model's context window, 0..1, when the window is known. */
  contextShare?: number;
  tokenBudget?: number;
}

export interface FileAnalysis {
  format: PromptFormat;
  prompts: PromptAnalysis[];
  diagnostics: PromptDiagnostic[];
}

/** The whole pipeline for one file: detect → parse → render templates → count. Never throws on input. */
export async function analyzePromptText(fileName: string, text: string, counter: TokenCounter, options: AnalysisOptions): Promise<FileAnalysis> {
  const format = options.format ?? detectFormat(fileName, text);
  if (textLooksBinary(text)) {
    return { format, prompts: [], diagnostics: [{ range: { start: 0, end: 0 }, severity: 'error', code: 'not-text', message: 'This file looks binary (it contains NUL characters); it is not analysed as a prompt.' }] };
  }
  const doc = parsePromptFile(fileName, text, format);
  const diagnostics = [...doc.diagnostics];
  const prompts: PromptAnalysis[] = [];
  for (const [promptIndex, prompt] of doc.prompts.entries()) {
    const model = modelTokenInfo(prompt.model ?? options.defaultModel);
    const encoding = options.encoding ?? model.encoding;
    const encoder = await loadEncoder(encoding);
    prompts.push(countPrompt(text, format, prompt, model, encoder, counter, options, diagnostics, `${fileName}\u0000${promptIndex}`));
  }
  return { format, prompts, diagnostics };
}

function countPrompt(
  text: string,
  format: PromptFormat,
  prompt: Prompt,
  model: ModelTokenInfo,
  encoder: TokenEncoder,
  counter: TokenCounter,
  options: AnalysisOptions,
  diagnostics: PromptDiagnostic[],
  slot: string,
): PromptAnalysis {
  const messages: MessageAnalysis[] = [];
  const counted = [];
  for (const [messageIndex, message] of prompt.messages.entries()) {
    const rendered = renderTemplate(message.template, prompt.templateSyntax, prompt.inputs);
    reportTemplateIssues(text, format, message, rendered.unresolved, rendered.unevaluatedLogic, diagnostics);
    // Each message is a slot of the counter, so an edit recounts only what changed in it.
    const tokens = counter.countVersion(encoder, rendered.text, `${slot}\u0000${messageIndex}`);
    messages.push({ role: message.role, ...(message.name ? { name: message.name } : {}), range: message.range, tokens });
    counted.push({
      contentTokens: tokens,
      roleTokens: counter.count(encoder, message.role),
      ...(message.name ? { nameTokens: counter.count(encoder, message.name) } : {}),
    });
  }
  const { total, overhead } = messages.length > 0 ? chatTokenTotal(counted) : { total: 0, overhead: 0 };
  const tokenBudget = prompt.tokenBudget ?? (options.tokenBudget && options.tokenBudget > 0 ? options.tokenBudget : undefined);
  if (tokenBudget !== undefined && total > tokenBudget) {
    diagnostics.push({
      range: firstLineOf(text, prompt.range),
      severity: 'warning',
      code: 'token-budget',
      message: `Prompt '${prompt.name}' is ${total.toLocaleString('en-US')} tokens, over its budget of ${tokenBudget.toLocaleString('en-US')} by ${(total - tokenBudget).toLocaleString('en-US')}.`,
    });
  }
  const exact = options.encoding !== undefined || model.exact;
  return {
    prompt,
    model,
    modelFromFile: prompt.model !== undefined,
    encoding: encoder.name,
    exact,
    messages,
    totalTokens: total,
    overheadTokens: overhead,
    ...(model.contextWindowTokens ? { contextShare: total / model.contextWindowTokens } : {}),
    ...(tokenBudget !== undefined ? { tokenBudget } : {}),
  };
}

function reportTemplateIssues(
  text: string,
  format: PromptFormat,
  message: PromptMessage,
  unresolved: Placeholder[],
  unevaluatedLogic: boolean,
  diagnostics: PromptDiagnostic[],
): void {
  const occurrences = new Map<string, number>();
  for (const placeholder of unresolved) {
    const tag = message.template.slice(placeholder.start, placeholder.end);
    const nth = occurrences.get(tag) ?? 0;
    occurrences.set(tag, nth + 1);
    const range = message.contentIsVerbatim
      ? { start: message.contentRange.start + placeholder.start, end: message.contentRange.start + placeholder.end }
      : locateInSource(text, message.contentRange, tag, nth);
    const where = placeholder.runtime ? 'VS Code fills it when the prompt runs' : sampleHint(format);
    diagnostics.push({
      range,
      severity: placeholder.runtime || format === 'text' ? 'information' : 'warning',
      code: 'unresolved-variable',
      message: `Variable '${placeholder.name}' has no value to count with (${where}); its placeholder text is counted instead.`,
    });
  }
  if (unevaluatedLogic) {
    diagnostics.push({
      range: message.contentRange.start === message.contentRange.end ? message.range : { start: message.contentRange.start, end: message.contentRange.start },
      severity: 'information',
      code: 'unsupported-template',
      message: 'Template logic (conditions, loops, helpers) is not evaluated for counting; the text is counted as written, every branch included.',
    });
  }
}

function sampleHint(format: PromptFormat): string {
  switch (format) {
    case 'prompty':
      return "give it a 'sample' or an input 'default'";
    case 'github-prompt-yaml':
      return "add it to the first 'testData' row";
    case 'dotprompt':
      return "give it an 'input.default'";
    default:
      return 'no sample values exist for this format';
  }
}

/** Finds the nth occurrence of a placeholder in the source slice; YAML block scalars move text around. */
function locateInSource(text: string, within: OffsetRange, tag: string, nth: number): OffsetRange {
  let from = within.start;
  for (let i = 0; i <= nth; i++) {
    const found = text.indexOf(tag, from);
    if (found < 0 || found >= within.end) return within;
    if (i === nth) return { start: found, end: found + tag.length };
    from = found + tag.length;
  }
  return within;
}

function firstLineOf(text: string, range: OffsetRange): OffsetRange {
  const newline = text.indexOf('\n', range.start);
  return { start: range.start, end: newline < 0 || newline > range.end ? range.end : newline };
}
