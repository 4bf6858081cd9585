/**
 * Keep-alive connections per origin (plain TCP or TLS), so repeated runs measure the model rather
 * than connection set-up. An idle connection is dropped when the server closes it, sends anything
 * unasked, or after IDLE_MS; idle sockets do not keep the process alive.
 */
import net from 'node:net';
import tls from 'node:tls';

/** Below the 5 s keep-alive timeout of Node, uvicorn and others, so a reused socket is rarely stale. */
const IDLE_MS = 4000;
const MAX_IDLE_PER_ORIGIN = 256;

interface IdleSocket {
  socket: net.Socket;
  drop: () => void;
}

export class ConnectionPool {
  private readonly idle = new Map<string, IdleSocket[]>();

  /** A new connection; it is connecting until 'connect' (TCP) or 'secureConnect' (TLS). */
  open(url: URL): net.Socket {
    const host = url.hostname.replace(/^\[(.*)\]$/, '$1');
    const secure = url.protocol === 'https:';
    const port = Number(url.port || (secure ? 443 : 80));
    const socket = secure ? tls.connect({ host, port, ALPNProtocols: ['http/1.1'], ...(net.isIP(host) ? {} : { servername: host }) }) : net.connect({ host, port });
    socket.setNoDelay(true);
    return socket;
  }

  /** The most recently used live idle connection to the URL's origin, if any. */
  take(url: URL): net.Socket | undefined {
    const list = this.idle.get(url.origin);
    while (list && list.length > 0) {
      const entry = list.pop()!;
      entry.drop();
      if (!entry.socket.destroyed && entry.socket.writable) {
        entry.socket.ref();
        return entry.socket;
      }
      entry.socket.destroy();
    }
    return undefined;
  }

  /** Keeps a connection whose response was read completely, for the next request to the origin. */
  keep(url: URL, socket: net.Socket): void {
    const origin = url.origin;
    const list = this.idle.get(origin) ?? [];
    if (list.length >= MAX_IDLE_PER_ORIGIN || socket.destroyed) {
      socket.destroy();
      return;
    }
    const close = (): void => {
      const at = list.indexOf(entry);
      if (at >= 0) list.splice(at, 1);
      entry.drop();
      socket.destroy();
    };
    const timer = setTimeout(close, IDLE_MS);
    timer.unref();
    const entry: IdleSocket = {
      socket,
      drop: () => {
        clearTimeout(timer);
        for (const event of ['data', 'end', 'close', 'error', 'timeout'] as const) socket.removeListener(event, close);
      },
    };
    for (const event of ['data', 'end', 'close', 'error', 'timeout'] as const) socket.on(event, close);
    socket.unref();
    list.push(entry);
    this.idle.set(origin, list);
  }

  /** Closes every idle connection (tests; a host shutting down). */
  clear(): void {
    for (const list of this.idle.values()) for (const entry of list.splice(0)) {
      entry.drop();
      entry.socket.destroy();
    }
    this.idle.clear();
  }
}

/** The pool every HTTP run shares. */
export const connections = new ConnectionPool();
