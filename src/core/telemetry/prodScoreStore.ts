/**
 * Scores of production answers, kept between runs: a CD step that asks `prod --decide` every few minutes
 * draws the same seeded sample from the same files, and a judge's verdict costs a model call. Keyed by
 * the checks, the answer's text and the context it was judged against (SHA-256), so a changed check, answer
 * or context is scored again (a hallucination verdict is kept beside the status); an unscored
 * answer is not kept (a judge configured later may decide it). JSON Lines, appended; bounded: at most
 * MAX_ENTRIES are read (the newest), and a file over MAX_BYTES is not read at all (said). The file is the
 * results store's kind (store/storeFile.ts): never read or written through a link, its folder included.
 */
import { createHash } from 'node:crypto';
import { closeSync, fstatSync, writeSync } from 'node:fs';
import { canonicalJson } from '../endpoint/params';
import { forEachLine, openStoreForAppend, openStoreForRead } from '../store/storeFile';

export const DEFAULT_SCORE_STORE = '.prompt-insight/prod-scores.jsonl';
const MAX_BYTES = 32 * 1024 * 1024;
const MAX_ENTRIES = 200_000;

export type StoredStatus = 'pass' | 'fail';
/** A stored score: the status, and whether the answer hallucinated when a context check judged it. */
export interface StoredScore {
  status: StoredStatus;
  hallucinated?: boolean;
}

export class ProdScoreStore {
  private readonly scores = new Map<string, StoredScore>();
  private readonly added: string[] = [];
  private readonly addedKeys = new Set<string>();
  /** Why the file was not read, when it was not (not a regular file, too large). */
  readonly problem?: string;

  constructor(private readonly path: string) {
    const lines: string[] = [];
    try {
      const fd = openStoreForRead(path);
      if (fd !== undefined) {
        try {
          if (fstatSync(fd).size > MAX_BYTES) this.problem = `${path} is over ${MAX_BYTES / 1024 / 1024} MB: not read (delete it to start again)`;
          else forEachLine(fd, (line) => lines.push(line));
        } finally {
          closeSync(fd);
        }
      }
    } catch (error) {
      this.problem = `${path} is not used: ${(error as Error).message}`;
    }
    for (const line of lines.slice(-MAX_ENTRIES)) {
      try {
        const entry = JSON.parse(line) as { k?: unknown; s?: unknown; h?: unknown };
        if (typeof entry.k === 'string' && (entry.s === 'pass' || entry.s === 'fail')) this.scores.set(entry.k, { status: entry.s, ...(typeof entry.h === 'boolean' ? { hallucinated: entry.h } : {}) });
      } catch {
        // a torn or foreign line: skipped
      }
    }
  }

  static key(checks: unknown, answer: string, context?: readonly string[]): string {
    const hash = createHash('sha256').update(canonicalJson(checks)).update('\u0000').update(answer);
    // The context only when there is one: keys of answers scored without context stay what they were.
    if (context) hash.update('\u0000').update(canonicalJson(context));
    return hash.digest('hex');
  }

  get(key: string): StoredScore | undefined {
    return this.scores.get(key);
  }

  /** Stored by an earlier run (not merely scored earlier in this one: the same answer twice). */
  fromEarlierRun(key: string): boolean {
    return this.scores.has(key) && !this.addedKeys.has(key);
  }

  set(key: string, score: StoredScore): void {
    const known = this.scores.get(key);
    if (known?.status === score.status && known.hallucinated === score.hallucinated) return;
    this.scores.set(key, score);
    this.addedKeys.add(key);
    this.added.push(JSON.stringify({ k: key, s: score.status, ...(score.hallucinated !== undefined ? { h: score.hallucinated } : {}) }));
  }

  /** Appends what was scored this run. */
  save(): void {
    if (this.added.length === 0 || this.problem) return;
    const fd = openStoreForAppend(this.path);
    try {
      writeSync(fd, `${this.added.join('\n')}\n`);
    } finally {
      closeSync(fd);
    }
    this.added.length = 0;
  }
}
