/**
 * Waits for a worker thread's one answer, or stops it: at a deadline, on cancel, or when it fails.
 * Work that can take unbounded time on hostile input (a backtracking regex, counting a huge answer)
 * runs in a worker so that the thread that times runs, answers the editor and handles signals stays free.
 */
import type { Worker } from 'node:worker_threads';

export type WorkerOutcome<T> = { ok: true; value: T } | { ok: false; reason: 'deadline' | 'cancelled' | 'failed'; message?: string };

/** The worker's one answer; the worker is stopped whatever the outcome. */
export async function awaitWorker<T>(worker: Worker, deadlineMs: number, signal?: AbortSignal): Promise<WorkerOutcome<T>> {
  const outcome = await workerReply(worker, (message) => ({ value: message as T }), deadlineMs, signal);
  void worker.terminate();
  return outcome;
}

/**
 * The first message of a long-lived worker that `accept` takes (it wraps what it takes, so any value
 * may be an answer), or why none came. The worker is left running: stopping it is the caller's choice.
 */
export function workerReply<T>(worker: Worker, accept: (message: unknown) => { value: T } | undefined, deadlineMs: number, signal?: AbortSignal): Promise<WorkerOutcome<T>> {
  return new Promise((resolve) => {
    const settle = (outcome: WorkerOutcome<T>): void => {
      clearTimeout(timer);
      signal?.removeEventListener('abort', onAbort);
      worker.off('message', onMessage);
      worker.off('error', onError);
      worker.off('exit', onExit);
      resolve(outcome);
    };
    const onAbort = (): void => settle({ ok: false, reason: 'cancelled' });
    const onMessage = (message: unknown): void => {
      const taken = accept(message);
      if (taken) settle({ ok: true, value: taken.value });
    };
    const onError = (error: Error): void => settle({ ok: false, reason: 'failed', message: error.message });
    const onExit = (): void => settle({ ok: false, reason: 'failed', message: 'the worker stopped unexpectedly' });
    const timer = setTimeout(() => settle({ ok: false, reason: 'deadline' }), Math.max(0, deadlineMs));
    if (signal?.aborted) return onAbort();
    signal?.addEventListener('abort', onAbort, { once: true });
    worker.on('message', onMessage);
    worker.on('error', onError);
    worker.on('exit', onExit);
  });
}
