/**
 * Production trace files named by a workspace setting (`promptInsight.production.sources`): the path or
 * glob is resolved inside the workspace folder only, every match must be a regular file inside it after
 * links are resolved (core/files/workspaceFile.ts, the rule `${file:}` values follow), and each file is
 * read to a bound — the newest `maxBytes` of a plain file (traces are appended, so its tail is the recent
 * traffic), the first `maxBytes` of a gzip file once decompressed (it cannot be read from the end).
 */
import { opendir } from 'node:fs/promises';
import { isAbsolute, join, relative } from 'node:path';
import { Readable } from 'node:stream';
import { createGunzip } from 'node:zlib';
import picomatch from 'picomatch';
import { findWorkspaceRoot, openWorkspaceFile } from '../files/workspaceFile';

/** Per file, per refresh: far above a day of one prompt's spans, small enough for a hover's background read. */
export const EDITOR_TRACE_MAX_BYTES = 256 * 1024 * 1024;
export const MAX_TRACE_FILES = 50;
/** Folder depth a glob may crawl: deep enough for any logs folder, not the whole disk. */
const MAX_GLOB_DEPTH = 12;

export interface ResolvedTraceFiles {
  files: string[];
  problems: string[];
}

/** The files a setting's path or glob names, inside `root` only. */
export async function resolveTraceFiles(pattern: string, root: string): Promise<ResolvedTraceFiles> {
  let relativePattern = pattern.replace(/\\/g, '/');
  if (isAbsolute(pattern)) {
    const rel = relative(root, pattern);
    if (rel.startsWith('..') || isAbsolute(rel)) return { files: [], problems: [`'${pattern}' is outside the workspace (${root}); production trace files are read only from inside it.`] };
    relativePattern = rel.replace(/\\/g, '/');
  }
  if (relativePattern.includes('..')) return { files: [], problems: [`'${pattern}' climbs out of the workspace ('..'); give a path inside it.`] };
  const found = picomatch.scan(relativePattern).isGlob ? await globInside(root, relativePattern) : [join(root, relativePattern)];
  found.sort();
  const problems: string[] = [];
  if (found.length > MAX_TRACE_FILES) problems.push(`'${pattern}' matches ${found.length} files; the last ${MAX_TRACE_FILES} in name order are read.`);
  // Each match is checked here too (a link leading out of the workspace, a FIFO, a .git file), so one
  // refused file is said and left out instead of failing the whole source; the opener checks again.
  const files: string[] = [];
  for (const file of found.slice(-MAX_TRACE_FILES)) {
    try {
      const { handle } = await openWorkspaceFile(file, { root, what: 'production trace files', shownAs: relative(root, file) || file });
      await handle.close();
      files.push(file);
    } catch (error) {
      problems.push((error as Error).message);
    }
  }
  if (found.length === 0) problems.push(`no file matches '${pattern}' in ${root}.`);
  return { files, problems };
}

/** Folders a glob never enters. */
const SKIPPED_FOLDERS = new Set(['.git', 'node_modules']);
/** Entries a glob looks at before it stops: a runaway pattern cannot walk a huge tree for ever. */
const MAX_GLOB_ENTRIES = 200_000;

/**
 * Files under `root` matching `pattern` (picomatch): the walk starts at the pattern's static base, never
 * follows a link to a folder (a Dirent of a link is not a directory), skips .git and node_modules, and
 * is bounded in depth and entries.
 */
async function globInside(root: string, pattern: string): Promise<string[]> {
  const { base } = picomatch.scan(pattern);
  const matches = picomatch(pattern, { dot: false });
  const found: string[] = [];
  let seen = 0;
  const walk = async (dir: string, depth: number): Promise<void> => {
    if (depth > MAX_GLOB_DEPTH || seen > MAX_GLOB_ENTRIES) return;
    let handle;
    try {
      handle = await opendir(dir);
    } catch {
      return; // not there or not readable: nothing matches below it
    }
    for await (const entry of handle) {
      if (++seen > MAX_GLOB_ENTRIES) break;
      const path = join(dir, entry.name);
      if (entry.isDirectory()) {
        if (!SKIPPED_FOLDERS.has(entry.name)) await walk(path, depth + 1);
      } else if (matches(relative(root, path).split('\\').join('/'))) {
        // Links, FIFOs and sockets too: the check after the walk refuses them by name.
        found.push(path);
      }
    }
  };
  await walk(join(root, base), 0);
  return found;
}

/** Opens one trace file for readTraceFiles as a byte stream. */
export type TraceOpener = (path: string) => Promise<Readable>;

/**
 * An opener for readTraceFiles: the workspace rules, then a bounded byte stream. What was cut is said
 * through `onNote`.
 */
export function boundedTraceOpener(root: string, maxBytes: number, onNote: (note: string) => void): TraceOpener {
  return (path) => openTraceFile(path, root, relative(root, path) || path, maxBytes, onNote);
}

/**
 * The opener for trace files named on the command line (`prod`, `watch`, `sample --traces`): each is
 * read whole, under the rules prompt files follow — a regular file (a FIFO or a device such as a link
 * to /dev/zero refused at once) inside its workspace after links are resolved, never under `.git`.
 */
export function commandLineTraceOpener(cwd: string = process.cwd()): TraceOpener {
  return (path) => openTraceFile(path, findWorkspaceRoot(path, { cwd }), path, Number.POSITIVE_INFINITY, () => undefined);
}

async function openTraceFile(path: string, root: string, shown: string, maxBytes: number, onNote: (note: string) => void): Promise<Readable> {
  const { handle, size } = await openWorkspaceFile(path, { root, what: 'production trace files', shownAs: shown });
  try {
    const head = Buffer.alloc(2);
    const { bytesRead } = await handle.read(head, 0, 2, 0);
    // gzip is recognised by its magic bytes, not by the file name.
    const gzip = bytesRead === 2 && head[0] === 0x1f && head[1] === 0x8b;
    if (size === 0) {
      await handle.close();
      return Readable.from([]);
    }
    if (!gzip) {
      const start = Math.max(0, size - maxBytes);
      if (start > 0) onNote(`${shown} is ${mib(size)}; its last ${mib(maxBytes)} (the newest spans) were read.`);
      // Read to the size seen at open: a file still being appended is read to where it was.
      const stream = handle.createReadStream({ start, end: size - 1, highWaterMark: 1 << 20 });
      return start > 0 ? Readable.from(fromFirstNewline(stream)) : stream;
    }
    const file = handle.createReadStream({ highWaterMark: 1 << 20 });
    const gunzip = file.pipe(createGunzip());
    // A read error on the file reaches the reader through the gunzip stream; a read stopped at the
    // bound (or by a corrupt stream) destroys gunzip only: close the file with it.
    file.on('error', (error) => gunzip.destroy(error));
    gunzip.once('close', () => file.destroy());
    if (!Number.isFinite(maxBytes)) return gunzip;
    return Readable.from(upTo(gunzip, maxBytes, () => onNote(`${shown} holds more than ${mib(maxBytes)} once decompressed; the first ${mib(maxBytes)} were read.`)));
  } catch (error) {
    await handle.close().catch(() => undefined);
    throw error;
  }
}

/** Started mid-file: the first (partial) line is dropped. */
async function* fromFirstNewline(source: AsyncIterable<Buffer>): AsyncGenerator<Buffer> {
  let found = false;
  for await (const chunk of source) {
    if (found) {
      yield chunk;
      continue;
    }
    const at = chunk.indexOf(0x0a);
    if (at < 0) continue;
    found = true;
    if (at + 1 < chunk.length) yield chunk.subarray(at + 1);
  }
}

async function* upTo(source: Readable, maxBytes: number, onCut: () => void): AsyncGenerator<Buffer> {
  let total = 0;
  for await (const chunk of source as AsyncIterable<Buffer>) {
    if (total + chunk.length > maxBytes) {
      const rest = maxBytes - total;
      // Up to the last whole line within the bound.
      const cut = chunk.subarray(0, rest).lastIndexOf(0x0a);
      if (cut >= 0) yield chunk.subarray(0, cut + 1);
      onCut();
      source.destroy();
      return;
    }
    total += chunk.length;
    yield chunk;
  }
}

function mib(bytes: number): string {
  if (bytes < 1024 * 1024) return `${Math.max(1, Math.round(bytes / 1024))} KiB`;
  return `${(bytes / (1024 * 1024)).toFixed(bytes < 10 * 1024 * 1024 ? 1 : 0)} MiB`;
}
