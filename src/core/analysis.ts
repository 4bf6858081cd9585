import { checkFrontMatterTests } from './adherence/testsFileCheck';
import { textLooksBinary } from './formats/decode';
import { detectFormat, parsePromptFile } from './formats/detect';
import type { OffsetRange, Prompt, PromptDiagnostic, PromptFormat } from './formats/model';
import { promptNeedsRendering, renderedAsWritten, type PromptRendering } from './render/renderPrompt';
import { renderWithReferences } from './render/renderWithReferences';
import { countRequest, type CountedWith, type RequestCount, type RequestCountOptions } from './modelTokens/requestCount';
import type { TokenCounter } from './tokens/counter';
import type { TokenEncoder } from './tokens/engine';
import { modelTokenInfo, type ModelTokenInfo } from './tokens/models';

export interface AnalysisOptions extends RequestCountOptions {
  /** Model assumed when a file names none (setting `promptInsight.tokens.defaultModel`). */
  defaultModel: string;
  /** Counts every prompt for this model, whatever the file names (CLI `--model`). */
  model?: string;
  /** Budget from settings; a file's own `tokenBudget` wins. 0 or undefined = none. */
  tokenBudget?: number;
  format?: PromptFormat;
  /** The file's path on disk, when it has one: partials and `${file:}` values are read beside it. */
  filePath?: string;
  /** Folders searched for Dotprompt partials after the prompt's own (setting `promptInsight.render.partialFolders`, CLI `--partials`). */
  partialFolders?: readonly string[];
  /** The editor's workspace folders: files a prompt refers to are read only inside the one holding it (core/files/workspaceFile.ts). */
  workspaceFolders?: readonly string[];
  /**
   * False in an untrusted workspace (the language server in Restricted Mode): no template engine
   * runs and no file the prompt names is read; the source is counted as written, with a note.
   * Absent = trusted (the CLI counts what its user points it at).
   */
  workspaceTrusted?: boolean;
}

export interface MessageAnalysis {
  role: string;
  name?: string;
  range: OffsetRange;
  /** Tokens of the content after variable substitution. */
  tokens: number;
  /** What is sent: the rendered content. */
  content: string;
  /** Media parts sent with the message (not counted as text). */
  mediaParts: number;
}

export interface PromptAnalysis {
  prompt: Prompt;
  model: ModelTokenInfo;
  /** False when the model came from the default setting rather than the file. */
  modelFromFile: boolean;
  /** What counted: an encoding ("o200k_base"), a model's tokenizer ("tokenizer.json of Qwen3-8B") or an endpoint ("llama.cpp /tokenize"). */
  encoding: string;
  countedWith: CountedWith;
  /** Where the chat framing came from, when it is the model's own template. */
  templateFrom?: string;
  /** Why a better count was not made (a tokenizer folder that could not be read, a template that failed). */
  countNotes: string[];
  /** Counts a selection as the messages were counted (o200k_base when an endpoint counted them). */
  encoder: TokenEncoder;
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
  // Test cases kept in the front matter are checked as a tests file's are (the loader reads them the same way).
  if (format !== 'text' && format !== 'github-prompt-yaml') diagnostics.push(...checkFrontMatterTests(text).map((f) => ({ range: f.range, severity: f.severity, code: 'tests-schema' as const, message: f.message })));
  const prompts: PromptAnalysis[] = [];
  for (const [promptIndex, prompt] of doc.prompts.entries()) {
    const model = modelTokenInfo(options.model ?? prompt.model ?? options.defaultModel);
    const rendering = await renderForCounting(text, prompt, options, diagnostics);
    const counted = await countRequest(model, rendering.messages, counter, `${fileName}\u0000${promptIndex}`, options);
    prompts.push(countPrompt(text, format, prompt, rendering, model, counted, options, diagnostics));
  }
  return { format, prompts, diagnostics };
}

export const UNTRUSTED_NOTE =
  'Restricted Mode: this workspace is not trusted, so its templates are not rendered and the files this prompt names are not read; the text is counted as written. Trust the workspace to count what the runtime sends.';

/** Renders a prompt with its own sample values, reporting what could not be read or rendered. */
async function renderForCounting(text: string, prompt: Prompt, options: AnalysisOptions, diagnostics: PromptDiagnostic[]): Promise<PromptRendering> {
  const at = firstLineOf(text, prompt.range);
  if (options.workspaceTrusted === false) {
    if (promptNeedsRendering(text, prompt)) {
      diagnostics.push({ range: at, severity: 'information', code: 'untrusted-workspace', message: UNTRUSTED_NOTE });
    }
    return renderedAsWritten(prompt);
  }
  const { rendering, notes } = await renderWithReferences(text, prompt, {}, options);
  for (const note of notes) diagnostics.push({ range: at, severity: 'warning', code: 'unresolved-reference', message: `${note.message}.` });
  if (rendering.error) {
    diagnostics.push({ range: at, severity: 'warning', code: 'template-error', message: `The template could not be rendered (${rendering.error}); its text is counted as written.` });
  }
  return rendering;
}

function countPrompt(
  text: string,
  format: PromptFormat,
  prompt: Prompt,
  rendering: PromptRendering,
  model: ModelTokenInfo,
  counted: RequestCount,
  options: AnalysisOptions,
  diagnostics: PromptDiagnostic[],
): PromptAnalysis {
  reportTemplateIssues(format, rendering, prompt, diagnostics);
  const messages: MessageAnalysis[] = rendering.messages.map((message, index) => ({
    role: message.role,
    ...(message.name ? { name: message.name } : {}),
    range: message.range,
    tokens: counted.messageTokens[index]!,
    content: message.content,
    mediaParts: message.mediaParts,
  }));
  const { totalTokens: total, overheadTokens: overhead } = counted;
  const tokenBudget = prompt.tokenBudget ?? (options.tokenBudget && options.tokenBudget > 0 ? options.tokenBudget : undefined);
  if (tokenBudget !== undefined && total > tokenBudget) {
    diagnostics.push({
      range: firstLineOf(text, prompt.range),
      severity: 'warning',
      code: 'token-budget',
      message: `Prompt '${prompt.name}' is ${total.toLocaleString('en-US')} tokens, over its budget of ${tokenBudget.toLocaleString('en-US')} by ${(total - tokenBudget).toLocaleString('en-US')}.`,
    });
  }
  return {
    prompt,
    model,
    modelFromFile: prompt.model !== undefined,
    encoding: counted.countedWith,
    countedWith: counted.kind,
    ...(counted.templateFrom ? { templateFrom: counted.templateFrom } : {}),
    countNotes: counted.notes,
    encoder: counted.encoder,
    exact: counted.exact,
    messages,
    totalTokens: total,
    overheadTokens: overhead,
    ...(model.contextWindowTokens ? { contextShare: total / model.contextWindowTokens } : {}),
    ...(tokenBudget !== undefined ? { tokenBudget } : {}),
  };
}

function reportTemplateIssues(format: PromptFormat, rendering: PromptRendering, prompt: Prompt, diagnostics: PromptDiagnostic[]): void {
  for (const variable of rendering.unresolved) {
    const where = variable.runtime ? 'VS Code fills it when the prompt runs' : sampleHint(format);
    // Dotprompt drops a message that renders empty: the counts say why a turn is missing.
    const dropped = format === 'dotprompt' ? ' (a message left empty is not sent)' : '';
    const counted = variable.renderedAs === 'empty' ? `the runtime renders it empty, and so it is counted${dropped}` : 'its placeholder text is counted instead, as it would be sent';
    for (const range of variable.ranges.length > 0 ? variable.ranges : [firstMessageRange(prompt)]) {
      diagnostics.push({
        range,
        severity: variable.runtime || format === 'text' ? 'information' : 'warning',
        code: 'unresolved-variable',
        message: `Variable '${variable.name}' has no value to count with (${where}); ${counted}.`,
      });
    }
  }
  if (rendering.uncheckedSchemas && rendering.uncheckedSchemas.length > 0) {
    const names = rendering.uncheckedSchemas.map((name) => `'${name}'`).join(' and ');
    const one = rendering.uncheckedSchemas.length === 1;
    diagnostics.push({
      range: firstMessageRange(prompt),
      severity: 'information',
      code: 'schema-not-checked',
      message: `Schema${one ? '' : 's'} ${names} ${one ? 'is' : 'are'} registered by the application (Genkit defineSchema), not written in this file: the prompt is rendered without ${one ? 'it' : 'them'}, and values are not checked against ${one ? 'it' : 'them'}.`,
    });
  }
  if (rendering.unevaluatedLogic) {
    const first = prompt.messages[0];
    diagnostics.push({
      range: first ? { start: first.contentRange.start, end: first.contentRange.start } : firstMessageRange(prompt),
      severity: 'information',
      code: 'unsupported-template',
      message: 'Template logic (conditions, loops, helpers) is not evaluated for counting; the text is counted as written, every branch included.',
    });
  }
  const media = rendering.messages.reduce((sum, message) => sum + message.mediaParts, 0);
  if (media > 0) {
    diagnostics.push({
      range: firstMessageRange(prompt),
      severity: 'information',
      code: 'media-not-counted',
      message: `${media} media part${media === 1 ? '' : 's'} (images, files) are sent but not counted: providers bill media by size, which a URL does not tell.`,
    });
  }
}

function firstMessageRange(prompt: Prompt): OffsetRange {
  const first = prompt.messages[0];
  return first ? { start: first.range.start, end: first.range.start } : { start: prompt.range.start, end: prompt.range.start };
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

function firstLineOf(text: string, range: OffsetRange): OffsetRange {
  const newline = text.indexOf('\n', range.start);
  return { start: range.start, end: newline < 0 || newline > range.end ? range.end : newline };
}
