/**
 * Counting an answer's tokens as part of a run, within the run's remaining time and its cancel.
 * Short texts are counted at once; a large one in a worker thread (dist/countWorker.js) that is
 * terminated at the deadline or on cancel; where that bundle is absent (tests from source), in
 * slices cut at safe boundaries with the event loop free between slices. `null`: not counted in time.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import type { EncodingName, TokenEncoder } from './engine';
import { splitAtSafeBoundaries } from './segments';

/** Up to this many characters a count takes a few milliseconds, whatever the text: done inline. */
export const INLINE_COUNT_CHARS = 64 * 1024;

export interface CountLimits {
  deadline: number;
  signal?: AbortSignal;
}

export async function countWithin(text: string, encoder: TokenEncoder, limits: CountLimits): Promise<number | null> {
  if (text.length <= INLINE_COUNT_CHARS) return encoder.count(text);
  if (limits.signal?.aborted || performance.now() >= limits.deadline) return null;
  const script = join(__dirname, 'countWorker.js');
  return existsSync(script) ? countInWorker(script, text, encoder.name, limits) : countInSlices(text, encoder, limits);
}

function countInWorker(script: string, text: string, encoding: EncodingName, limits: CountLimits): Promise<number | null> {
  return new Promise((resolve) => {
    const worker = new Worker(script, { workerData: { encoding, text } });
    let settled = false;
    const settle = (count: number | null): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      limits.signal?.removeEventListener('abort', stop);
      void worker.terminate();
      resolve(count);
    };
    const stop = (): void => settle(null);
    const timer = setTimeout(stop, Math.max(0, limits.deadline - performance.now()));
    limits.signal?.addEventListener('abort', stop, { once: true });
    worker.once('message', (count: number) => settle(count));
    worker.once('error', stop);
    worker.once('exit', stop);
  });
}

async function countInSlices(text: string, encoder: TokenEncoder, limits: CountLimits): Promise<number | null> {
  let total = 0;
  for (const slice of splitAtSafeBoundaries(text)) {
    if (limits.signal?.aborted || performance.now() >= limits.deadline) return null;
    total += encoder.count(slice);
    await new Promise((r) => setImmediate(r));
  }
  return total;
}
