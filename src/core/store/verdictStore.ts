/**
 * Verdicts on answers, kept between runs: production scores (`prod`), and the judge's verdicts on labelled
 * answers (`judge-check`, a trust card asks only about what is new). For production: a CD step that asks `prod --decide` every few minutes
 * draws the same seeded sample from the same files, and a judge's verdict costs a model call. Keyed by
 * the checks, the answer's text and the context, question and judge it was judged with (SHA-256), so a changed
 * check, answer, context, question or judge is scored again (a hallucination verdict is kept beside the status); an unscored
 * answer is not kept (a judge configured later may decide it). JSON Lines, appended, each line sealed with
 * this machine's key as the results store's are (store/sealedLines.ts): a score file that came with a
 * repository (a pull request can commit "pass" for answers it can predict) is never used, so the change
 * cannot relax its own gate. Bounded: a file over MAX_BYTES is not read at all (said); never read or written
 * through a link, its folder included (store/storeFile.ts).
 */
import { createHash } from 'node:crypto';
import { basename, dirname, join } from 'node:path';
import { closeSync, fstatSync } from 'node:fs';
import { canonicalJson } from '../endpoint/params';
import { appendSealedRecords, readSealedRecords, storeNotice } from './sealedLines';
import { openStoreForRead } from './storeFile';

export const DEFAULT_SCORE_STORE = '.prompt-insight/prod-scores.jsonl';
export const DEFAULT_JUDGE_VERDICT_STORE = '.prompt-insight/judge-verdicts.jsonl';

/** The judge's verdicts on labelled answers, kept in `path`. */
export function judgeVerdictStore(path: string): VerdictStore {
  return new VerdictStore(path, 'Judge verdict store');
}

/** The judge verdict store beside another store of the same state folder (`…/runs.jsonl` → `…/judge-verdicts.jsonl`). */
export function judgeVerdictStoreBeside(storePath: string): VerdictStore {
  return judgeVerdictStore(join(dirname(storePath), basename(DEFAULT_JUDGE_VERDICT_STORE)));
}
const MAX_BYTES = 32 * 1024 * 1024;

export type StoredStatus = 'pass' | 'fail';
/** A stored score: the status, and whether the answer hallucinated when a context check judged it. */
export interface StoredScore {
  status: StoredStatus;
  hallucinated?: boolean;
}

interface ScoreLine {
  k: string;
  s: StoredStatus;
  h?: boolean;
}

const isScoreLine = (value: unknown): boolean => {
  const line = value as Partial<ScoreLine> | null;
  return typeof line === 'object' && line !== null && typeof line.k === 'string' && /^[0-9a-f]{64}$/.test(line.k) && (line.s === 'pass' || line.s === 'fail') && (line.h === undefined || typeof line.h === 'boolean');
};

export class VerdictStore {
  private readonly scores = new Map<string, StoredScore>();
  private readonly added: ScoreLine[] = [];
  private readonly addedKeys = new Set<string>();
  /** Why the file was not read, or not all of it was used (not a regular file, too large, scores from elsewhere). */
  readonly problem?: string;
  /** Whether the file can take this run's scores (it was read, or is not there yet). */
  private readonly writable: boolean = true;

  constructor(
    private readonly path: string,
    /** For messages: "Production score store", "Judge verdict store". */
    private readonly what = 'Production score store',
  ) {
    try {
      const fd = openStoreForRead(path);
      if (fd !== undefined) {
        let size: number;
        try {
          size = fstatSync(fd).size;
        } finally {
          closeSync(fd);
        }
        if (size > MAX_BYTES) {
          this.problem = `${path} is over ${MAX_BYTES / 1024 / 1024} MB: not read (delete it to start again)`;
          this.writable = false;
          return;
        }
        // Read line by line into the map (later lines win), the lines themselves not kept.
        const read = readSealedRecords<ScoreLine>(path, isScoreLine, (line) => {
          this.scores.set(line.k, { status: line.s, ...(line.h !== undefined ? { hallucinated: line.h } : {}) });
          return false;
        });
        this.problem = storeNotice(path, read, what);
      }
    } catch (error) {
      this.problem = `${path} is not used: ${(error as Error).message}`;
      this.writable = false;
    }
  }

  /** SHA-256 of what decided the score: the checks, the answer, and the context, question and judge it was judged with. */
  static key(checks: unknown, answer: string, judgedWith: { context?: readonly string[]; question?: string; judge?: string } = {}): string {
    return createHash('sha256').update(canonicalJson(checks)).update('\u0000').update(answer).update('\u0000').update(canonicalJson(judgedWith)).digest('hex');
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
    this.added.push({ k: key, s: score.status, ...(score.hallucinated !== undefined ? { h: score.hallucinated } : {}) });
  }

  /** Appends what was scored this run, sealed. */
  save(): void {
    if (this.added.length === 0 || !this.writable) return;
    appendSealedRecords(this.path, this.added, (value) => (isScoreLine(value) ? undefined : 'not a score'), this.what);
    this.added.length = 0;
  }

  /** save(), its failure returned as words instead of thrown: every caller reports it and goes on (the verdicts are a cache). */
  saveOrSay(): string | undefined {
    try {
      this.save();
      return undefined;
    } catch (error) {
      return (error as Error).message;
    }
  }
}
