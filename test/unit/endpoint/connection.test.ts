/**
 * The exchange's own HTTP/1.1 client on real sockets: keep-alive reuse, a pooled connection the
 * server dropped, raw servers that break the protocol, header injection, and TLS (a certificate
 * made by openssl for the test, trusted only through NODE_EXTRA_CA_CERTS).
 */
import { execFile, execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import https from 'node:https';
import net, { type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ConnectionPool, connections } from '../../../src/core/endpoint/connectionPool';
import { socketWire } from '../../../src/core/endpoint/socketIo';
import type { Wire } from '../../../src/core/endpoint/wire';
import { workerWire } from '../../../src/core/endpoint/workerWire';
import { runOnce } from '../../../src/core/run/runOnce';
import { httpTransport } from '../../../src/core/endpoint/transport';
import type { ChatRequest, EndpointConfig } from '../../../src/core/endpoint/types';
import { delta, DONE, scriptedServer, usage } from '../../fixtures/scriptedServer';

const request: ChatRequest = { model: 'm', messages: [{ role: 'user', content: 'find homes nearby' }], params: {} };
const okStream = delta({ content: 'Detached' }, 'stop') + usage(3, 1) + DONE;

function run(baseUrl: string, endpoint: Partial<EndpointConfig> = {}, timeoutMs = 3000, wire?: Wire) {
  return runOnce(httpTransport({ name: 't', provider: 'openai', baseUrl, ...endpoint }, undefined, wire), request, { timeoutMs, countTokens: (t) => t.length, inputTokensEstimate: null, maxRetries: 0 });
}

/** A raw TCP server: `onRequest(socket, index on this connection, connection index)` answers each request head+body it reads. */
async function rawServer(onRequest: (socket: net.Socket, requestOnConnection: number, connection: number) => void) {
  let connectionCount = 0;
  let requestCount = 0;
  const sockets = new Set<net.Socket>();
  const server = net.createServer((socket) => {
    const connection = connectionCount++;
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    let buffered = '';
    let onThisConnection = 0;
    socket.on('data', (data) => {
      buffered += data.toString('latin1');
      for (;;) {
        const headEnd = buffered.indexOf('\r\n\r\n');
        if (headEnd < 0) return;
        const length = Number(/content-length: (\d+)/i.exec(buffered.slice(0, headEnd))?.[1] ?? 0);
        if (buffered.length < headEnd + 4 + length) return;
        buffered = buffered.slice(headEnd + 4 + length);
        requestCount++;
        onRequest(socket, onThisConnection++, connection);
      }
    });
    socket.on('error', () => undefined);
  });
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`,
    connections: () => connectionCount,
    requests: () => requestCount,
    close: () => new Promise<void>((done) => {
      for (const s of sockets) s.destroy();
      server.close(() => done());
    }),
  };
}

const sseHead = 'HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\ntransfer-encoding: chunked\r\n\r\n';
const chunk = (text: string): string => `${Buffer.byteLength(text).toString(16)}\r\n${text}\r\n`;

let closeServer: (() => Promise<void>) | undefined;
afterEach(async () => {
  connections.clear();
  await closeServer?.();
  closeServer = undefined;
});

describe('connections', () => {
  it('repeated runs to one origin reuse one keep-alive connection', async () => {
    const server = await rawServer((socket) => socket.write(sseHead + chunk(okStream) + '0\r\n\r\n'));
    closeServer = server.close;
    for (let i = 0; i < 3; i++) expect((await run(server.url)).record.ok).toBe(true);
    expect(server.connections()).toBe(1);
    expect(server.requests()).toBe(3);
  });

  it('a pooled connection the server closed while idle is not used; the run goes out on a new one', async () => {
    const server = await rawServer((socket) => socket.end(sseHead + chunk(okStream) + '0\r\n\r\n'));
    closeServer = server.close;
    expect((await run(server.url)).record.ok).toBe(true);
    await new Promise((r) => setTimeout(r, 50));
    expect((await run(server.url)).record.ok).toBe(true);
    expect(server.connections()).toBe(2);
  });

  it('a pooled connection reset before any answer byte is retried once on a new connection', async () => {
    // The second request on the first connection meets a reset, as when a server's keep-alive timer fires as the request arrives.
    const server = await rawServer((socket, onConnection, connection) => {
      if (connection === 0 && onConnection === 1) socket.resetAndDestroy();
      else socket.write(sseHead + chunk(okStream) + '0\r\n\r\n');
    });
    closeServer = server.close;
    expect((await run(server.url)).record.ok).toBe(true);
    const second = await run(server.url);
    expect(second.record).toMatchObject({ ok: true, error: null });
    expect(server.connections()).toBe(2);
  });

  it('a new connection reset before any answer is an error, not retried', async () => {
    const server = await rawServer((socket) => socket.resetAndDestroy());
    closeServer = server.close;
    const { record } = await run(server.url);
    expect(record.error).toMatchObject({ kind: 'connection_reset' });
    expect(record.error!.message).toContain('before an answer');
    expect(server.requests()).toBe(1);
  });

  it('a response that is not HTTP/1.1 is malformed_stream with the reason', async () => {
    const server = await rawServer((socket) => socket.end('SSH-2.0-OpenSSH_9.2\r\n'));
    closeServer = server.close;
    const { record } = await run(server.url);
    expect(record.error).toMatchObject({ kind: 'malformed_stream' });
    expect(record.error!.message).toMatch(/not valid HTTP\/1\.1: not an HTTP\/1\.1 status line/);
  });

  it('a close-delimited event stream (no length, no chunking) is read to its end', async () => {
    const server = await rawServer((socket) => socket.end('HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\n\r\n' + okStream));
    closeServer = server.close;
    const { record, text } = await run(server.url);
    expect(record).toMatchObject({ ok: true, outputTokens: 1 });
    expect(text.answer).toBe('Detached');
  });

  it('a huge error body is cut at 64 KB and reported at once', async () => {
    const server = await rawServer((socket) => {
      socket.write('HTTP/1.1 500 Internal Server Error\r\ncontent-type: text/plain\r\ntransfer-encoding: chunked\r\n\r\n');
      socket.write(chunk('overloaded '.repeat(10_000))); // ~110 KB, and the body never ends
    });
    closeServer = server.close;
    const started = performance.now();
    const { record } = await run(server.url, {}, 10_000);
    expect(performance.now() - started).toBeLessThan(5000);
    expect(record.error).toMatchObject({ kind: 'http_5xx' });
    expect(record.status).toBe(500);
    expect(record.error!.message).toContain('overloaded');
  });

  it('an extra header whose value carries a line break is refused and nothing is sent', async () => {
    const server = await scriptedServer(() => ({ steps: [{ write: okStream }] }));
    closeServer = server.close;
    const { record } = await run(server.url, { headers: { 'x-team': 'a\r\nx-injected: 1' } });
    expect(record.error).toMatchObject({ kind: 'connection_failed' });
    expect(record.error!.message).toContain("header 'x-team'");
    expect(server.requests).toHaveLength(0);
  });
});

describe('sockets in a worker thread (dist/socketWorker.js, as the CLI and the extension run)', () => {
  const inThread = socketWire(connections, () => performance.now());

  it('streams, times on this thread\'s clock, and keeps its connection alive', async () => {
    const wire = workerWire(resolve('dist/socketWorker.js'), inThread);
    const server = await rawServer((socket) => {
      socket.write(sseHead);
      setTimeout(() => socket.write(chunk(okStream) + '0\r\n\r\n'), 120);
    });
    closeServer = server.close;
    for (let i = 0; i < 3; i++) {
      const { record, text } = await run(server.url, {}, 3000, wire);
      expect(record.ok).toBe(true);
      expect(text.answer).toBe('Detached');
      expect(record.ttftMs!).toBeGreaterThanOrEqual(119);
      expect(record.ttftMs!).toBeLessThan(120 + 60);
    }
    expect(server.connections()).toBe(1);
  });

  it('retries a reused connection reset before any answer, as in this thread', async () => {
    const wire = workerWire(resolve('dist/socketWorker.js'), inThread);
    const server = await rawServer((socket, onConnection, connection) => {
      if (connection === 0 && onConnection === 1) socket.resetAndDestroy();
      else socket.write(sseHead + chunk(okStream) + '0\r\n\r\n');
    });
    closeServer = server.close;
    expect((await run(server.url, {}, 3000, wire)).record.ok).toBe(true);
    expect((await run(server.url, {}, 3000, wire)).record.ok).toBe(true);
    expect(server.connections()).toBe(2);
  });

  it('a worker that dies fails the runs it carried; later runs go out on this thread', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'pi-worker-'));
    const dying = join(dir, 'dying.js');
    writeFileSync(dying, 'setTimeout(() => process.exit(3), 20); require("node:worker_threads").parentPort.on("message", () => {});');
    const wire = workerWire(dying, inThread);
    const server = await rawServer((socket) => setTimeout(() => socket.write(sseHead + chunk(okStream) + '0\r\n\r\n'), 100));
    closeServer = server.close;
    const first = await run(server.url, {}, 3000, wire);
    expect(first.record.ok).toBe(false);
    expect(first.record.error!.message).toContain('ERR_WORKER_EXITED');
    const second = await run(server.url, {}, 3000, wire);
    expect(second.record.ok).toBe(true);
  });
});

/** A CONNECT proxy on loopback that sends every tunnel to `target` (so the endpoint's host name need not resolve). */
async function connectProxy(target: () => number, answer = 'HTTP/1.1 200 Connection established') {
  const seen: string[] = [];
  const sockets = new Set<net.Socket>();
  const server = net.createServer((client) => {
    sockets.add(client);
    client.on('error', () => undefined);
    let head = '';
    const onData = (data: Buffer): void => {
      head += data.toString('latin1');
      if (!head.includes('\r\n\r\n')) return;
      client.removeListener('data', onData);
      seen.push(head.slice(0, head.indexOf('\r\n\r\n')));
      if (!answer.includes(' 200 ')) return void client.end(`${answer}\r\ncontent-length: 0\r\n\r\n`);
      const upstream = net.connect(target(), '127.0.0.1', () => {
        client.write(`${answer}\r\n\r\n`);
        client.pipe(upstream).pipe(client);
      });
      sockets.add(upstream);
      upstream.on('error', () => client.destroy());
    };
    client.on('data', onData);
  });
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    seen,
    close: () => new Promise<void>((done) => {
      for (const s of sockets) s.destroy();
      server.close(() => done());
    }),
  };
}

describe('through an HTTP proxy (CONNECT tunnel)', () => {
  it('tunnels to the endpoint with the proxy credentials; the endpoint sees the request, the proxy only CONNECT', async () => {
    const server = await rawServer((socket) => socket.write(sseHead + chunk(okStream) + '0\r\n\r\n'));
    const port = Number(new URL(server.url).port);
    const proxy = await connectProxy(() => port);
    closeServer = async () => {
      await proxy.close();
      await server.close();
    };
    const pool = new ConnectionPool({ httpProxy: proxy.url.replace('//', '//team%40corp:s3cret@') });
    const wire = socketWire(pool, () => performance.now());
    const first = await run(`http://models.test:${port}/v1`, {}, 3000, wire);
    expect(first.record).toMatchObject({ ok: true, error: null });
    expect((await run(`http://models.test:${port}/v1`, {}, 3000, wire)).record.ok).toBe(true);
    expect(proxy.seen).toHaveLength(1); // the tunnel is kept alive like any connection
    expect(proxy.seen[0]).toContain(`CONNECT models.test:${port} HTTP/1.1`);
    expect(proxy.seen[0]).toContain(`proxy-authorization: Basic ${Buffer.from('team@corp:s3cret').toString('base64')}`);
    expect(server.requests()).toBe(2);
    pool.clear();
  });

  it('a proxy that refuses the tunnel is connection_failed with its answer and a hint', async () => {
    const proxy = await connectProxy(() => 1, 'HTTP/1.1 407 Proxy Authentication Required');
    closeServer = proxy.close;
    const wire = socketWire(new ConnectionPool({ httpsProxy: proxy.url }), () => performance.now());
    const { record } = await run('https://api.example.invalid/v1', {}, 3000, wire);
    expect(record.error).toMatchObject({ kind: 'connection_failed' });
    expect(record.error!.message).toContain('407 Proxy Authentication Required');
    expect(record.error!.message).toContain('http://user:pass@host:port');
  });
});

describe('TLS', () => {
  const dir = mkdtempSync(join(tmpdir(), 'pi-tls-'));
  execFileSync('openssl', ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', join(dir, 'key.pem'), '-out', join(dir, 'cert.pem'), '-days', '1', '-subj', '/CN=127.0.0.1', '-addext', 'subjectAltName=IP:127.0.0.1,DNS:models.test'], { stdio: 'ignore' });
  writeFileSync(join(dir, 'homes.prompt.md'), '---\nmodel: m\n---\nFind homes nearby.\n');

  function cliRun(url: string, env: Record<string, string>): Promise<{ code: number; stdout: string }> {
    return new Promise((done) => {
      execFile(process.execPath, [resolve('dist/cli.js'), 'run', join(dir, 'homes.prompt.md'), '--endpoint', url, '--model', 'm', '--runs', '2', '--json', '--store', join(dir, 'runs.jsonl')], { env: { ...process.env, ...env } }, (error, stdout) => done({ code: error ? (error as { code: number }).code : 0, stdout }));
    });
  }

  it('streams over TLS from a server whose certificate is trusted, and refuses one that is not', async () => {
    let served = 0;
    const server = https.createServer({ key: readFileSync(join(dir, 'key.pem')), cert: readFileSync(join(dir, 'cert.pem')) }, (req, res) => {
      if (req.method === 'POST') served++; // chat requests; the CLI's server-kind probe GETs are not runs
      req.resume();
      req.on('end', () => {
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        res.end(okStream);
      });
    });
    await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
    closeServer = () => new Promise<void>((done) => {
      server.closeAllConnections();
      server.close(() => done());
    });
    const url = `https://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;

    const untrusted = await cliRun(url, {});
    const refused = JSON.parse(untrusted.stdout);
    expect(refused.runs[0].error.kind).toBe('connection_failed');
    expect(refused.runs[0].error.message).toMatch(/SELF_SIGNED|self.signed/i);
    expect(served).toBe(0);

    const trusted = await cliRun(url, { NODE_EXTRA_CA_CERTS: join(dir, 'cert.pem') });
    const ok = JSON.parse(trusted.stdout);
    expect(ok.runs.map((r: { ok: boolean }) => r.ok)).toEqual([true, true]);
    expect(served).toBe(2);

    // The CLI takes HTTPS_PROXY from its environment: TLS to models.test inside the proxy's tunnel.
    const proxy = await connectProxy(() => Number(new URL(url).port));
    try {
      const proxied = await cliRun(`https://models.test:${new URL(url).port}/v1`, { NODE_EXTRA_CA_CERTS: join(dir, 'cert.pem'), HTTPS_PROXY: proxy.url });
      expect(JSON.parse(proxied.stdout).runs.map((r: { ok: boolean }) => r.ok)).toEqual([true, true]);
      expect(proxy.seen).toHaveLength(1);
      expect(proxy.seen[0]).toContain('CONNECT models.test:');
      expect(served).toBe(4);
    } finally {
      await proxy.close();
    }
  });
});
