/**
 * The worker thread (dist/productionWorker.js) in which the language server reads a file's production
 * sources: parsing trace files, however large or hostile, never holds up hover, CodeLens or diagnostics.
 * One read per worker: the request comes in, the figures (or the error) go back, the worker ends.
 */
import { parentPort } from 'node:worker_threads';
import { readFileProduction } from '../core/telemetry/prodForEditor';
import type { ProductionReadReply, ProductionReadRequest } from './productionReader';

parentPort?.once('message', (request: ProductionReadRequest) => {
  readFileProduction(request.file, request.sources, { root: request.root })
    .then((production): ProductionReadReply => ({ production }))
    .catch((error: unknown): ProductionReadReply => ({ error: (error as Error).message }))
    .then((reply) => parentPort!.postMessage(reply));
});
