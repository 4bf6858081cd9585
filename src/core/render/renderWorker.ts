/** The render worker (dist/renderWorker.js): answers engine requests one at a time, for as long as it lives. */
import { parentPort } from 'node:worker_threads';
import { runEngine, type EngineRequest } from './engineRequest';

// Engines log (dotprompt prints YAML errors with console.error); a worker's console is the process's
// stdout and stderr, and the language server's stdout is its LSP channel. Failures come back as answers.
for (const method of ['log', 'info', 'warn', 'error', 'debug', 'trace'] as const) console[method] = () => undefined;

parentPort?.on('message', (message: { id: number; request: EngineRequest }) => {
  void runEngine(message.request).then(
    (answer) => parentPort?.postMessage({ id: message.id, answer }),
    (error: unknown) => parentPort?.postMessage({ id: message.id, answer: { error: error instanceof Error ? error.message : String(error) } }),
  );
});
