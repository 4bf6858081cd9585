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
import type { RunRecord } from '../metrics/runRecord';
import type { RunKey } from './runKey';
import { appendSealedRecords, readSealedRecords, type SealedRead } from './sealedLines';
import { checkStorePath } from './storeFile';
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

export type StoreContents = SealedRead<StoredRun>;

export class ResultsStore {
  constructor(readonly path: string) {}

  /** Throws a StoreError with what to do when the store cannot be written (a link, a directory). */
  check(): void {
    checkStorePath(this.path);
  }

  append(runs: NewRun[]): StoredRun[] {
    if (runs.length === 0) return [];
    const stored = runs.map(toStored);
    appendSealedRecords(this.path, stored, storedRunProblem, 'A run');
    return stored;
  }

  /**
   * Appends a later version of a stored run (same id: a verdict reached after the run was stored).
   * The store is append-only, so the newer line wins on read; a process killed before it still left
   * the run itself stored.
   */
  supersede(record: StoredRun): void {
    appendSealedRecords(this.path, [record], storedRunProblem, 'A run');
  }

  /** Reads the store, the newest version of each run; `keep` filters records as they are read, so a large store need not fit in memory. */
  read(keep?: (record: StoredRun) => boolean): StoreContents {
    const contents = readSealedRecords<StoredRun>(this.path, isValidStoredRun, keep);
    return { ...contents, records: newestOfEachId(contents.records) };
  }
}


/** One record per run id, where a later version replaced an earlier one; first-seen order kept. */
function newestOfEachId(records: StoredRun[]): StoredRun[] {
  const slot = new Map<string, number>();
  const out: StoredRun[] = [];
  for (const record of records) {
    const at = slot.get(record.id);
    if (at === undefined) {
      slot.set(record.id, out.length);
      out.push(record);
    } else out[at] = record;
  }
  return out;
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

