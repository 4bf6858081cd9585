/**
 * Counting an answer's tokens as part of a run, within the run's remaining time and its cancel.
 * Short texts are counted at once; a large one in a worker thread (dist/countWorker.js) that is
 * terminated at the deadline or on cancel; where that bundle is absent (tests from source), in
 * slices cut at safe boundaries with the event loop free between slices. `null`: not counted in time.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import { awaitWorker } from '../workers/workerDeadline';
import type { TokenEncoder } from './engine';
import { isEncodingName, type EncodingName } from './encodingNames';
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
  // The worker loads the built-in encodings; a model's own tokenizer counts here, in slices when it may be cut.
  if (isEncodingName(encoder.name) && existsSync(script)) return countInWorker(script, text, encoder.name, limits);
  return encoder.segmentable ? countInSlices(text, encoder, limits) : encoder.count(text);
}

async function countInWorker(script: string, text: string, encoding: EncodingName, limits: CountLimits): Promise<number | null> {
  const worker = new Worker(script, { workerData: { encoding, text } });
  const outcome = await awaitWorker<number>(worker, limits.deadline - performance.now(), limits.signal);
  return outcome.ok ? outcome.value : null;
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
