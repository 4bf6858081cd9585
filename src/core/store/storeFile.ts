/**
 * The store's file as a repository cannot subvert it: never through a symbolic link (a committed
 * `.prompt-insight -> ~` or `runs.jsonl -> ~/.bashrc` would make every run append to the target),
 * only a regular file, read in bounded chunks line by line (a store larger than the biggest string
 * V8 can make stays readable).
 */
import { closeSync, constants, fstatSync, lstatSync, openSync, readSync } from 'node:fs';
import { createExclusiveFile, FileWriteError, makeFolders, openForAppend } from '../files/fileWrite';
import { basename, dirname, join } from 'node:path';

export class StoreError extends Error {}

/** Longest line read as a record; longer lines are skipped as unreadable. */
export const MAX_RECORD_LINE_BYTES = 16 * 1024 * 1024;
const CHUNK_BYTES = 1024 * 1024;

/** Refuses a store whose path or folder is a link, or whose path is not a regular file. */
export function checkStorePath(path: string): void {
  const folder = dirname(path);
  const folderStat = lstatOrUndefined(folder);
  if (folderStat?.isSymbolicLink()) throw new StoreError(`The results store's folder ${folder} is a symbolic link; Prompt Insight does not write through links (a repository could point it at any file). Remove the link or choose another store path.`);
  if (folderStat && !folderStat.isDirectory()) throw new StoreError(`The results store's folder ${folder} is not a directory.`);
  const stat = lstatOrUndefined(path);
  if (!stat) return;
  if (stat.isSymbolicLink()) throw new StoreError(`The results store ${path} is a symbolic link; Prompt Insight does not write through links (a repository could point it at any file). Remove the link or choose another store path.`);
  if (stat.isDirectory()) throw new StoreError(`The results store ${path} is a directory, not a file. Remove it or choose another store path (--store, or the setting).`);
  if (!stat.isFile()) throw new StoreError(`The results store ${path} is not a regular file.`);
}

function lstatOrUndefined(path: string): ReturnType<typeof lstatSync> | undefined {
  try {
    return lstatSync(path);
  } catch {
    return undefined;
  }
}

/** Opens the store for appending (created when missing) without following a link at its name. */
export function openStoreForAppend(path: string): number {
  checkStorePath(path);
  const folder = dirname(path);
  if (makeFolders(folder) !== undefined && basename(folder) === STORE_FOLDER) ignoreInGit(folder);
  checkStorePath(path);
  return openChecked(path, 'append');
}

/** The default store's folder in a workspace. */
export const STORE_FOLDER = '.prompt-insight';

/**
 * A `.prompt-insight/` made here gets a `.gitignore` of its own that ignores everything in it: the
 * runs of one machine (sealed with its key) are no use in a repository, and nobody has to edit the
 * project's own .gitignore. Written only into a folder just created, never through a link.
 */
function ignoreInGit(folder: string): void {
  try {
    createExclusiveFile(join(folder, '.gitignore'), "# Prompt Insight's results store: runs measured on this machine, kept out of git.\n*\n", 0o644);
  } catch {
    // the folder is not writable: the store's own open says so
  }
}

/** Opens the store for reading, or undefined when there is none. */
export function openStoreForRead(path: string): number | undefined {
  checkStorePath(path);
  try {
    return openChecked(path, 'read');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
}

function openChecked(path: string, mode: 'read' | 'append'): number {
  let fd: number;
  try {
    // O_NOFOLLOW: a link swapped in after the check still fails; O_NONBLOCK: a FIFO cannot block the open.
    fd = mode === 'append' ? openForAppend(path) : openSync(path, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  } catch (error) {
    if (error instanceof FileWriteError) throw new StoreError(`The results store ${path} is not a regular file.`);
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ELOOP') throw new StoreError(`The results store ${path} is a symbolic link; Prompt Insight does not write through links.`);
    if (code === 'EISDIR') throw new StoreError(`The results store ${path} is a directory, not a file.`);
    throw error;
  }
  if (!fstatSync(fd).isFile()) {
    closeSync(fd);
    throw new StoreError(`The results store ${path} is not a regular file.`);
  }
  return fd;
}

/** Calls `onLine` with every line of the file (without its newline); over-long lines count as skipped. */
export function forEachLine(fd: number, onLine: (line: string) => void): { overlongLines: number } {
  const chunk = Buffer.allocUnsafe(CHUNK_BYTES);
  let pending: Buffer[] = [];
  let pendingBytes = 0;
  let overlong = false;
  let overlongLines = 0;
  let position = 0;
  const finishLine = (tail: Buffer): void => {
    if (overlong || pendingBytes + tail.length > MAX_RECORD_LINE_BYTES) overlongLines++;
    else onLine((pending.length ? Buffer.concat([...pending, tail]) : tail).toString('utf8'));
    pending = [];
    pendingBytes = 0;
    overlong = false;
  };
  for (;;) {
    const read = readSync(fd, chunk, 0, CHUNK_BYTES, position);
    if (read === 0) break;
    position += read;
    let start = 0;
    for (let end = chunk.indexOf(0x0a, 0); end >= 0 && end < read; end = chunk.indexOf(0x0a, start)) {
      finishLine(chunk.subarray(start, end));
      start = end + 1;
    }
    if (start < read) {
      const rest = read - start;
      if (overlong || pendingBytes + rest > MAX_RECORD_LINE_BYTES) {
        overlong = true; // keep counting bytes, not keeping them
        pending = [];
      } else pending.push(Buffer.from(chunk.subarray(start, read)));
      pendingBytes += rest;
    }
  }
  if (pendingBytes > 0 || overlong) finishLine(Buffer.alloc(0));
  return { overlongLines };
}
