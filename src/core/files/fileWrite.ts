/**
 * The one module that writes to the file system (an architecture test holds every other file of src/
 * to it). Whoever named the file — a flag in a CI script run inside a pull request's checkout, a
 * setting, the sampler's sidecar — the same rules hold, because the place is often a repository's to
 * prepare: a committed link at `prompt-gate.junit.xml` pointing at `../outside/junit.txt` must not
 * make a report overwrite the file it points to.
 *
 * - A replaced file is written to a temporary file with a random name in the target's own folder,
 *   created exclusively and without following links, then renamed over the target: a failed write
 *   leaves the old file whole, and a rename replaces the name, never what a link at it points to.
 * - A link, a FIFO, a device or a folder standing at the target is refused with an error naming it.
 * - Below the current directory (a checkout), no folder on the way may be a link either: a committed
 *   `reports -> /home/runner/.ssh` would otherwise place a new file outside. Folders above it are the
 *   user's own machine (a runner's temp folder may well be a link) and are taken as they are.
 * - Nothing is written inside a `.git` folder (hooks and config run code).
 * - Files kept open for appending (the results store) are opened without following links and
 *   non-blocking, and must turn out to be regular files.
 */
import { randomBytes } from 'node:crypto';
import { closeSync, constants, fstatSync, fsyncSync, lstatSync, mkdirSync, openSync, realpathSync, renameSync, unlinkSync, writeSync } from 'node:fs';
import { basename, dirname, isAbsolute, join, relative, resolve, sep } from 'node:path';

export type FileWriteErrorKind = 'link' | 'not-regular' | 'no-folder' | 'link-in-path' | 'git-internal';

export class FileWriteError extends Error {
  constructor(
    readonly kind: FileWriteErrorKind,
    /** The path as the user or the repository wrote it. */
    readonly shownPath: string,
    message: string,
  ) {
    super(message);
    this.name = 'FileWriteError';
  }
}

export interface OutputFileOptions {
  /** What is written, for messages: "the JUnit report (--junit)". */
  what: string;
  /** The folder below which no link is followed (default: the current directory). */
  cwd?: string;
}

/** A checked place to replace: its real folder and name, and the mode the new text keeps. */
export interface ReplaceTarget {
  path: string;
  mode: number;
}

const NOFOLLOW = constants.O_NOFOLLOW ?? 0;
const NONBLOCK = constants.O_NONBLOCK ?? 0;

/** Writes `text` to `file` (a report, an export, rules) by the rules above; throws FileWriteError when refused. */
export function writeOutputFile(file: string, text: string | Uint8Array, options: OutputFileOptions): void {
  replaceChecked(checkOutputTarget(file, options), text);
}

/**
 * Appends `text` to `file` (GitHub's job summary), created when missing; refused when a link or not a
 * regular file stands there. Appending keeps what other steps wrote, so there is no rename here.
 */
export function appendOutputFile(file: string, text: string, options: OutputFileOptions): void {
  const target = checkOutputTarget(file, options);
  const fd = openChecked(target.path, constants.O_WRONLY | constants.O_APPEND | constants.O_CREAT, 0o644, `'${file}'`, options.what);
  try {
    writeAll(fd, text);
  } finally {
    closeSync(fd);
  }
}

/** Checks `file` may be written as an output, before any work is done for it. */
export function checkOutputTarget(file: string, options: OutputFileOptions): ReplaceTarget {
  const shown = `'${file}'`;
  const path = resolve(file);
  const cwd = resolve(options.cwd ?? process.cwd());
  if (hasGitComponent(isWithin(cwd, path) ? relative(cwd, path) : path)) throw gitInternal(shown, options.what);
  if (isWithin(cwd, path)) refuseLinksOnTheWay(cwd, dirname(path), shown, options.what);
  let folder: string;
  try {
    folder = realpathSync(dirname(path));
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? (error as Error).message;
    throw new FileWriteError('no-folder', shown, `the folder of ${shown} does not exist (${code}); Prompt Insight writes ${options.what} only into an existing folder.`);
  }
  if (hasGitComponent(folder)) throw gitInternal(shown, options.what);
  return checkTargetInFolder(folder, basename(path), shown, options.what);
}

/** The target `name` in the (already resolved) `folder`: absent, or a regular file — never a link or anything else. */
export function checkTargetInFolder(folder: string, name: string, shown: string, what: string): ReplaceTarget & { exists: boolean } {
  const target = join(folder, name);
  let stat;
  try {
    stat = lstatSync(target);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { path: target, mode: 0o644, exists: false };
    throw new FileWriteError('not-regular', shown, `${shown} cannot be checked (${(error as NodeJS.ErrnoException).code}); nothing is written.`);
  }
  if (stat.isSymbolicLink()) {
    throw new FileWriteError('link', shown, `${shown} is a link (to ${linkTarget(target)}); Prompt Insight never writes ${what} through a link. Remove the link, or name another file.`);
  }
  if (!stat.isFile()) throw new FileWriteError('not-regular', shown, `${shown} is not a regular file; Prompt Insight writes ${what} only to regular files.`);
  return { path: target, mode: stat.mode & 0o777, exists: true };
}

/** Appends `text` to the checked target (created when missing), opened without following a link; never through anything but a regular file. */
export function appendChecked(target: ReplaceTarget, text: string, shown: string, what: string): void {
  const fd = openChecked(target.path, constants.O_WRONLY | constants.O_APPEND | constants.O_CREAT, target.mode, shown, what);
  try {
    writeAll(fd, text);
  } finally {
    closeSync(fd);
  }
}

/** Replaces the checked target with `text`: exclusive, no-follow temporary file beside it, fsync, rename. */
export function replaceChecked(target: ReplaceTarget, text: string | Uint8Array): void {
  const folder = dirname(target.path);
  // Hidden, random, beside the target: a rename within one folder is atomic, and no name can be prepared for it.
  const temporary = join(folder, `.${basename(target.path)}.${randomBytes(8).toString('hex')}.tmp`);
  const fd = openSync(temporary, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | NOFOLLOW, target.mode);
  try {
    writeAll(fd, text);
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

/**
 * Opens `path` for reading and appending (created when missing) without following a link and without
 * blocking on a FIFO; returns the descriptor of a regular file. Errors are Node's (ELOOP for a link,
 * EISDIR for a folder) or FileWriteError('not-regular'), for the caller to word.
 */
export function openForAppend(path: string, mode = 0o600): number {
  return openChecked(path, constants.O_RDWR | constants.O_APPEND | constants.O_CREAT, mode, `'${path}'`, 'the file');
}

/** Creates `path` with `text` only if nothing is there (no link followed); false when something already was. */
export function createExclusiveFile(path: string, text: string, mode: number): boolean {
  let fd: number;
  try {
    fd = openSync(path, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | NOFOLLOW, mode);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw error;
  }
  try {
    writeAll(fd, text);
  } finally {
    closeSync(fd);
  }
  return true;
}

/** Makes `folder` and its parents; returns the first folder it made, or undefined when all were there. */
export function makeFolders(folder: string, mode?: number): string | undefined {
  return mkdirSync(folder, { recursive: true, ...(mode === undefined ? {} : { mode }) });
}

/** Writes all of `data` at the descriptor's position (appending when opened so). */
export function writeAll(fd: number, data: string | Uint8Array): void {
  const bytes = typeof data === 'string' ? Buffer.from(data, 'utf8') : data;
  for (let at = 0; at < bytes.length; ) at += writeSync(fd, bytes, at, bytes.length - at);
}

function openChecked(path: string, flags: number, mode: number, shown: string, what: string): number {
  const fd = openSync(path, flags | NOFOLLOW | NONBLOCK, mode);
  if (!fstatSync(fd).isFile()) {
    closeSync(fd);
    throw new FileWriteError('not-regular', shown, `${shown} is not a regular file; Prompt Insight writes ${what} only to regular files.`);
  }
  return fd;
}

/** Every folder from `top` (exclusive) down to `folder` (inclusive) that exists must not be a link. */
function refuseLinksOnTheWay(top: string, folder: string, shown: string, what: string): void {
  let at = top;
  for (const part of relative(top, folder).split(sep).filter(Boolean)) {
    at = join(at, part);
    let isLink: boolean;
    try {
      isLink = lstatSync(at).isSymbolicLink();
    } catch {
      return; // missing: the realpath of the folder reports it
    }
    if (isLink) {
      throw new FileWriteError('link-in-path', shown, `${shown} lies under ${relative(top, at)}, which is a link (to ${linkTarget(at)}); Prompt Insight never writes ${what} through a linked folder. Name a path without links.`);
    }
  }
}

function isWithin(folder: string, path: string): boolean {
  const rel = relative(folder, path);
  return rel !== '..' && !rel.startsWith(`..${sep}`) && !isAbsolute(rel);
}

function hasGitComponent(path: string): boolean {
  return path.split(/[\\/]/).some((part) => part.toLowerCase() === '.git');
}

function gitInternal(shown: string, what: string): FileWriteError {
  return new FileWriteError('git-internal', shown, `${shown} is inside a .git folder; Prompt Insight never writes ${what} there.`);
}

function linkTarget(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    return 'nothing';
  }
}
