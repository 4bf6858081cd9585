/**
 * Waits for a worker thread's one answer, or stops it: at a deadline, on cancel, or when it fails.
 * Work that can take unbounded time on hostile input (a backtracking regex, counting a huge answer)
 * runs in a worker so that the thread that times runs, answers the editor and handles signals stays free.
 */
import type { Worker } from 'node:worker_threads';

export type WorkerOutcome<T> = { ok: true; value: T } | { ok: false; reason: 'deadline' | 'cancelled' | 'failed'; message?: string };

export function awaitWorker<T>(worker: Worker, deadlineMs: number, signal?: AbortSignal): Promise<WorkerOutcome<T>> {
  return new Promise((resolve) => {
    let settled = false;
    const settle = (outcome: WorkerOutcome<T>): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      signal?.removeEventListener('abort', onAbort);
      void worker.terminate();
      resolve(outcome);
    };
    const onAbort = (): void => settle({ ok: false, reason: 'cancelled' });
    const timer = setTimeout(() => settle({ ok: false, reason: 'deadline' }), Math.max(0, deadlineMs));
    if (signal?.aborted) return onAbort();
    signal?.addEventListener('abort', onAbort, { once: true });
    worker.once('message', (value: T) => settle({ ok: true, value }));
    worker.once('error', (error) => settle({ ok: false, reason: 'failed', message: error.message }));
    worker.once('exit', () => settle({ ok: false, reason: 'failed', message: 'the worker stopped unexpectedly' }));
  });
}
