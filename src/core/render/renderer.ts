/**
 * Template engines run in one long-lived worker thread (dist/renderWorker.js) with a deadline and a
 * heap limit: a template from an untrusted repository can loop for minutes or build a gigabyte
 * string, and the language server must go on answering. At the deadline or on running out of
 * memory the worker is terminated (and started again for the next render); the render reports why.
 * Where the bundle is absent (tests from source) engines run in this thread.
 */
import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import type { EngineAnswer, EngineRequest } from './engineRequest';

export const RENDER_DEADLINE_MS = 2000;
const WORKER_HEAP_MB = 256;

interface Pending {
  resolve: (answer: EngineAnswer) => void;
  timer: NodeJS.Timeout;
}

let worker: Worker | undefined;
let nextId = 1;
const pending = new Map<number, Pending>();

function workerScript(): string | undefined {
  const script = join(__dirname, 'renderWorker.js');
  return existsSync(script) ? script : undefined;
}

function startWorker(script: string): Worker {
  const started = new Worker(script, { resourceLimits: { maxOldGenerationSizeMb: WORKER_HEAP_MB } });
  started.on('message', ({ id, answer }: { id: number; answer: EngineAnswer }) => settle(id, answer));
  const fail = (reason: string): void => {
    if (worker === started) worker = undefined;
    for (const id of [...pending.keys()]) settle(id, { error: reason });
  };
  started.on('error', (error) => fail(/memory/i.test(error.message) ? `the template used more than ${WORKER_HEAP_MB} MB while rendering and was stopped` : `the template engine failed: ${error.message}`));
  started.on('exit', () => fail('the template engine stopped unexpectedly'));
  // After the listeners (adding one refs the worker again): an idle render worker never keeps a process
  // alive; a pending render's deadline timer does.
  started.unref();
  return started;
}

function settle(id: number, answer: EngineAnswer): void {
  const waiting = pending.get(id);
  if (!waiting) return;
  pending.delete(id);
  clearTimeout(waiting.timer);
  waiting.resolve(answer);
}

/** Renders by content and values: an edit elsewhere in the file (or a second request for the same version) renders nothing. */
const CACHE_LIMIT = 64;
const cache = new Map<string, Promise<EngineAnswer>>();

export function renderWithEngine(request: EngineRequest, deadlineMs = RENDER_DEADLINE_MS): Promise<EngineAnswer> {
  const key = createHash('sha256').update(JSON.stringify(request)).digest('base64');
  const cached = cache.get(key);
  if (cached) return cached;
  const answer = renderUncached(request, deadlineMs);
  cache.set(key, answer);
  if (cache.size > CACHE_LIMIT) cache.delete(cache.keys().next().value!);
  // A render stopped at its deadline may succeed on a quieter machine: only answers that are not timeouts stay.
  void answer.then((a) => {
    if ('error' in a && /did not finish|stopped unexpectedly|more than/.test(a.error)) cache.delete(key);
  });
  return answer;
}

async function renderUncached(request: EngineRequest, deadlineMs: number): Promise<EngineAnswer> {
  const script = workerScript();
  if (!script) {
    // Bundles carry no engines (they live in the worker bundle); only source runs render in-thread.
    if (process.env.PROMPT_INSIGHT_BUNDLED !== '1') return (await import('./engineRequest')).runEngine(request);
    return { error: 'dist/renderWorker.js is missing beside the bundle; reinstall the extension' };
  }
  worker ??= startWorker(script);
  const current = worker;
  const id = nextId++;
  return new Promise<EngineAnswer>((resolve) => {
    const timer = setTimeout(() => {
      settle(id, { error: `the template did not finish rendering within ${deadlineMs} ms and was stopped` });
      if (worker === current) worker = undefined;
      void current.terminate();
    }, deadlineMs);
    pending.set(id, { resolve, timer });
    current.postMessage({ id, request });
  });
}
