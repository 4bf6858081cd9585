/**
 * Replacing a file whose place a repository chose (the tests sidecar `sample` appends to), so that a
 * cloned repository cannot make the product write anywhere else. The target obeys the readers' rules
 * (workspaceFile.ts): its folder is inside the workspace after links are resolved and not inside
 * `.git`, and the target is a regular file or absent — a link (even one leading inside the workspace),
 * a FIFO or a folder is refused. The new text goes to a temporary file with a random name in the
 * target's own folder, created exclusively and without following links (a committed link waiting at a
 * guessable name cannot be written through), then renamed over the target: a failed write leaves the
 * old file whole, and a rename replaces whatever stands at the name, never what a link points to.
 */
import { randomBytes } from 'node:crypto';
import { closeSync, constants, fsyncSync, lstatSync, openSync, realpathSync, renameSync, unlinkSync, writeSync } from 'node:fs';
import { basename, dirname, join, relative, resolve } from 'node:path';
import { hasGitComponent, isInside, realRoot, WorkspaceFileError } from './workspaceFile';

export interface WorkspaceWriteOptions {
  /** Folder the file must lie in after links are resolved (from findWorkspaceRoot). */
  root: string;
  /** What the file is, for messages: "tests files". */
  what: string;
}

/** Where a checked target is: its real folder and name, and the mode a new text keeps. */
export interface WritableTarget {
  path: string;
  mode: number;
  exists: boolean;
}

/**
 * Checks that `file` may be replaced, before any work is done for it; throws WorkspaceFileError saying
 * why not. The write checks again (the folder may have changed since).
 */
export function checkWritableTarget(file: string, options: WorkspaceWriteOptions): WritableTarget {
  const path = resolve(file);
  const shown = `'${file}'`;
  const root = realRoot(options.root);
  if (hasGitComponent(relative(resolve(options.root), path))) throw gitInternal(shown, options);
  let folder: string;
  try {
    folder = realpathSync(dirname(path));
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    throw new WorkspaceFileError('not-found', shown, `the folder of ${shown} does not exist (${code ?? (error as Error).message}); ${options.what} are written only into an existing folder of the workspace.`);
  }
  if (!isInside(root, folder)) {
    throw new WorkspaceFileError('outside-workspace', shown, `${shown} lies in ${folder}, outside the workspace (${root}); ${options.what} are written only inside the workspace. Give --out a path inside it.`);
  }
  if (hasGitComponent(relative(root, folder))) throw gitInternal(shown, options);
  const target = join(folder, basename(path));
  let stat;
  try {
    stat = lstatSync(target);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { path: target, mode: 0o644, exists: false };
    throw new WorkspaceFileError('unreadable', shown, `${shown} cannot be checked (${(error as NodeJS.ErrnoException).code}); nothing is written.`);
  }
  if (stat.isSymbolicLink()) {
    throw new WorkspaceFileError('not-regular', shown, `${shown} is a link (to ${safeReadlink(target)}); ${options.what} are written only as regular files, never through a link. Replace the link with a file if it is meant to be written.`);
  }
  if (!stat.isFile()) throw new WorkspaceFileError('not-regular', shown, `${shown} is not a regular file; ${options.what} are written only as regular files.`);
  return { path: target, mode: stat.mode & 0o777, exists: true };
}

/** Replaces `file` with `text` (UTF-8) as described above; throws WorkspaceFileError when the target is refused. */
export function replaceWorkspaceFile(file: string, text: string, options: WorkspaceWriteOptions): void {
  const target = checkWritableTarget(file, options);
  const folder = dirname(target.path);
  // Hidden, random, beside the target: a rename within one folder is atomic, and no name can be prepared for it.
  const temporary = join(folder, `.${basename(target.path)}.${randomBytes(8).toString('hex')}.tmp`);
  const fd = openSync(temporary, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | (constants.O_NOFOLLOW ?? 0), target.mode);
  try {
    const bytes = Buffer.from(text, 'utf8');
    for (let at = 0; at < bytes.length; ) at += writeSync(fd, bytes, at, bytes.length - at);
    fsyncSync(fd);
  } catch (error) {
    closeSync(fd);
    unlinkSync(temporary);
    throw error;
  }
  closeSync(fd);
  try {
    renameSync(temporary, target.path);
  } catch (error) {
    unlinkSync(temporary);
    throw error;
  }
}

function gitInternal(shown: string, options: WorkspaceWriteOptions): WorkspaceFileError {
  return new WorkspaceFileError('git-internal', shown, `${shown} is inside a .git folder; ${options.what} are never written there.`);
}

function safeReadlink(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    return 'nothing';
  }
}
