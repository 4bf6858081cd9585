/**
 * The wire in this thread: connections from the pool, each read stamped in its 'data' handler and
 * handed on only after the event loop has read every socket that is ready, so one stream's parsing
 * never delays another stream's timestamp.
 */
import type { Socket } from 'node:net';
import { ConnectionPool } from './connectionPool';
import type { Wire, WireConnection, WireHandlers } from './wire';

export function socketWire(pool: ConnectionPool, now: () => number): Wire {
  return {
    send(url, bytes, mayReuse, handlers): WireConnection {
      const pooled = mayReuse ? pool.take(url) : undefined;
      const socket = pooled ?? pool.open(url);
      const pending: { chunk: Buffer; t: number }[] = [];
      let scheduled = false;
      let closed = false;
      const deliver = (): void => {
        scheduled = false;
        while (pending.length > 0 && !closed) {
          const { chunk, t } = pending.shift()!;
          handlers.data(chunk, t);
        }
      };
      const onData = (chunk: Buffer): void => {
        pending.push({ chunk, t: now() });
        if (!scheduled) {
          scheduled = true;
          setImmediate(deliver);
        }
      };
      const onClosed = (code: string | undefined): void => {
        const t = now();
        deliver();
        if (closed) return;
        closed = true;
        detach();
        handlers.closed(t, code);
      };
      const onEnd = (): void => onClosed(undefined);
      const onClose = (): void => onClosed(undefined);
      const onError = (error: NodeJS.ErrnoException): void => onClosed(error.code ?? error.message);
      const readyEvent = url.protocol === 'https:' ? 'secureConnect' : 'connect';
      const send = (): void => {
        handlers.sent(now(), pooled !== undefined);
        socket.write(bytes);
      };
      const detach = (): void => {
        socket.removeListener('data', onData);
        socket.removeListener('end', onEnd);
        socket.removeListener('close', onClose);
        socket.removeListener('error', onError);
        socket.removeListener(readyEvent, send);
      };
      socket.on('data', onData);
      socket.on('end', onEnd);
      socket.on('close', onClose);
      socket.on('error', onError);
      if (pooled) send();
      else socket.once(readyEvent, send);
      return {
        keep() {
          if (closed) return;
          closed = true;
          detach();
          if (socket.writableLength === 0 && pending.length === 0) pool.keep(url, socket);
          else discard(socket);
        },
        destroy() {
          if (closed) return;
          closed = true;
          detach();
          discard(socket);
        },
      };
    },
  };
}

/** Destroys a connection nobody reads any more; an error it still reports has no one to go to. */
function discard(socket: Socket): void {
  socket.on('error', () => undefined);
  socket.destroy();
}
