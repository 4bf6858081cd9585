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
    configure: (proxy) => pool.setProxy(proxy),
    send(url, bytes, mayReuse, handlers): WireConnection {
      const pending: { chunk: Buffer; t: number }[] = [];
      let scheduled = false;
      let closed = false;
      let socket: Socket | undefined;
      let cancelConnect = (): void => undefined;
      let detach = (): void => undefined;
      const deliver = (): void => {
        scheduled = false;
        while (pending.length > 0 && !closed) {
          const { chunk, t } = pending.shift()!;
          handlers.data(chunk, t);
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
      const attach = (ready: Socket, reused: boolean): void => {
        socket = ready;
        const onData = (chunk: Buffer): void => {
          pending.push({ chunk, t: now() });
          if (!scheduled) {
            scheduled = true;
            setImmediate(deliver);
          }
        };
        const onEnd = (): void => onClosed(undefined);
        const onError = (error: NodeJS.ErrnoException): void => onClosed(error.code ?? error.message);
        ready.on('data', onData);
        ready.on('end', onEnd);
        ready.on('close', onEnd);
        ready.on('error', onError);
        detach = () => {
          ready.removeListener('data', onData);
          ready.removeListener('end', onEnd);
          ready.removeListener('close', onEnd);
          ready.removeListener('error', onError);
        };
        handlers.sent(now(), reused);
        ready.write(bytes);
      };
      const pooled = mayReuse ? pool.take(url) : undefined;
      if (pooled) {
        attach(pooled, true);
      } else {
        cancelConnect = pool.connect(url, (outcome) => {
          if ('code' in outcome) {
            onClosed(outcome.code);
          } else if (closed) {
            discard(outcome.socket);
          } else {
            attach(outcome.socket, false);
          }
        });
      }
      const close = (keep: boolean): void => {
        if (closed) return;
        closed = true;
        cancelConnect();
        detach();
        if (!socket) return;
        if (keep && socket.writableLength === 0 && pending.length === 0) pool.keep(url, socket);
        else discard(socket);
      };
      return { keep: () => close(true), destroy: () => close(false) };
    },
  };
}

/** Destroys a connection nobody reads any more; an error it still reports has no one to go to. */
function discard(socket: Socket): void {
  socket.on('error', () => undefined);
  socket.destroy();
}
