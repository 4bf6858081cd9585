/**
 * The revisions the comparison panel offers (the unsaved buffer and the working copy first, then the
 * file's commits, newest first) and the two it preselects. Kept free of VS Code so that tests run it on
 * real repositories.
 */
import { BUFFER_REVISION, fileHistory, WORKING_REVISION, type FileHistory, type GitCallOptions } from '../history/fileHistory';
import { differsFromHead } from '../history/workingChanges';

export interface RevisionChoice {
  rev: string;
  label: string;
  date?: string;
  author?: string;
  subject?: string;
  path: string;
}

export interface PanelRevisions {
  choices: RevisionChoice[];
  /** The revisions ticked when the panel opens, newest first as listed. */
  preselected: string[];
  /** Why the history is missing or partial, in words. */
  notice?: string;
  history?: FileHistory;
}

export interface PanelRevisionOptions extends GitCallOptions {
  /** The editor holds unsaved changes: the buffer is a revision too. */
  dirty: boolean;
  /** Preselect working copy vs HEAD even when the prompt itself is unchanged (new test cases in the working copy). */
  preferWorkingCopy?: boolean;
  maxCount?: number;
}

/**
 * Working copy vs HEAD when the prompt file differs from HEAD (the change the user is making), or when
 * asked; else the two newest commits (the change most likely under review); else the first two entries.
 */
export async function panelRevisions(file: string, options: PanelRevisionOptions): Promise<PanelRevisions> {
  const choices: RevisionChoice[] = [];
  if (options.dirty) choices.push({ rev: BUFFER_REVISION, label: 'unsaved buffer', path: file });
  choices.push({ rev: WORKING_REVISION, label: 'working copy', path: file });
  const call: GitCallOptions = { ...(options.signal ? { signal: options.signal } : {}), ...(options.timeoutMs ? { timeoutMs: options.timeoutMs } : {}) };
  let history: FileHistory;
  try {
    history = await fileHistory(file, { ...call, maxCount: options.maxCount ?? 500 });
  } catch (error) {
    return { choices, preselected: choices.slice(0, 2).map((c) => c.rev), notice: (error as Error).message };
  }
  for (const r of history.revisions) if (!r.deleted) choices.push({ rev: r.rev, label: r.rev.slice(0, 7), date: r.date, author: r.author, subject: r.subject, path: r.path });
  const commits = choices.filter((c) => c.rev !== WORKING_REVISION && c.rev !== BUFFER_REVISION);
  // The newest commit that touched the file holds its content at HEAD (unless that commit deleted it).
  const atHead = history.revisions[0] && !history.revisions[0].deleted ? history.revisions[0].rev : undefined;
  const workingVsHead = atHead !== undefined && (options.preferWorkingCopy === true || (await differsFromHead(history.repoRoot, history.path, call).catch(() => false)));
  const preselected = workingVsHead ? [WORKING_REVISION, atHead] : commits.length >= 2 ? commits.slice(0, 2).map((c) => c.rev) : choices.slice(0, 2).map((c) => c.rev);
  return { choices, preselected, history, ...(history.shallow ? { notice: 'This is a shallow clone: older revisions are missing (git fetch --unshallow).' } : {}) };
}
