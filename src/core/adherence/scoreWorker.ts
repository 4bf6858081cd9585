/**
 * Worker-thread entry (dist/scoreWorker.js): checks an answer's assertions off the thread that runs
 * prompts and, in the editor, serves the extension host. One job at a time; the caller stops this
 * thread when a job passes its deadline (scoreWorkerClient.ts).
 */
import { parentPort } from 'node:worker_threads';
import { evaluateChecks } from './assertionChecks';
import type { CheckJob, CheckReply } from './scoreWorkerClient';

if (!parentPort) throw new Error('scoreWorker runs in a worker thread.');
const port = parentPort;
port.on('message', (job: CheckJob) => {
  evaluateChecks(job.assertions, job.input).then(
    (verdicts) => port.postMessage({ id: job.id, verdicts } satisfies CheckReply),
    (error: unknown) => port.postMessage({ id: job.id, error: (error as Error)?.message ?? String(error) } satisfies CheckReply),
  );
});
