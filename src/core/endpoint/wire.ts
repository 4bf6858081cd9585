import type { ProxySettings } from './proxy';

/**
 * Raw request/response bytes on a socket, timestamped where they are read. Two implementations:
 * in this thread (socketIo) and in a worker thread (workerWire), which keeps the timestamps free of
 * this thread's garbage collection and other work (the extension host runs every extension on one
 * event loop).
 */

export interface WireHandlers {
  /** The request went on the wire at `t` (stamped just before the write). */
  sent(t: number, reused: boolean): void;
  /** One socket read, stamped when it was read. */
  data(chunk: Uint8Array, t: number): void;
  /** The connection ended (`code` when it failed, e.g. ECONNRESET or a TLS error). Called once. */
  closed(t: number, code: string | undefined): void;
}

export interface WireConnection {
  /** The response was read completely: keep the connection for the next request to the origin. */
  keep(): void;
  destroy(): void;
}

export interface Wire {
  /** Proxy settings for connections made from now on. */
  configure(proxy: ProxySettings): void;
  /** Writes `bytes` on a pooled connection to the URL's origin if `mayReuse` and one is idle, else on a new one. */
  send(url: URL, bytes: Uint8Array, mayReuse: boolean, handlers: WireHandlers): WireConnection;
}
