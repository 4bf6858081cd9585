/**
 * Counting with a tokenizer.json whose patterns only JavaScript's backtracking engine can run
 * (tokenizerPatterns.ts): in one long-lived worker thread (dist/tokenizerWorker.js), one job at a
 * time, each within a deadline. A job past it stops the worker — a thread stuck in a regex cannot be
 * interrupted any other way — and fails with the reason; the next job starts a fresh worker. The
 * idle worker never keeps a CLI process alive. Without the bundle (tests from source) nothing is
 * counted: such a tokenizer never runs in the caller's thread.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import { workerReply, type WorkerOutcome } from '../workers/workerDeadline';
import type { UnboundedPattern } from './tokenizerPatterns';

/** Time for one request's counts: $PROMPT_INSIGHT_TOKENIZER_DEADLINE_MS, default 2 s (Qwen3's tokenizer counts 100k characters in ~0.2 s). */
export const TOKENIZER_DEADLINE_MS = Math.max(1, Number(process.env.PROMPT_INSIGHT_TOKENIZER_DEADLINE_MS) || 2000);
/** Time to build the tokenizer in a fresh worker (Gemma 3's 32 MB tokenizer.json takes a few seconds). */
const LOAD_DEADLINE_MS = 60_000;

export interface CountJob {
  id: number;
  texts: string[];
}
export interface CountReply {
  id: number;
  counts: number[];
}

export class TokenizerCountError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'TokenizerCountError';
  }
}

export interface OffThreadOptions {
  /** The worker script; default dist/tokenizerWorker.js beside the running bundle. */
  workerScript?: string;
  deadlineMs?: number;
}

export class OffThreadTokenizer {
  private running: { worker: Worker; ready: Promise<WorkerOutcome<unknown>> } | undefined;
  private queue: Promise<unknown> = Promise.resolve();
  private nextId = 1;

  constructor(
    private readonly files: { tokenizerJson: unknown; config: Record<string, unknown> },
    /** The patterns that send it here, named in the reason when a count is stopped. */
    readonly patterns: readonly UnboundedPattern[],
    private readonly options: OffThreadOptions = {},
  ) {}

  /** The token count of each text; rejects with TokenizerCountError when they are not counted in time. */
  count(texts: string[]): Promise<number[]> {
    const job = this.queue.then(() => this.run(texts));
    this.queue = job.catch(() => undefined);
    return job;
  }

  private async run(texts: string[]): Promise<number[]> {
    const script = this.options.workerScript ?? join(__dirname, 'tokenizerWorker.js');
    if (!existsSync(script)) throw new TokenizerCountError(`${this.named()} can only run in a worker thread, and tokenizerWorker.js is missing beside the bundle`);
    const running = this.running ?? this.start(script);
    const { worker } = running;
    worker.ref();
    try {
      const ready = await running.ready;
      if (!ready.ok) throw this.failure(ready, LOAD_DEADLINE_MS, 'building the tokenizer');
      const id = this.nextId++;
      const replied = workerReply(worker, (m) => (isReply(m) && m.id === id ? { value: m.counts } : undefined), this.options.deadlineMs ?? TOKENIZER_DEADLINE_MS);
      worker.postMessage({ id, texts } satisfies CountJob);
      const outcome = await replied;
      if (!outcome.ok) throw this.failure(outcome, this.options.deadlineMs ?? TOKENIZER_DEADLINE_MS, 'on this text');
      return outcome.value;
    } catch (error) {
      if (this.running === running) this.running = undefined;
      void worker.terminate();
      throw error;
    } finally {
      worker.unref(); // idle: it must not keep the process alive
    }
  }

  private start(script: string): { worker: Worker; ready: Promise<WorkerOutcome<unknown>> } {
    const worker = new Worker(script, { workerData: this.files, resourceLimits: { maxOldGenerationSizeMb: 1024 } });
    const running = { worker, ready: workerReply(worker, (m) => (isRecord(m) && m.ready === true ? { value: true } : undefined), LOAD_DEADLINE_MS) };
    this.running = running;
    return running;
  }

  private named(): string {
    return this.patterns.map((p) => `tokenizer.json's ${p.step} pattern ${p.regex}`).join(', ');
  }

  private failure(outcome: WorkerOutcome<unknown> & { ok: false }, deadlineMs: number, doing: string): TokenizerCountError {
    if (outcome.reason !== 'deadline') return new TokenizerCountError(`the tokenizer failed in its worker thread (${outcome.message})`);
    return new TokenizerCountError(
      `${this.named()} took longer than ${formatSeconds(deadlineMs)} ${doing} and was stopped (RE2 cannot run it in linear time: it needs lookaround or back-references, and nested quantifiers such as (a|aa)+ backtrack exponentially); the count is an estimate`,
    );
  }
}

function formatSeconds(ms: number): string {
  return ms >= 1000 ? `${Number((ms / 1000).toFixed(1))} s` : `${ms} ms`;
}

function isReply(value: unknown): value is CountReply {
  return isRecord(value) && typeof value.id === 'number' && Array.isArray(value.counts);
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null;
}
