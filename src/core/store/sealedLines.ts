/**
 * The results stores' file discipline, shared by the run store and the load-results store: one JSON
 * record per line, each sealed with this machine's key; a record that would not read back is refused
 * before anything is written; a line torn by a crash is ended before the next append so it cannot
 * swallow a good record; on read, invalid lines are skipped and records this machine did not seal
 * (committed, copied, forged) are counted and never used.
 */
import { closeSync, fstatSync, readSync } from 'node:fs';
import { writeAll } from '../files/fileWrite';
import { scrubSecrets } from '../endpoint/secrets';
import { checkSeal, machineKey, sealLine } from './runSeal';
import { forEachLine, openStoreForAppend, openStoreForRead } from './storeFile';

export interface SealedRead<T> {
  /** Valid records this machine wrote. */
  records: T[];
  /** Lines that could not be read (torn by a crash, edited by hand, wrong types or values). */
  skippedLines: number;
  /** Valid records not sealed by this machine (committed to a repository, copied, forged): never used. */
  foreignRecords: number;
}

/** Appends the records; `problemOf` names what would make a record unreadable (then nothing is written). */
export function appendSealedRecords(path: string, records: readonly object[], problemOf: (value: unknown) => string | undefined, what: string): void {
  const lines = records.map((record) => scrubSecrets(JSON.stringify(record)));
  for (const line of lines) {
    const problem = problemOf(JSON.parse(line));
    if (problem) throw new Error(`${what} was not stored: its record would not be readable back (${problem}).`);
  }
  const key = machineKey();
  const fd = openStoreForAppend(path);
  try {
    if (endsInsideALine(fd)) writeAll(fd, '\n');
    for (const line of lines) writeAll(fd, `${sealLine(line, key)}\n`);
  } finally {
    closeSync(fd);
  }
}

/** Reads the records `isValid` accepts; `keep` filters as they are read, so a large store need not fit in memory. */
export function readSealedRecords<T>(path: string, isValid: (value: unknown) => boolean, keep?: (record: T) => boolean): SealedRead<T> {
  const fd = openStoreForRead(path);
  if (fd === undefined) return { records: [], skippedLines: 0, foreignRecords: 0 };
  const key = machineKey();
  const records: T[] = [];
  let skippedLines = 0;
  let foreignRecords = 0;
  try {
    const { overlongLines } = forEachLine(fd, (line) => {
      if (line.trim() === '') return;
      const { sealed, json } = checkSeal(line, key);
      const record = parseValid<T>(json, isValid);
      if (!record) skippedLines++;
      else if (!sealed) foreignRecords++;
      else if (!keep || keep(record)) records.push(record);
    });
    skippedLines += overlongLines;
  } finally {
    closeSync(fd);
  }
  return { records, skippedLines, foreignRecords };
}

function parseValid<T>(json: string, isValid: (value: unknown) => boolean): T | undefined {
  let value: unknown;
  try {
    value = JSON.parse(json);
  } catch {
    return undefined;
  }
  return isValid(value) ? (value as T) : undefined;
}

function endsInsideALine(fd: number): boolean {
  const size = fstatSync(fd).size;
  if (size === 0) return false;
  const last = Buffer.alloc(1);
  readSync(fd, last, 0, 1, size - 1);
  return last[0] !== 0x0a;
}

/** A sentence on records the reader left out (of any sealed store), or undefined when none were. */
export function storeNotice(path: string, contents: Pick<SealedRead<unknown>, 'foreignRecords' | 'skippedLines'>, what = 'Results store'): string | undefined {
  const parts: string[] = [];
  if (contents.foreignRecords > 0) parts.push(`ignored ${contents.foreignRecords} record(s) not written on this machine (a store committed to a repository or copied from elsewhere is never reused)`);
  if (contents.skippedLines > 0) parts.push(`skipped ${contents.skippedLines} unreadable or invalid line(s)`);
  return parts.length ? `${what} ${path}: ${parts.join('; ')}.` : undefined;
}
