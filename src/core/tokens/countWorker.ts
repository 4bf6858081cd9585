/**
 * Worker-thread entry (dist/countWorker.js): counts one large text off the thread that runs the
 * prompt, so a count that takes seconds never delays the run's timeout, a cancel or a signal
 * handler, and can be stopped by terminating this thread (boundedCount.ts).
 */
import { parentPort, workerData } from 'node:worker_threads';
import { loadEncoder } from './engine';
import type { EncodingName } from './encodingNames';

const { encoding, text } = workerData as { encoding: EncodingName; text: string };
void loadEncoder(encoding).then((encoder) => parentPort!.postMessage(encoder.count(text)));
