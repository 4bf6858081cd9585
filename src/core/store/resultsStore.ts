/**
 * Every run, kept per workspace in one append-only JSON-lines file. Crash safety: each record is one
 * write of one line; a line cut by a kill fails to parse and is skipped on read, every earlier line
 * stays readable, and the next append first ends the torn line so it cannot swallow a good record.
 * Nothing secret is written: no headers, no keys, endpoint URLs without user info or query.
 * Hostile stores (storeFile.ts, runSeal.ts, storedRunSchema.ts): never written through a link,
 * read line by line, every record checked against a schema, and only records sealed by this
 * machine count as runs.
 */
import { randomUUID } from 'node:crypto';
import { closeSync, fstatSync, readSync, writeSync } from 'node:fs';
import { scrubSecrets } from '../endpoint/secrets';
import type { RunRecord } from '../metrics/runRecord';
import type { RunKey } from './runKey';
import { checkSeal, machineKey, sealLine } from './runSeal';
import { checkStorePath, forEachLine, openStoreForAppend, openStoreForRead } from './storeFile';
import { isValidStoredRun, storedRunProblem } from './storedRunSchema';

export const STORE_VERSION = 1;
/** Answers are kept for adherence scoring and review, up to this many characters. */
export const MAX_STORED_ANSWER_CHARS = 100_000;

export interface StoredRun {
  v: typeof STORE_VERSION;
  id: string;
  /** ISO time the run finished. */
  at: string;
  key: RunKey;
  /** Prompt file, relative to the workspace (or as given to the CLI). */
  file: string;
  prompt: string;
  endpointName: string;
  simulated: boolean;
  /** Git revision the prompt came from, or 'working' / 'buffer' (issue 4). */
  revision?: string;
  /** Test case index when the run scored a test case. */
  testCase?: number;
  run: RunRecord;
  answer: string;
  answerTruncated?: boolean;
}

export type NewRun = Omit<StoredRun, 'v' | 'id' | 'at' | 'answerTruncated'> & { at?: string };

export interface StoreContents {
  /** Valid records this machine wrote. */
  records: StoredRun[];
  /** Lines that could not be read (torn by a crash, edited by hand, wrong types or values). */
  skippedLines: number;
  /** Valid records not sealed by this machine (committed to a repository, copied, forged): never used. */
  foreignRecords: number;
}

export class ResultsStore {
  constructor(readonly path: string) {}

  /** Throws a StoreError with what to do when the store cannot be written (a link, a directory). */
  check(): void {
    checkStorePath(this.path);
  }

  append(runs: NewRun[]): StoredRun[] {
    if (runs.length === 0) return [];
    // Checked before writing: a record the reader would skip as invalid is refused now, not lost later.
    const stored = runs.map(toStored);
    const lines = stored.map((record) => scrubSecrets(JSON.stringify(record)));
    for (const line of lines) {
      const problem = storedRunProblem(JSON.parse(line));
      if (problem) throw new Error(`A run was not stored: its record would not be readable back (${problem}).`);
    }
    const key = machineKey();
    const fd = openStoreForAppend(this.path);
    try {
      if (endsInsideALine(fd)) writeSync(fd, '\n');
      for (const line of lines) writeSync(fd, `${sealLine(line, key)}\n`);
      return stored;
    } finally {
      closeSync(fd);
    }
  }

  /** Reads the store; `keep` filters records as they are read, so a large store need not fit in memory. */
  read(keep?: (record: StoredRun) => boolean): StoreContents {
    const fd = openStoreForRead(this.path);
    if (fd === undefined) return { records: [], skippedLines: 0, foreignRecords: 0 };
    const key = machineKey();
    const records: StoredRun[] = [];
    let skippedLines = 0;
    let foreignRecords = 0;
    try {
      const { overlongLines } = forEachLine(fd, (line) => {
        if (line.trim() === '') return;
        const { sealed, json } = checkSeal(line, key);
        const record = parseStoredRun(json);
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
}

/** A sentence on records the reader left out, or undefined when none were. */
export function storeNotice(path: string, contents: StoreContents): string | undefined {
  const parts: string[] = [];
  if (contents.foreignRecords > 0) parts.push(`ignored ${contents.foreignRecords} record(s) not written on this machine (a store committed to a repository or copied from elsewhere is never reused)`);
  if (contents.skippedLines > 0) parts.push(`skipped ${contents.skippedLines} unreadable or invalid line(s)`);
  return parts.length ? `Results store ${path}: ${parts.join('; ')}.` : undefined;
}

function toStored(run: NewRun): StoredRun {
  const truncated = run.answer.length > MAX_STORED_ANSWER_CHARS;
  return {
    v: STORE_VERSION,
    id: randomUUID(),
    ...run,
    at: run.at ?? new Date().toISOString(),
    answer: truncated ? run.answer.slice(0, MAX_STORED_ANSWER_CHARS) : run.answer,
    ...(truncated ? { answerTruncated: true } : {}),
  };
}

function endsInsideALine(fd: number): boolean {
  const size = fstatSync(fd).size;
  if (size === 0) return false;
  const last = Buffer.alloc(1);
  readSync(fd, last, 0, 1, size - 1);
  return last[0] !== 0x0a;
}

function parseStoredRun(line: string): StoredRun | undefined {
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch {
    return undefined;
  }
  return isValidStoredRun(value) ? (value as StoredRun) : undefined;
}
