import { resolve } from 'node:path';
import { analyzePromptText, type FileAnalysis } from '../core/analysis';
import { describeReadError, readPromptFile } from '../core/files/workspaceFile';
import { decodePromptBytes } from '../core/formats/decode';
import { LineIndex, rangeAt } from '../core/formats/lineIndex';
import { TokenCounter } from '../core/tokens/counter';
import { ENCODINGS, isEncodingName } from '../core/tokens/engine';
import { parseArgs, UsageError } from './args';
import type { CliIO } from './io';
import { TOKENS_USAGE } from './usage';

/** `prompt-insight tokens`: counts every prompt of every file; exit 1 when a file cannot be read or has errors. */
export async function tokensCommand(argv: string[], io: CliIO): Promise<number> {
  const args = parseArgs(argv, { valued: ['encoding', 'model', 'budget', 'partials'], boolean: ['json', 'rendered'] });
  if (args.positionals.length === 0) throw new UsageError(`no files given\nusage: ${TOKENS_USAGE}`);
  const encoding = args.flags.get('encoding');
  if (encoding !== undefined && (typeof encoding !== 'string' || !isEncodingName(encoding))) {
    throw new UsageError(`--encoding must be one of ${ENCODINGS.join(', ')}`);
  }
  const budgetFlag = args.flags.get('budget');
  const budget = typeof budgetFlag === 'string' ? Number(budgetFlag) : 0;
  if (!Number.isFinite(budget) || budget < 0) throw new UsageError('--budget must be a non-negative number');
  const model = args.flags.get('model');
  const counter = new TokenCounter();
  const files = [];
  let failed = false;
  for (const file of args.positionals) {
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
      defaultModel: typeof model === 'string' ? model : 'gpt-4o',
      ...(encoding && isEncodingName(encoding) ? { encoding } : {}),
      tokenBudget: budget,
      filePath: resolve(file),
      ...(typeof args.flags.get('partials') === 'string' ? { partialFolders: [resolve(String(args.flags.get('partials')))] } : {}),
    });
    if (analysis.diagnostics.some((d) => d.severity === 'error')) failed = true;
    files.push(toJson(file, analysis, new LineIndex(decoded.text), args.flags.get('rendered') === true));
  }
  if (args.flags.get('json')) io.stdout(`${JSON.stringify({ files }, null, 2)}\n`);
  else for (const file of files) io.stdout(renderText(file));
  for (const file of files) {
    for (const d of file.diagnostics) if (d.severity === 'error') io.stderr(`${file.file}:${d.range.start.line + 1}:${d.range.start.character + 1}: error: ${d.message}\n`);
  }
  return failed ? 1 : 0;
}

type FileJson = ReturnType<typeof toJson>;

/** `rendered`: each message carries its rendered content, exactly what would be sent. */
function toJson(file: string, analysis: FileAnalysis, lines: LineIndex, rendered: boolean) {
  return {
    file,
    format: analysis.format,
    prompts: analysis.prompts.map((p) => ({
      name: p.prompt.name,
      range: rangeAt(lines, p.prompt.range),
      model: p.model.model,
      modelSource: p.modelFromFile ? 'file' : 'default',
      encoding: p.encoding,
      exact: p.exact,
      ...(p.model.contextWindowTokens ? { contextWindowTokens: p.model.contextWindowTokens } : {}),
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
    out.push(`  ${prompt.name}: ${approx}${prompt.tokens.total} tokens · ${prompt.model}${prompt.modelSource === 'default' ? ' (default)' : ''} · ${prompt.encoding} ${prompt.exact ? 'exact' : 'estimate'}`);
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
