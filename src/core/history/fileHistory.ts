/**
 * Revisions of one file from git history, following renames, and its content at any of them.
 * The working copy and the unsaved editor buffer are revisions too ('working', 'buffer').
 */
import { realpathSync } from 'node:fs';
import { basename, dirname, relative, resolve, sep } from 'node:path';
import { decodePromptBytes } from '../formats/decode';
import { git, GitError, gitWithInput } from './git';

export interface FileRevision {
  /** Full commit id. */
  rev: string;
  /** ISO 8601 author date. */
  date: string;
  author: string;
  subject: string;
  /** The file's path at this revision, relative to the repository root. */
  path: string;
  /** The commit deleted the file: there is no content at this revision. */
  deleted?: true;
  merge?: true;
}

export interface FileHistory {
  repoRoot: string;
  /** The file's current path, relative to the repository root. */
  path: string;
  revisions: FileRevision[];
  /** A shallow clone: older history is missing. */
  shallow: boolean;
}

export const WORKING_REVISION = 'working';
export const BUFFER_REVISION = 'buffer';

const RECORD = '\u001e';
const FIELD = '\u001f';
const COMMIT_ID = /^[0-9a-f]{7,64}$/;

export async function repoRootOf(file: string): Promise<string> {
  return (await repoFacts(file)).root;
}

/** The repository's root and whether it is a shallow clone, in one `git rev-parse`. */
async function repoFacts(file: string): Promise<{ root: string; shallow: boolean }> {
  const absolute = resolve(file);
  try {
    const [root = '', shallow = ''] = (await git(dirname(absolute), ['rev-parse', '--show-toplevel', '--is-shallow-repository'])).trim().split('\n');
    return { root: realpathSync(root.trim()), shallow: shallow.trim() === 'true' };
  } catch (error) {
    if (error instanceof GitError && error.kind === 'not-a-repo') throw new GitError('not-a-repo', `${file} is not inside a git repository: there is no history to compare. Run \`git init\` and commit the prompt, or compare the working copy with the buffer.`);
    throw error;
  }
}

function repoPath(repoRoot: string, file: string): string {
  let absolute = resolve(file);
  try {
    absolute = realpathSync(absolute);
  } catch {
    // a deleted file keeps its given path
  }
  return relative(repoRoot, absolute).split(sep).join('/');
}

/** `git log --follow` of one file, newest first, with the path the file had at each revision. */
export async function fileHistory(file: string, options: { maxCount?: number } = {}): Promise<FileHistory> {
  const absolute = resolve(file);
  const cwd = dirname(absolute);
  const name = basename(absolute);
  const args = ['log', '--follow', `--format=${RECORD}%H${FIELD}%aI${FIELD}%an${FIELD}%P${FIELD}%s`, '--name-status', '--no-color', '--no-ext-diff'];
  if (options.maxCount) args.push(`--max-count=${options.maxCount}`);
  // The log and the repository facts at once, from the file's folder (pathspecs are relative to it).
  const [{ root: repoRoot, shallow }, output] = await Promise.all([repoFacts(file), git(cwd, [...args, '--', name]).catch(() => '')]);
  const path = repoPath(repoRoot, file);
  if (!output.trim() && !(await git(cwd, ['ls-files', '--', name])).trim()) throw new GitError('untracked', `${path} is not tracked by git: commit it to compare its revisions (the working copy alone has nothing to compare with).`);
  return { repoRoot, path, revisions: parseLog(output, path), shallow };
}

/**
 * Parses log records newest → oldest, tracking the path back through renames. One pass with
 * indexOf: a 10,000-commit history is 1.5 MB of text.
 */
export function parseLog(output: string, currentPath: string): FileRevision[] {
  const revisions: FileRevision[] = [];
  let path = currentPath;
  let at = output.indexOf(RECORD);
  while (at >= 0) {
    const next = output.indexOf(RECORD, at + 1);
    const end = next < 0 ? output.length : next;
    const headerEnd = output.indexOf('\n', at);
    const header = output.slice(at + 1, headerEnd < 0 || headerEnd > end ? end : headerEnd);
    const [rev = '', date = '', author = '', parents = '', subject = ''] = header.split(FIELD);
    at = next;
    if (!COMMIT_ID.test(rev)) continue;
    const revision: FileRevision = { rev, date, author, subject, path };
    if (parents.includes(' ')) revision.merge = true;
    let olderPath = path;
    let lineStart = headerEnd < 0 ? end : headerEnd + 1;
    while (lineStart < end) {
      let lineEnd = output.indexOf('\n', lineStart);
      if (lineEnd < 0 || lineEnd > end) lineEnd = end;
      if (lineEnd > lineStart) {
        const parts = output.slice(lineStart, lineEnd).split('\t');
        const status = parts[0]!;
        if (status.startsWith('R') || status.startsWith('C')) {
          // Renamed (or copied) here: this revision has the new name, older ones the old name.
          revision.path = parts[2] ?? path;
          olderPath = parts[1] ?? path;
        } else if (status === 'D') {
          revision.deleted = true;
          revision.path = parts[1] ?? path;
        } else if (status === 'A' || status === 'M' || status.startsWith('T')) {
          revision.path = parts[1] ?? path;
        }
      }
      lineStart = lineEnd + 1;
    }
    revisions.push(revision);
    path = olderPath;
  }
  return revisions;
}

export type RevisionContent = { ok: true; text: string } | { ok: false; reason: string };

/** Contents of many `rev:path` pairs in one `git cat-file --batch` process. */
export async function contentsAt(repoRoot: string, wanted: readonly { rev: string; path: string }[]): Promise<RevisionContent[]> {
  for (const w of wanted) {
    if (!COMMIT_ID.test(w.rev)) throw new GitError('bad-revision', `'${w.rev}' is not a commit id.`);
    if (/[\n\r]/.test(w.path)) throw new GitError('bad-revision', 'A path with a line break cannot be read.');
  }
  if (wanted.length === 0) return [];
  const output = await gitWithInput(repoRoot, ['cat-file', '--batch'], wanted.map((w) => `${w.rev}:${w.path}\n`).join(''));
  const results: RevisionContent[] = [];
  let at = 0;
  for (const w of wanted) {
    const lineEnd = output.indexOf(0x0a, at);
    if (lineEnd < 0) throw new GitError('failed', 'git cat-file ended early.');
    const header = output.subarray(at, lineEnd).toString('utf8');
    at = lineEnd + 1;
    const match = /^[0-9a-f]+ (\w+) (\d+)$/.exec(header);
    if (!match) {
      results.push({ ok: false, reason: `${w.path} does not exist at ${w.rev.slice(0, 8)}.` });
      continue;
    }
    const size = Number(match[2]);
    const bytes = output.subarray(at, at + size);
    at += size + 1;
    if (match[1] !== 'blob') {
      results.push({ ok: false, reason: `${w.path} is a ${match[1]} at ${w.rev.slice(0, 8)}, not a file.` });
      continue;
    }
    const decoded = decodePromptBytes(bytes);
    results.push(decoded.ok ? { ok: true, text: decoded.text } : { ok: false, reason: `${w.path} at ${w.rev.slice(0, 8)}: ${decoded.reason}` });
  }
  return results;
}

/** Resolves a user-given revision (commit id, branch, tag, HEAD~2) to a commit id; never passes options through. */
export async function resolveRevision(repoRoot: string, rev: string): Promise<string> {
  if (!/^[\w./~^@{}-]+$/.test(rev) || rev.startsWith('-') || rev.length > 200) throw new GitError('bad-revision', `'${rev}' is not a revision name.`);
  try {
    return (await git(repoRoot, ['rev-parse', '--verify', '--quiet', '--end-of-options', `${rev}^{commit}`])).trim();
  } catch {
    throw new GitError('bad-revision', `'${rev}' is not a commit in ${repoRoot}.`);
  }
}
