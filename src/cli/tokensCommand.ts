import { resolve } from 'node:path';
import { analyzePromptText, type AnalysisOptions, type FileAnalysis } from '../core/analysis';
import { describeReadError, readPromptFile } from '../core/files/workspaceFile';
import { decodePromptBytes } from '../core/formats/decode';
import { LineIndex, rangeAt } from '../core/formats/lineIndex';
import { sidecarKind } from '../core/formats/sidecars';
import { TokenCounter } from '../core/tokens/counter';
import { ENCODINGS, isEncodingName } from '../core/tokens/encodingNames';
import { countLabel } from '../core/modelTokens/countLabel';
import { loadTokenizerFolder } from '../core/tokens/tokenizerFolder';
import { modelTokenInfo, type ModelTokenInfo } from '../core/tokens/models';
import { numberFlag, parseArgs, stringFlag, UsageError, type ParsedArgs } from './args';
import type { CliIO } from './io';
import { terminalJson } from './terminalText';
import { TOKENS_USAGE } from './help/usage';

/**
 * `prompt-insight tokens`: counts every prompt of every file; exit 1 when a file cannot be read, has
 * errors, or a prompt is over `--budget`. The command line wins over the file: `--model` counts for
 * that model whatever the file names, and `--budget` gates every prompt whatever its own
 * `tokenBudget` (which is still reported, as a warning).
 */
export async function tokensCommand(argv: string[], io: CliIO): Promise<number> {
  const args = parseArgs(argv, { valued: ['encoding', 'model', 'budget', 'partials', 'tokenizer', 'endpoint', 'api-key-env'], boolean: ['json', 'rendered'] });
  if (args.positionals.length === 0) throw new UsageError(`no files given\nusage: ${TOKENS_USAGE}`);
  const encoding = args.flags.get('encoding');
  if (encoding !== undefined && (typeof encoding !== 'string' || !isEncodingName(encoding))) {
    throw new UsageError(`--encoding must be one of ${ENCODINGS.join(', ')}`);
  }
  const budget = numberFlag(args, 'budget', { min: 0, integer: true });
  const modelFlag = stringFlag(args, 'model');
  if (args.flags.has('model') && !modelFlag?.trim()) throw new UsageError('--model needs a model id, e.g. gpt-4o');
  const flagModel = modelFlag ? modelTokenInfo(modelFlag.trim()) : undefined;
  const counting = modelCountingFlags(args);
  if (counting.tokenizer) {
    // Named on the command line: a folder that cannot be used is the run's failure, not a quiet estimate.
    try {
      await loadTokenizerFolder(counting.tokenizer);
    } catch (error) {
      io.stderr(`prompt-insight: --tokenizer ${counting.tokenizer.path}: ${(error as Error).message}\n`);
      return 1;
    }
  }
  const counter = new TokenCounter();
  const files = [];
  let failed = false;
  const prompts = args.positionals.filter((file) => {
    const kind = sidecarKind(file);
    if (kind) io.stderr(`prompt-insight: ${file}: skipped, a ${kind} file, not a prompt\n`);
    return !kind;
  });
  if (prompts.length === 0) throw new UsageError(`no prompt files among the files given (tests files and simulator scenarios are not prompts)\nusage: ${TOKENS_USAGE}`);
  for (const file of prompts) {
    let bytes: Uint8Array;
    try {
      // A regular file inside its workspace (git top level), capped: a committed link to /dev/zero or ~/.git-credentials is refused.
      bytes = await readPromptFile(file);
    } catch (error) {
      io.stderr(`prompt-insight: ${file}: ${describeReadError(error)}\n`);
      failed = true;
      continue;
    }
    const decoded = decodePromptBytes(bytes);
    if (!decoded.ok) {
      io.stderr(`prompt-insight: ${file}: ${decoded.reason}\n`);
      failed = true;
      continue;
    }
    const analysis = await analyzePromptText(file, decoded.text, counter, {
      defaultModel: 'gpt-4o',
      // --model wins over the file's model: every prompt is counted for it.
      ...(flagModel ? { model: flagModel.model } : {}),
      ...(encoding && isEncodingName(encoding) ? { encoding } : {}),
      ...counting,
      filePath: resolve(file),
      ...(typeof args.flags.get('partials') === 'string' ? { partialFolders: [resolve(String(args.flags.get('partials')))] } : {}),
    });
    if (analysis.diagnostics.some((d) => d.severity === 'error')) failed = true;
    const json = toJson(file, analysis, new LineIndex(decoded.text), args.flags.get('rendered') === true, flagModel);
    for (const prompt of json.prompts) {
      if (budget === undefined) continue;
      const gate: BudgetJson = { tokens: budget, source: '--budget', exceeded: prompt.tokens.total > budget };
      prompt.budgets.unshift(gate);
      if (gate.exceeded) {
        failed = true;
        io.stderr(`${file}: prompt '${prompt.name}' is ${prompt.tokens.total.toLocaleString('en-US')} tokens, over --budget ${budget.toLocaleString('en-US')} by ${(prompt.tokens.total - budget).toLocaleString('en-US')}\n`);
      }
    }
    files.push(json);
  }
  if (args.flags.get('json')) io.stdout(`${terminalJson({ files })}\n`);
  else for (const file of files) io.stdout(renderText(file));
  for (const file of files) {
    for (const d of file.diagnostics) if (d.severity === 'error') io.stderr(`${file.file}:${d.range.start.line + 1}:${d.range.start.character + 1}: error: ${d.message}\n`);
  }
  return failed ? 1 : 0;
}

type FileJson = ReturnType<typeof toJson>;

interface BudgetJson {
  tokens: number;
  /** `--budget` (the gate: over it, exit 1) or `file` (the prompt's own tokenBudget: a warning). */
  source: '--budget' | 'file';
  exceeded: boolean;
}

/**
 * `rendered`: each message carries its rendered content, exactly what would be sent. `flagModel`:
 * the model of `--model`, which the counts are for (the file's own is kept as `fileModel`).
 */
function toJson(file: string, analysis: FileAnalysis, lines: LineIndex, rendered: boolean, flagModel: ModelTokenInfo | undefined) {
  return {
    file,
    format: analysis.format,
    prompts: analysis.prompts.map((p) => ({
      name: p.prompt.name,
      range: rangeAt(lines, p.prompt.range),
      model: (flagModel ?? p.model).model,
      modelSource: (flagModel ? '--model' : p.modelFromFile ? 'file' : 'default') as '--model' | 'file' | 'default',
      ...(flagModel && p.prompt.model !== undefined && p.prompt.model !== flagModel.model ? { fileModel: p.prompt.model } : {}),
      encoding: p.encoding,
      countedWith: p.countedWith,
      label: countLabel({ ...p, ...(flagModel ? { model: flagModel, modelFromFile: true } : {}) }),
      ...(p.templateFrom ? { templateFrom: p.templateFrom } : {}),
      ...(p.countNotes.length > 0 ? { notes: p.countNotes } : {}),
      exact: p.exact,
      ...((flagModel ?? p.model).contextWindowTokens ? { contextWindowTokens: (flagModel ?? p.model).contextWindowTokens } : {}),
      budgets: p.tokenBudget !== undefined ? [{ tokens: p.tokenBudget, source: 'file', exceeded: p.totalTokens > p.tokenBudget } as BudgetJson] : [],
      tokens: {
        total: p.totalTokens,
        overhead: p.overheadTokens,
        messages: p.messages.map((m) => ({ role: m.role, ...(m.name ? { name: m.name } : {}), tokens: m.tokens, range: rangeAt(lines, m.range), ...(rendered ? { content: m.content, ...(m.mediaParts ? { mediaParts: m.mediaParts } : {}) } : {}) })),
      },
    })),
    diagnostics: analysis.diagnostics.map((d) => ({ severity: d.severity, code: d.code, message: d.message, range: rangeAt(lines, d.range) })),
  };
}

function renderText(file: FileJson): string {
  const out = [`${file.file} (${file.format})`];
  for (const prompt of file.prompts) {
    const approx = prompt.exact ? '' : '≈';
    const source = prompt.modelSource === 'default' ? ' (default)' : prompt.modelSource === '--model' ? ` (--model${prompt.fileModel ? `; the file names ${prompt.fileModel}` : ''})` : '';
    // A file's own budget is named beside --budget, or when exceeded; the JSON always has both.
    const shown = prompt.budgets.some((b) => b.source === '--budget' || b.exceeded) ? prompt.budgets : [];
    const budget = shown.map((b) => ` · ${b.source === 'file' ? "the file's tokenBudget" : '--budget'} ${b.tokens}${b.exceeded ? ` EXCEEDED by ${prompt.tokens.total - b.tokens}` : ''}`).join('');
    out.push(`  ${prompt.name}: ${approx}${prompt.tokens.total} tokens · ${prompt.model}${source} · ${prompt.countedWith === 'encoding' ? `${prompt.encoding} ${prompt.exact ? 'exact' : 'estimate'}` : prompt.label}${budget}`);
    for (const note of prompt.notes ?? []) out.push(`    note: ${note}`);
    for (const m of prompt.tokens.messages) {
      out.push(`    ${m.role.padEnd(10)} ${String(m.tokens).padStart(8)}`);
      if ('content' in m) out.push(...String(m.content).split('\n').map((line) => `      │ ${line}`));
    }
    out.push(`    ${'overhead'.padEnd(10)} ${String(prompt.tokens.overhead).padStart(8)}`);
  }
  for (const d of file.diagnostics) {
    if (d.severity !== 'error') out.push(`  ${d.range.start.line + 1}:${d.range.start.character + 1} ${d.severity}: ${d.message}`);
  }
  return `${out.join('\n')}\n`;
}

/** `--tokenizer PATH` (a model folder or its tokenizer.json) and `--endpoint URL` (whose /tokenize counts models with no tokenizer at hand). */
function modelCountingFlags(args: ParsedArgs): Pick<AnalysisOptions, 'tokenizer' | 'tokenizeEndpoint'> {
  const tokenizer = stringFlag(args, 'tokenizer');
  if (args.flags.has('tokenizer') && !tokenizer?.trim()) throw new UsageError("--tokenizer needs the model's folder (with tokenizer.json) or its tokenizer.json");
  const baseUrl = stringFlag(args, 'endpoint');
  if (baseUrl !== undefined && (!/^https?:\/\//i.test(baseUrl) || !URL.canParse(baseUrl))) throw new UsageError(`--endpoint must be an http(s) URL (got '${baseUrl}')`);
  const keyVariable = stringFlag(args, 'api-key-env');
  const apiKey = keyVariable !== undefined ? process.env[keyVariable] : undefined;
  if (keyVariable !== undefined && !apiKey) throw new UsageError(`--api-key-env ${keyVariable}: that environment variable is not set or empty`);
  return {
    ...(tokenizer ? { tokenizer: { path: resolve(tokenizer), origin: 'user' as const } } : {}),
    ...(baseUrl ? { tokenizeEndpoint: { baseUrl, ...(apiKey ? { apiKey } : {}) } } : {}),
  };
}
