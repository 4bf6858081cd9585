/**
 * Worker-thread entry (dist/socketWorker.js): owns the sockets and stamps every read on the shared
 * monotonic clock (process.hrtime, the same in every thread), then posts the bytes to the thread that
 * decodes them. Its heap holds little more than socket buffers, so its own GC pauses are short.
 */
import { parentPort } from 'node:worker_threads';
import { ConnectionPool } from './connectionPool';
import { socketWire } from './socketIo';
import type { WireConnection } from './wire';
import type { WireCommand, WireReport } from './workerWire';

const port = parentPort;
if (!port) throw new Error('socketWorker runs in a worker thread.');
const wire = socketWire(new ConnectionPool(), () => Number(process.hrtime.bigint()) / 1e6);
const open = new Map<number, WireConnection>();
const post = (report: WireReport): void => port.postMessage(report);

port.on('message', (command: WireCommand) => {
  if (command.op === 'send') {
    const { id } = command;
    open.set(
      id,
      wire.send(new URL(command.url), command.bytes, command.mayReuse, {
        sent: (t, reused) => post({ ev: 'sent', id, t, reused }),
        data: (chunk, t) => post({ ev: 'data', id, t, chunk }),
        closed: (t, code) => {
          open.delete(id);
          post({ ev: 'closed', id, t, code });
        },
      }),
    );
  } else if (command.op === 'proxy') {
    wire.configure(command.settings);
  } else {
    const connection = open.get(command.id);
    open.delete(command.id);
    if (command.op === 'keep') connection?.keep();
    else connection?.destroy();
  }
});
