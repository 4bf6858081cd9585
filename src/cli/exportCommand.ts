import { existsSync } from 'node:fs';
import { scrubSecrets } from '../core/endpoint/secrets';
import { runsToCsv, runsToJson } from '../core/store/export';
import { ResultsStore } from '../core/store/resultsStore';
import { storeNotice } from '../core/store/sealedLines';
import { LoadResultsStore, loadResultsPath } from '../core/load/loadResults';
import { loadPointsToCsv, loadPointsToJson } from '../core/load/loadExport';
import { parseArgs, stringFlag, UsageError } from './args';
import type { CliIO } from './io';
import { terminalJsonText } from './terminalText';
import { DEFAULT_STORE_PATH } from './runCommand';
import { captureContentFromEnv } from '../core/telemetry/otlpSettings';
import { loadTelemetry } from '../core/telemetry/loadTelemetry';
import { EXPORT_USAGE, VERSION } from './help/usage';
import { writeOutput } from './outputFiles';
import { readLabelsFileSync } from '../core/adherence/labelsFile';
import { describeReadError } from '../core/files/workspaceFile';

/**
 * `prompt-insight export`: the results store as JSON, CSV or OTLP JSON Lines (one OpenTelemetry `TracesData`
 * per line, a GenAI client span per run: docs/telemetry.md). With no store, or none of its runs
 * readable, the output is still valid (`[]`, or the CSV header) and exit 0, with a note on stderr
 * saying why it is empty.
 */
export async function exportCommand(argv: string[], io: CliIO): Promise<number> {
  const args = parseArgs(argv, { valued: ['store', 'format', 'out', 'kind', 'labels'], boolean: [] });
  if (args.positionals.length > 0) throw new UsageError(`unexpected argument '${args.positionals[0]}'\nusage: ${EXPORT_USAGE}`);
  const kind = stringFlag(args, 'kind') ?? (args.flags.has('labels') ? 'labels' : 'runs');
  const format = stringFlag(args, 'format') ?? (kind === 'labels' ? 'otlp-json' : 'json');
  if (format !== 'json' && format !== 'csv' && format !== 'otlp-json') throw new UsageError('--format must be json, csv or otlp-json');
  if (kind !== 'runs' && kind !== 'load' && kind !== 'labels') throw new UsageError('--kind must be runs, load or labels');
  if (kind === 'labels') {
    const labels = stringFlag(args, 'labels');
    if (!labels) throw new UsageError('--kind labels needs --labels FILE.labels.jsonl');
    if (format !== 'otlp-json') throw new UsageError('--kind labels exports as otlp-json (gen_ai.evaluation.result events)');
    return exportLabels(labels, stringFlag(args, 'out'), io);
  }
  if (args.flags.has('labels')) throw new UsageError('--labels goes with --kind labels');
  if (kind === 'load') {
    if (format === 'otlp-json') throw new UsageError('--kind load exports as json or csv (load points are not OTLP spans)');
    return exportLoadPoints(loadResultsPath(stringFlag(args, 'store') ?? DEFAULT_STORE_PATH), format, stringFlag(args, 'out'), io);
  }
  const store = new ResultsStore(stringFlag(args, 'store') ?? DEFAULT_STORE_PATH);
  let contents;
  try {
    contents = store.read();
  } catch (error) {
    io.stderr(`prompt-insight export: ${(error as Error).message}\n`);
    return 1;
  }
  const { records } = contents;
  const notice = storeNotice(store.path, contents);
  if (notice) io.stderr(`prompt-insight export: ${notice}\n`);
  if (records.length === 0 && !existsSync(store.path)) {
    io.stderr(`prompt-insight export: no results store at ${store.path}: nothing to export (\`prompt-insight run\` and \`compare\` keep their runs there; another store: --store PATH)\n`);
  } else if (records.length === 0 && !notice) {
    io.stderr(`prompt-insight export: ${store.path} holds no runs: nothing to export\n`);
  }
  let text: string;
  if (format === 'otlp-json') {
    // Prompt and answer text only with OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT=true; the store keeps no prompt text.
    const { otlpJsonLines } = await loadTelemetry();
    const lines: string[] = [];
    for (const line of otlpJsonLines(records.map((run) => ({ run })), { captureContent: captureContentFromEnv(), version: VERSION })) lines.push(line);
    text = terminalJsonText(lines.length ? `${lines.join('\n')}\n` : '');
  } else {
    // JSON keeps the characters a terminal would act on exact, as \u escapes; CSV shows them replaced (io).
    text = format === 'csv' ? runsToCsv(records) : terminalJsonText(runsToJson(records));
  }
  const out = stringFlag(args, 'out');
  if (out) writeOutput({ path: out, what: 'the export (--out)' }, scrubSecrets(text));
  else io.stdout(text);
  return 0;
}

/** `export --kind labels`: a labels file's labels as OTLP JSON Lines, one `gen_ai.evaluation.result` event each (docs/telemetry.md). */
async function exportLabels(file: string, out: string | undefined, io: CliIO): Promise<number> {
  let read;
  try {
    read = readLabelsFileSync(file);
  } catch (error) {
    io.stderr(`prompt-insight export: ${file}: ${describeReadError(error)}\n`);
    return 1;
  }
  if (!read) {
    io.stderr(`prompt-insight export: no labels file ${file}\n`);
    return 1;
  }
  for (const problem of read.problems) io.stderr(`warning: ${problem}\n`);
  const { labelsOtlpJsonLines } = await loadTelemetry();
  const lines = [...labelsOtlpJsonLines(read.labels, file, { captureContent: captureContentFromEnv(), version: VERSION })];
  const text = terminalJsonText(lines.length ? `${lines.join('\n')}\n` : '');
  if (out) writeOutput({ path: out, what: 'the export (--out)' }, scrubSecrets(text));
  else io.stdout(text);
  return 0;
}

/** `export --kind load`: the stored load points (`load` keeps them beside the runs), as JSON `{ loadPoints }` or CSV, one row per point. */
async function exportLoadPoints(path: string, format: 'json' | 'csv', out: string | undefined, io: CliIO): Promise<number> {
  const store = new LoadResultsStore(path);
  let contents;
  try {
    contents = store.read();
  } catch (error) {
    io.stderr(`prompt-insight export: ${(error as Error).message}\n`);
    return 1;
  }
  const notice = storeNotice(path, contents);
  if (notice) io.stderr(`prompt-insight export: ${notice}\n`);
  if (contents.records.length === 0 && !existsSync(path)) io.stderr(`prompt-insight export: no load results at ${path}: nothing to export (\`prompt-insight load\` keeps its points there; another store: --store PATH)\n`);
  const text = format === 'csv' ? loadPointsToCsv(contents.records) : loadPointsToJson(contents.records);
  if (out) writeOutput({ path: out, what: 'the export (--out)' }, scrubSecrets(text));
  else io.stdout(text);
  return 0;
}
