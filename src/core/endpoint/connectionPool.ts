/**
 * Keep-alive connections per origin (plain TCP or TLS, direct or through an HTTP proxy's CONNECT
 * tunnel), so repeated runs measure the model rather than connection set-up. An idle connection is
 * dropped when the server closes it, sends anything unasked, or after IDLE_MS; idle sockets do not
 * keep the process alive.
 */
import net from 'node:net';
import tls from 'node:tls';
import { addressOf, proxyCredentials, proxyFor, proxySettingsFromEnv, type ProxySettings } from './proxy';

/** Below the 5 s keep-alive timeout of Node, uvicorn and others, so a reused socket is rarely stale. */
const IDLE_MS = 4000;
const MAX_IDLE_PER_ORIGIN = 256;
/** Anything an idle connection does ends it: the server closing, failing, or sending unasked. */
const IDLE_ENDS = ['data', 'end', 'close', 'error'] as const;

interface IdleSocket {
  socket: net.Socket;
  drop: () => void;
}

export type ConnectOutcome = { socket: net.Socket } | { code: string };

export class ConnectionPool {
  private readonly idle = new Map<string, IdleSocket[]>();

  constructor(private proxy: ProxySettings = proxySettingsFromEnv(process.env)) {}

  /** New proxy settings; idle connections made under the old ones are closed. */
  setProxy(settings: ProxySettings): void {
    this.proxy = settings;
    this.clear();
  }

  /**
   * A new connection, direct or tunnelled through the proxy (CONNECT), ready for a request once
   * `done` gets it (TCP connected, TLS established); `code` says why not. Returns a cancel function.
   */
  connect(url: URL, done: (outcome: ConnectOutcome) => void): () => void {
    const { host, port } = addressOf(url);
    const secure = url.protocol === 'https:';
    let current: net.Socket | undefined;
    let finished = false;
    const onError = (error: NodeJS.ErrnoException): void => fail(error.code ?? error.message);
    const settle = (outcome: ConnectOutcome): void => {
      if (finished) return;
      finished = true;
      current?.removeListener('error', onError);
      if ('socket' in outcome) outcome.socket.setNoDelay(true);
      done(outcome);
    };
    const fail = (code: string): void => {
      current?.destroy();
      settle({ code });
    };
    /** A TCP connection to `to`; `ready` once it is connected. */
    const startTcp = (to: { host: string; port: number }, ready: (socket: net.Socket) => void): void => {
      const socket = net.connect(to);
      current = socket;
      socket.on('error', onError);
      socket.once('connect', () => ready(socket));
    };
    /** TLS to the endpoint, on a new TCP connection or inside a proxy's tunnel; ready once the handshake is done. */
    const startTls = (connection: { host: string; port: number } | { socket: net.Socket }): void => {
      const tlsSocket = tls.connect({ ...connection, ALPNProtocols: ['http/1.1'], ...(net.isIP(host) ? {} : { servername: host }) });
      current?.removeListener('error', onError);
      current = tlsSocket;
      tlsSocket.on('error', onError);
      tlsSocket.once('secureConnect', () => settle({ socket: tlsSocket }));
    };
    /** The tunnel is up: plain HTTP goes on as is, HTTPS starts TLS inside it. */
    const tunnelled = (socket: net.Socket): void => {
      if (!secure) return settle({ socket });
      startTls({ socket });
      // The tunnel's own failures surface on the TLS socket that runs inside it.
      const tlsSocket = current!;
      socket.on('error', (error) => tlsSocket.destroy(error));
    };
    let proxy: URL | undefined;
    try {
      proxy = proxyFor(url, this.proxy);
    } catch (error) {
      setImmediate(() => settle({ code: (error as Error).message }));
      return () => undefined;
    }
    if (!proxy) {
      if (secure) startTls({ host, port });
      else startTcp({ host, port }, (socket) => settle({ socket }));
    } else {
      const via = proxy;
      const authority = `${net.isIPv6(host) ? `[${host}]` : host}:${port}`;
      startTcp(addressOf(via), (socket) => tunnel(socket, via, authority, (code) => (code ? fail(code) : tunnelled(socket))));
    }
    return () => {
      if (finished) return;
      finished = true;
      current?.destroy();
    };
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
        for (const event of IDLE_ENDS) socket.removeListener(event, close);
      },
    };
    for (const event of IDLE_ENDS) socket.on(event, close);
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

const MAX_PROXY_HEAD_BYTES = 16 * 1024;

/** Asks the proxy for a tunnel to `authority`; `done()` when it answered 2xx, else `done(reason)`. */
function tunnel(socket: net.Socket, proxy: URL, authority: string, done: (code?: string) => void): void {
  const login = proxyCredentials(proxy);
  const credentials = login ? `proxy-authorization: Basic ${Buffer.from(`${login.user}:${login.password}`).toString('base64')}\r\n` : '';
  socket.write(`CONNECT ${authority} HTTP/1.1\r\nhost: ${authority}\r\n${credentials}\r\n`);
  let head = '';
  const onData = (data: Buffer): void => {
    head += data.toString('latin1');
    const end = head.indexOf('\r\n\r\n');
    if (end < 0) {
      if (head.length > MAX_PROXY_HEAD_BYTES) finish('the proxy sent an endless answer to CONNECT');
      return;
    }
    const statusLine = head.slice(0, head.indexOf('\r\n'));
    const status = Number(/^HTTP\/1\.[01] (\d{3})/.exec(statusLine)?.[1]);
    if (end + 4 !== head.length) finish('the proxy sent bytes after its answer to CONNECT');
    else if (status >= 200 && status < 300) finish();
    else finish(`the proxy ${proxy.host} answered CONNECT ${authority} with ${JSON.stringify(statusLine.slice(0, 80))}${status === 407 ? ' (proxy credentials go in the proxy URL: http://user:pass@host:port)' : ''}`);
  };
  const onEnd = (): void => finish(`the proxy ${proxy.host} closed the connection instead of answering CONNECT`);
  const finish = (code?: string): void => {
    socket.removeListener('data', onData);
    socket.removeListener('end', onEnd);
    done(code);
  };
  socket.on('data', onData);
  socket.on('end', onEnd);
}

/** The pool every HTTP run shares. */
export const connections = new ConnectionPool();
