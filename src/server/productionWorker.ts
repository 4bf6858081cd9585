/**
 * The worker thread (dist/productionWorker.js) in which the language server reads a file's production
 * sources: parsing trace files, however large or hostile, never holds up hover, CodeLens or diagnostics.
 * One read per worker: the request comes in, the figures (or the error) go back, the worker ends.
 * Before the answer goes back, every process the read started (git, the render processes that hash
 * each revision's prompts) is stopped and its exit seen: the server ends the worker on the answer, and
 * a child outliving its worker would be left a zombie of the server.
 */
import { parentPort } from 'node:worker_threads';
import { setRenderLog } from '../core/render/renderer';
import { readFileProductionWatched } from '../core/baseline/productionAnomalies';
import { stopOwnChildren } from '../core/workers/ownChildren';
import type { ProductionReadReply, ProductionReadRequest } from './productionReader';

// The server reports the isolation of its own render processes once; this worker's, started the same
// way, would otherwise repeat it on the server's stderr at every read.
setRenderLog(() => undefined);

parentPort?.once('message', (request: ProductionReadRequest) => {
  readFileProductionWatched(request.file, request.sources, { root: request.root })
    .then((production): ProductionReadReply => ({ production }))
    .catch((error: unknown): ProductionReadReply => ({ error: (error as Error).message }))
    .then(async (reply) => {
      await stopOwnChildren();
      parentPort!.postMessage(reply);
    });
});
