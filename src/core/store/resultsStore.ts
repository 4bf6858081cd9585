/**
 * Every run, kept per workspace in one append-only JSON-lines file. Crash safety: each record is one
 * write of one line; a line cut by a kill fails to parse and is skipped on read, every earlier line
 * stays readable, and the next append first ends the torn line so it cannot swallow a good record.
 * Nothing secret is written: no headers, no keys, endpoint URLs without user info or query.
 */
import { randomUUID } from 'node:crypto';
import { closeSync, existsSync, fstatSync, mkdirSync, openSync, readFileSync, readSync, writeSync } from 'node:fs';
import { dirname } from 'node:path';
import type { RunRecord } from '../metrics/runRecord';
import type { RunKey } from './runKey';

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
  records: StoredRun[];
  /** Lines that could not be read (torn by a crash or edited by hand). */
  skippedLines: number;
}

export class ResultsStore {
  constructor(readonly path: string) {}

  append(runs: NewRun[]): StoredRun[] {
    if (runs.length === 0) return [];
    mkdirSync(dirname(this.path), { recursive: true });
    const fd = openSync(this.path, 'a+');
    try {
      if (endsInsideALine(fd)) writeSync(fd, '\n');
      return runs.map((run) => {
        const stored = toStored(run);
        writeSync(fd, `${JSON.stringify(stored)}\n`);
        return stored;
      });
    } finally {
      closeSync(fd);
    }
  }

  read(): StoreContents {
    if (!existsSync(this.path)) return { records: [], skippedLines: 0 };
    const records: StoredRun[] = [];
    let skippedLines = 0;
    for (const line of readFileSync(this.path, 'utf8').split('\n')) {
      if (line.trim() === '') continue;
      const record = parseStoredRun(line);
      if (record) records.push(record);
      else skippedLines++;
    }
    return { records, skippedLines };
  }
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
  const record = value as Partial<StoredRun> | null;
  if (!record || typeof record !== 'object' || record.v !== STORE_VERSION) return undefined;
  if (typeof record.id !== 'string' || typeof record.at !== 'string' || typeof record.file !== 'string' || typeof record.prompt !== 'string') return undefined;
  const key = record.key;
  if (!key || typeof key.promptHash !== 'string' || typeof key.endpoint !== 'string' || typeof key.model !== 'string' || typeof key.paramsHash !== 'string') return undefined;
  const run = record.run;
  if (!run || typeof run.ok !== 'boolean' || typeof run.streamEndMs !== 'number' || !Array.isArray(run.itlMs)) return undefined;
  if (typeof record.answer !== 'string') return undefined;
  return record as StoredRun;
}
