import { fileHistory } from '../core/history/fileHistory';
import { GitError } from '../core/history/git';
import { parseArgs, UsageError } from './args';
import type { CliIO } from './io';
import { terminalJson } from './terminalText';
import { HISTORY_USAGE } from './help/usage';

/** `prompt-insight history`: the file's revisions (renames followed), newest first. */
export async function historyCommand(argv: string[], io: CliIO): Promise<number> {
  const args = parseArgs(argv, { valued: [], boolean: ['json'] });
  if (args.positionals.length !== 1) throw new UsageError(`give exactly one file\nusage: ${HISTORY_USAGE}`);
  const file = args.positionals[0]!;
  let history;
  try {
    history = await fileHistory(file, { signal: io.interrupted() });
  } catch (error) {
    io.stderr(`prompt-insight history: ${error instanceof GitError ? error.message : (error as Error).message}\n`);
    return 1;
  }
  const rows = history.revisions.map((r) => ({ rev: r.rev, date: r.date, author: r.author, subject: r.subject, path: r.path, ...(r.deleted ? { deleted: true } : {}), ...(r.merge ? { merge: true } : {}) }));
  if (args.flags.get('json')) io.stdout(`${terminalJson(rows)}\n`);
  else for (const r of rows) io.stdout(`${r.rev.slice(0, 10)}  ${r.date.slice(0, 10)}  ${r.author.padEnd(18).slice(0, 18)}  ${r.subject}${r.path !== history.path ? `  (${r.path})` : ''}${r.deleted ? '  [deleted]' : ''}\n`);
  if (history.shallow) io.stderr('prompt-insight history: this is a shallow clone; older revisions are missing (git fetch --unshallow).\n');
  return 0;
}
