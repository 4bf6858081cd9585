/**
 * Revisions of one file from git history, following renames, and its content at any of them.
 * The working copy and the unsaved editor buffer are revisions too ('working', 'buffer').
 */
import { realpathSync } from 'node:fs';
import { basename, dirname, relative, resolve, sep } from 'node:path';
import { decodePromptBytes } from '../formats/decode';
import { git, gitEnding, GitError, isGitStop, type GitEnding, type GitOptions } from './git';

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

/** Starts a commit in `git log -z` output: fields are NUL-separated, and no field can hold a NUL. */
const COMMIT_MARK = '\u0001commit';
const COMMIT_ID = /^[0-9a-f]{7,64}$/;

export type GitCallOptions = Omit<GitOptions, 'input'>;

/** The repository's root and whether it is a shallow clone, in one `git rev-parse`. */
async function repoFacts(file: string, options: GitCallOptions): Promise<{ root: string; shallow: boolean }> {
  const absolute = resolve(file);
  try {
    const [root = '', shallow = ''] = (await git(dirname(absolute), ['rev-parse', '--show-toplevel', '--is-shallow-repository'], options)).trim().split('\n');
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
export async function fileHistory(file: string, options: { maxCount?: number } & GitCallOptions = {}): Promise<FileHistory> {
  const absolute = resolve(file);
  const cwd = dirname(absolute);
  const name = basename(absolute);
  const args = ['log', '--follow', '-z', '--no-show-signature', `--format=${COMMIT_MARK}%x00%H%x00%aI%x00%an%x00%P%x00%s%x00`, '--name-status', '--no-color', '--no-ext-diff', '--no-textconv'];
  if (options.maxCount) args.push(`--max-count=${options.maxCount}`);
  // The log and the repository facts at once, from the file's folder (pathspecs are relative to it;
  // `:(literal)` so that a name with * or ? is itself, not a pattern).
  const spec = `:(literal)${name}`;
  const [{ root: repoRoot, shallow }, output] = await Promise.all([repoFacts(file, options), git(cwd, [...args, '--', spec], options).catch(rethrowStops)]);
  const path = repoPath(repoRoot, file);
  if (!output.trim() && !(await git(cwd, ['ls-files', '-z', '--', spec], options)).length) throw new GitError('untracked', `${path} is not tracked by git: commit it to compare its revisions (the working copy alone has nothing to compare with).`);
  return { repoRoot, path, revisions: parseLog(output, path), shallow };
}

/** A failed log reads as "no history"; a timeout or a cancel is the caller's to see. */
function rethrowStops(error: unknown): string {
  if (isGitStop(error) || (error instanceof GitError && error.kind === 'git-missing')) throw error;
  return '';
}

/**
 * Parses `git log -z` records newest → oldest, tracking the path back through renames. Every
 * field is a NUL-separated token read by position, so no subject, author or path — whatever
 * characters it holds — can be taken for another field or another commit.
 */
export function parseLog(output: string, currentPath: string): FileRevision[] {
  const tokens = output.split('\0');
  const revisions: FileRevision[] = [];
  let path = currentPath;
  let i = 0;
  while (i < tokens.length) {
    if (tokens[i] !== COMMIT_MARK) {
      i++;
      continue;
    }
    const [rev = '', date = '', author = '', parents = '', subject = ''] = tokens.slice(i + 1, i + 6);
    i += 6;
    const revision: FileRevision = { rev, date, author: printable(author), subject: printable(subject), path };
    if (parents.includes(' ')) revision.merge = true;
    let olderPath = path;
    // Name-status entries until the next commit: a status token, then one path (two for R and C).
    while (i < tokens.length && tokens[i] !== COMMIT_MARK) {
      const status = tokens[i]!.trim();
      i++;
      if (!status) continue;
      if (status.startsWith('R') || status.startsWith('C')) {
        // Renamed (or copied) here: this revision has the new name, older ones the old name.
        olderPath = tokens[i] ?? path;
        revision.path = tokens[i + 1] ?? path;
        i += 2;
      } else {
        if (status === 'D') revision.deleted = true;
        if (/^[ADMTU]/.test(status)) revision.path = tokens[i] ?? path;
        i += 1;
      }
    }
    if (!COMMIT_ID.test(rev)) continue;
    revisions.push(revision);
    path = olderPath;
  }
  return revisions;
}

/** Text from a commit for display: control characters (terminal escapes, fake line breaks) made visible. */
export function printable(text: string): string {
  return text.replace(/[\u0000-\u001f\u007f-\u009f]/g, '\ufffd');
}

export type RevisionContent = { ok: true; text: string } | { ok: false; reason: string };

/**
 * Contents of many `rev:path` pairs in one `git cat-file --batch` process. However that process
 * ends — answering all, dying part-way (a partial clone's refused lazy fetch can kill it with
 * SIGPIPE, or not, depending on which process the scheduler runs first), printing `fatal:` or not —
 * each pair is read or unreadable with git's reason; only a stop or a missing git is thrown.
 */
export async function contentsAt(repoRoot: string, wanted: readonly { rev: string; path: string }[], options: GitCallOptions = {}): Promise<RevisionContent[]> {
  for (const w of wanted) {
    if (!COMMIT_ID.test(w.rev)) throw new GitError('bad-revision', `'${w.rev}' is not a commit id.`);
  }
  if (wanted.length === 0) return [];
  const objectNames = await Promise.all(wanted.map((w) => batchObjectName(repoRoot, w, options)));
  const ending = await gitEnding(repoRoot, ['cat-file', '--batch'], { ...options, input: objectNames.map((name) => `${name}\n`).join('') });
  const output = ending.stdout;
  const gitSaid = gitReason(ending);
  const unreadable = (w: { rev: string; path: string }): RevisionContent => ({ ok: false, reason: `${w.path} at ${w.rev.slice(0, 8)} could not be read: ${gitSaid}` });
  const results: RevisionContent[] = [];
  let at = 0;
  for (const w of wanted) {
    const lineEnd = output.indexOf(0x0a, at);
    if (lineEnd < 0) {
      results.push(unreadable(w)); // git ended before answering this one
      continue;
    }
    const header = output.subarray(at, lineEnd).toString('utf8');
    at = lineEnd + 1;
    const match = /^[0-9a-f]+ (\w+) (\d+)$/.exec(header);
    if (!match) {
      // "missing": after a failed lazy fetch git also says why on stderr — the same reason it gives when the fetch kills it.
      results.push(ending.stderr.trim() ? unreadable(w) : { ok: false, reason: `${w.path} does not exist at ${w.rev.slice(0, 8)}.` });
      continue;
    }
    const size = Number(match[2]);
    if (at + size > output.length) {
      results.push(unreadable(w)); // cut off mid-content
      at = output.length;
      continue;
    }
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

/** What git said about a batch that did not answer, on one line: its stderr, else how it ended. */
function gitReason(ending: GitEnding): string {
  const said = printable(ending.stderr.trim().split(/\r?\n/).map((line) => line.trim()).filter(Boolean).join('; ')).slice(0, 500);
  if (said) return said;
  return ending.code === null ? `git cat-file was ended by ${ending.signal ?? 'a signal'} before answering.` : `git cat-file ended (exit code ${ending.code}) before answering.`;
}

/**
 * The name `cat-file --batch` reads for one file at one commit. Its input is line-based, so a path
 * holding a line break is first resolved to its blob id with `ls-tree -z`.
 */
async function batchObjectName(repoRoot: string, wanted: { rev: string; path: string }, options: GitCallOptions): Promise<string> {
  if (!/[\n\r]/.test(wanted.path)) return `${wanted.rev}:${wanted.path}`;
  const entry = (await git(repoRoot, ['ls-tree', '-z', '--full-tree', wanted.rev, '--', `:(literal)${wanted.path}`], options)).split('\0')[0] ?? '';
  const objectId = /^\d+ \w+ ([0-9a-f]{40,64})\t/.exec(entry)?.[1];
  return objectId ?? `${wanted.rev}:missing-path`;
}

/** Resolves a user-given revision (commit id, branch, tag, HEAD~2) to a commit id; never passes options through. */
export async function resolveRevision(repoRoot: string, rev: string, options: GitCallOptions = {}): Promise<string> {
  if (!/^[\w./~^@{}-]+$/.test(rev) || rev.startsWith('-') || rev.length > 200) throw new GitError('bad-revision', `'${rev}' is not a revision name.`);
  try {
    return (await git(repoRoot, ['rev-parse', '--verify', '--quiet', '--end-of-options', `${rev}^{commit}`], options)).trim();
  } catch (error) {
    if (isGitStop(error)) throw error;
    throw new GitError('bad-revision', `'${rev}' is not a commit in ${repoRoot}.`);
  }
}

/** What a tree holds at one path: a regular file of some size, something else, or nothing. */
export type TreeEntry = { kind: 'file'; size: number } | { kind: 'link' | 'directory' | 'submodule' } | { kind: 'missing' };

/** The entry at `path` in commit `rev`, read with `ls-tree -l` (mode and size, no content). */
export async function treeEntryAt(repoRoot: string, rev: string, path: string, options: GitCallOptions = {}): Promise<TreeEntry> {
  if (!COMMIT_ID.test(rev)) throw new GitError('bad-revision', `'${rev}' is not a commit id.`);
  const line = (await git(repoRoot, ['ls-tree', '-z', '-l', '--full-tree', rev, '--', `:(literal)${path}`], options)).split('\0')[0] ?? '';
  const match = /^(\d{6}) (\w+) [0-9a-f]+ +(-|\d+)\t/.exec(line);
  if (!match) return { kind: 'missing' };
  const [, mode, type, size] = match;
  if (mode === '120000') return { kind: 'link' };
  if (type === 'tree') return { kind: 'directory' };
  if (type === 'commit') return { kind: 'submodule' };
  return { kind: 'file', size: Number(size) };
}

/**
 * A file a repository names, as committed at `rev`: only a regular file (a committed link is not
 * followed, even within the tree), and only under `maxBytes` — checked before its content is read.
 * `undefined` when there is no such path at that revision.
 */
export async function regularFileAt(repoRoot: string, rev: string, path: string, maxBytes: number, options: GitCallOptions = {}): Promise<RevisionContent | undefined> {
  const entry = await treeEntryAt(repoRoot, rev, path, options);
  if (entry.kind === 'missing') return undefined;
  const at = `${path} at ${rev.slice(0, 8)}`;
  if (entry.kind !== 'file') return { ok: false, reason: `${at} is a ${entry.kind === 'link' ? 'symbolic link' : entry.kind}, not a regular file; it is not read.` };
  if (entry.size > maxBytes) return { ok: false, reason: `${at} is ${entry.size} bytes, over the ${maxBytes}-byte limit; it is not read.` };
  return (await contentsAt(repoRoot, [{ rev, path }], options))[0]!;
}
