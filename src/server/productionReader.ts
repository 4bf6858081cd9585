/**
 * A file's production sources read off the language server's thread, in a worker
 * (productionWorker.ts → dist/productionWorker.js beside the bundle), stopped if it outlives every
 * source's own deadline. From source (no bundle) the read runs in this thread.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import type { FileProduction } from '../core/telemetry/prodForEditor';
import type { ProductionSource } from '../core/telemetry/productionSettings';

export interface ProductionReadRequest {
  file: string;
  sources: ProductionSource[];
  root: string;
}
export type ProductionReadReply = { production: FileProduction } | { error: string };

/**
 * Beyond the sources' own deadlines (each stops its read), for a worker stuck where no signal reaches.
 * Only then is a worker ended with processes of its own running (productionWorker.ts stops them before
 * it answers); they end when their pipes close, but their exits are no longer waited for.
 */
const GRACE_MS = 30_000;

export async function readProductionOffThread(request: ProductionReadRequest): Promise<FileProduction> {
  // Loaded on first use: the server's start does not pay for the production modules.
  const { EDITOR_PROMETHEUS_DEADLINE_MS, EDITOR_TRACES_DEADLINE_MS } = await import('../core/telemetry/prodForEditor');
  const { readFileProductionWatched } = await import('../core/baseline/productionAnomalies');
  const script = join(__dirname, 'productionWorker.js');
  if (!existsSync(script)) return readFileProductionWatched(request.file, request.sources, { root: request.root });
  const limitMs = request.sources.reduce((ms, s) => ms + (s.kind === 'traces' ? EDITOR_TRACES_DEADLINE_MS : EDITOR_PROMETHEUS_DEADLINE_MS), GRACE_MS);
  const worker = new Worker(script, { resourceLimits: { maxOldGenerationSizeMb: 2048 } });
  try {
    const reply = await new Promise<ProductionReadReply>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`the read did not finish within ${Math.round(limitMs / 1000)} s and was stopped`)), limitMs);
      worker.once('message', (message: ProductionReadReply) => (clearTimeout(timer), resolve(message)));
      worker.once('error', (error) => (clearTimeout(timer), reject(error)));
      worker.once('exit', (code) => (clearTimeout(timer), reject(new Error(`the reader stopped (exit ${code})`))));
      worker.postMessage(request);
    });
    if ('error' in reply) throw new Error(reply.error);
    return reply.production;
  } finally {
    void worker.terminate();
  }
}
