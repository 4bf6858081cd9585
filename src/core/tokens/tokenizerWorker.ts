/**
 * Worker-thread entry (dist/tokenizerWorker.js): a tokenizer.json whose patterns only JavaScript's
 * backtracking engine can run is built and counts here, never in the thread that answers the editor
 * or times a run; offThreadTokenizer.ts stops this thread when a count passes its deadline.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { Tokenizer } from '@huggingface/tokenizers';
import type { CountJob, CountReply } from './offThreadTokenizer';

const { tokenizerJson, config } = workerData as { tokenizerJson: Record<string, unknown>; config: Record<string, unknown> };
const tokenizer = new Tokenizer(tokenizerJson, config);
parentPort!.postMessage({ ready: true });
parentPort!.on('message', (job: CountJob) => {
  const counts = job.texts.map((text) => (text.length === 0 ? 0 : tokenizer.encode(text, { add_special_tokens: false }).ids.length));
  parentPort!.postMessage({ id: job.id, counts } satisfies CountReply);
});
