/**
 * Runs the answer checks (assertionChecks.ts) in one long-lived worker thread (dist/scoreWorker.js),
 * one job at a time, each within a deadline: a check that would take longer (a schema Ajv is slow
 * on) stops the worker, and the job's checks are undecided with the reason; the next job starts a
 * fresh worker. The idle worker never keeps a CLI process alive. Where the bundle is absent (tests
 * from source) the checks run in the caller's thread, bounded by their linear algorithms alone.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import type { CheckInput, CheckVerdict } from './checkText';
import type { Assertion } from './testCases';

/** Time for all the checks of one answer (each is linear in an answer capped at 500,000 characters). */
export const SCORE_DEADLINE_MS = 5000;

export interface CheckJob {
  id: number;
  assertions: Assertion[];
  input: CheckInput;
}
export type CheckReply = { id: number; verdicts: CheckVerdict[] } | { id: number; error: string };

export interface CheckOptions {
  /** The worker script; default dist/scoreWorker.js beside the running bundle; `false`: in this thread. */
  workerScript?: string | false;
  deadlineMs?: number;
}

let running: { script: string; worker: Worker } | undefined;
let queue: Promise<unknown> = Promise.resolve();
let nextId = 1;

export function defaultWorkerScript(): string | false {
  const script = join(__dirname, 'scoreWorker.js');
  return existsSync(script) ? script : false;
}

export async function runChecks(assertions: Assertion[], input: CheckInput, options: CheckOptions = {}): Promise<CheckVerdict[]> {
  if (assertions.length === 0) return [];
  const script = options.workerScript ?? defaultWorkerScript();
  if (script === false) return inThisThread(assertions, input);
  const deadlineMs = options.deadlineMs ?? SCORE_DEADLINE_MS;
  const job = queue.then(() => inWorker(script, { id: nextId++, assertions, input }, deadlineMs));
  queue = job.catch(() => undefined);
  const outcome = await job;
  if ('verdicts' in outcome) return outcome.verdicts;
  return assertions.map(() => ({ decided: false, reason: outcome.error }));
}

function inWorker(script: string, job: CheckJob, deadlineMs: number): Promise<CheckReply> {
  if (running?.script !== script) {
    void running?.worker.terminate();
    running = { script, worker: new Worker(script, { resourceLimits: { maxOldGenerationSizeMb: 512 } }) };
  }
  const current = running;
  const { worker } = current;
  return new Promise((resolve) => {
    const stop = (): void => {
      if (running === current) running = undefined;
      void worker.terminate();
    };
    const finish = (reply: CheckReply, kill: boolean): void => {
      clearTimeout(timer);
      worker.off('message', onMessage);
      worker.off('error', onError);
      worker.off('exit', onExit);
      if (kill) stop();
      else worker.unref(); // idle: it must not keep the process alive
      resolve(reply);
    };
    const onMessage = (reply: CheckReply): void => {
      if (reply.id === job.id) finish(reply, false);
    };
    const onError = (error: Error): void => finish({ id: job.id, error: `the answer checks failed: ${error.message}` }, true);
    const onExit = (): void => finish({ id: job.id, error: 'the answer checks stopped unexpectedly' }, true);
    const timer = setTimeout(() => finish({ id: job.id, error: `the answer checks did not finish within ${deadlineMs} ms and were stopped` }, true), deadlineMs);
    worker.on('message', onMessage);
    worker.on('error', onError);
    worker.on('exit', onExit);
    worker.ref();
    worker.postMessage(job);
  });
}

/**
 * Tests from source check in this thread. A bundle always has dist/scoreWorker.js beside it, so the
 * bundles leave this path (and Ajv and RE2 with it) out: esbuild drops the branch by the define.
 */
async function inThisThread(assertions: Assertion[], input: CheckInput): Promise<CheckVerdict[]> {
  if (process.env.PROMPT_INSIGHT_BUNDLED !== '1') return (await import('./assertionChecks')).evaluateChecks(assertions, input);
  return assertions.map(() => ({ decided: false, reason: 'the scoring worker (scoreWorker.js) is missing beside the bundle' }));
}
