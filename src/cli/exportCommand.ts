import { writeFile } from 'node:fs/promises';
import { runsToCsv, runsToJson } from '../core/store/export';
import { ResultsStore } from '../core/store/resultsStore';
import { parseArgs, stringFlag, UsageError } from './args';
import type { CliIO } from './io';
import { DEFAULT_STORE_PATH } from './runCommand';

export const EXPORT_USAGE = 'prompt-insight export [--store PATH] [--format json|csv] [--out FILE]';

/** `prompt-insight export`: the results store as JSON or CSV. */
export async function exportCommand(argv: string[], io: CliIO): Promise<number> {
  const args = parseArgs(argv, { valued: ['store', 'format', 'out'], boolean: [] });
  if (args.positionals.length > 0) throw new UsageError(`unexpected argument '${args.positionals[0]}'\nusage: ${EXPORT_USAGE}`);
  const format = stringFlag(args, 'format') ?? 'json';
  if (format !== 'json' && format !== 'csv') throw new UsageError('--format must be json or csv');
  const store = new ResultsStore(stringFlag(args, 'store') ?? DEFAULT_STORE_PATH);
  const { records, skippedLines } = store.read();
  if (skippedLines > 0) io.stderr(`prompt-insight export: skipped ${skippedLines} unreadable line${skippedLines === 1 ? '' : 's'} in ${store.path} (a record cut by a crash, or edited by hand)\n`);
  const text = format === 'csv' ? runsToCsv(records) : runsToJson(records);
  const out = stringFlag(args, 'out');
  if (out) await writeFile(out, text);
  else io.stdout(text);
  return 0;
}
