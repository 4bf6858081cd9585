/**
 * The retrieval step (issue 25) against a search service on 127.0.0.1: the request it sends, the
 * passages it reads, how long it took — and a service that hangs, refuses, errs or answers junk: a
 * failure with its kind, within the timeout, never a hang.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_RETRIEVAL_REQUEST_BYTES, MAX_RETRIEVAL_RESPONSE_BYTES, passagesText, retrievalStepOf, retrieve, RetrievalError, type RetrievalStep } from '../../../src/core/retrieval/retrievalStep';

const LISTINGS = [
  { text: '12 Elm St: 3 bedrooms, $850,000', id: 'elm-12', score: 0.91 },
  { text: '4 Oak Ave: 2 bedrooms, $620,000', id: 'oak-4', score: 0.55 },
  { text: '9 Pine Rd: 4 bedrooms, $1,100,000' },
];

let server: http.Server;
let base: string;
const received: { url: string; body: string; authorization?: string }[] = [];
const hanging = new Set<http.ServerResponse>();
beforeAll(async () => {
  server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (c) => (body += c));
    req.on('end', () => {
      received.push({ url: req.url!, body, ...(req.headers.authorization ? { authorization: req.headers.authorization } : {}) });
      if (req.url === '/search') {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ passages: LISTINGS }));
      } else if (req.url === '/hang') {
        hanging.add(res); // never answers
      } else if (req.url === '/slow-body') {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.write('{"passages": [');
        hanging.add(res);
      } else if (req.url === '/500') {
        res.writeHead(500);
        res.end('boom');
      } else if (req.url === '/junk') {
        res.writeHead(200);
        res.end('<html>not json</html>');
      } else if (req.url === '/no-text') {
        res.writeHead(200);
        res.end(JSON.stringify({ passages: [{ id: 1 }] }));
      } else if (req.url === '/huge') {
        res.writeHead(200);
        res.end(JSON.stringify({ passages: [{ text: 'x'.repeat(MAX_RETRIEVAL_RESPONSE_BYTES) }] }));
      }
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  for (const res of hanging) res.destroy();
  server.closeAllConnections();
  await new Promise((r) => server.close(r));
});

const step = (path: string, extra: Partial<RetrievalStep> = {}): RetrievalStep => ({ url: `${base}${path}`, query: 'homes in {{city}}', into: 'context', topK: 2, timeoutMs: 30_000, ...extra });

describe('retrieval step', () => {
  it('is declared in front matter or at the top of a .prompt.yml; bad declarations say how to write them', () => {
    const prompty = '---\nname: homes\nretrieval:\n  url: http://localhost:8000/search\n  query: "{{question}}"\n  into: listings\n  topK: 3\n---\nuser:\n{{question}}\n';
    expect(retrievalStepOf(prompty, false)).toEqual({ url: 'http://localhost:8000/search', query: '{{question}}', into: 'listings', topK: 3, timeoutMs: 10_000 });
    expect(retrievalStepOf('name: x\nretrieval: { url: "https://search.example/q", query: "{{q}}" }\nmessages: []\n', true)).toMatchObject({ into: 'context', topK: 5 });
    expect(retrievalStepOf('---\nname: x\n---\nuser: hi\n', false)).toBeUndefined();
    expect(() => retrievalStepOf('---\nretrieval: { command: "rm -rf /", query: q }\n---\n', false)).toThrow(/a command is not run/);
    expect(() => retrievalStepOf('---\nretrieval: { url: "file:///etc/passwd", query: q }\n---\n', false)).toThrow(/must be http or https/);
    expect(() => retrievalStepOf('---\nretrieval: { url: "http://x/s", query: q, topK: 0 }\n---\n', false)).toThrow(/topK must be a whole number from 1 to 100/);
  });

  it('POSTs {query, topK} and reads the top passages; timed', async () => {
    const got = await retrieve(step('/search'), 'homes in Bellevue');
    expect(JSON.parse(received.at(-1)!.body)).toEqual({ query: 'homes in Bellevue', topK: 2 });
    expect(got.passages).toEqual([LISTINGS[0], LISTINGS[1]]);
    expect(passagesText(got.passages)).toBe('12 Elm St: 3 bedrooms, $850,000\n\n4 Oak Ave: 2 bedrooms, $620,000');
    expect(got.retrievalMs).toBeGreaterThan(0);
  });

  it('credentials in the URL are neither sent nor shown', async () => {
    const url = new URL(`${base}/500`);
    url.username = 'alice';
    url.password = 's3cret-pw';
    const error = await retrieve(step('', { url: url.href }), 'q').then(() => new RetrievalError('cancelled', 'no error'), (e: unknown) => e as RetrievalError);
    expect(error).toBeInstanceOf(RetrievalError);
    expect(error.message).not.toContain('s3cret-pw');
    expect(received.at(-1)!.authorization).toBeUndefined();
  });

  // The two that never finish are ended by the step's timeout (300 ms, said in the error); the others end
  // on what they sent, whatever the timeout (a long one, so a busy machine cannot turn them into timeouts).
  it.each([
    ['hangs', '/hang', 300, 'timeout', /did not answer within 300 ms/],
    ['sends headers then stalls', '/slow-body', 300, 'timeout', /did not answer within 300 ms/],
    ['answers HTTP 500', '/500', 30_000, 'http_error', /answered HTTP 500/],
    ['answers HTML', '/junk', 30_000, 'bad_response', /did not answer JSON; expected \{"passages"/],
    ['answers a passage without text', '/no-text', 30_000, 'bad_response', /passage 1 .* has no text/],
    ['answers more than 2 MB', '/huge', 30_000, 'too_large', /more than 2097152 bytes/],
  ])('a search service that %s: %s', async (_, path, timeoutMs, kind, message) => {
    const error = await retrieve(step(path, { timeoutMs }), 'q').then(() => new RetrievalError('cancelled', 'no error'), (e: unknown) => e as RetrievalError);
    expect(error).toBeInstanceOf(RetrievalError);
    expect(error).toMatchObject({ kind });
    expect(error.message).toMatch(message);
  });

  it('nothing listening: connection_failed; cancelled by the caller: cancelled', async () => {
    const closed = http.createServer();
    await new Promise<void>((r) => closed.listen(0, '127.0.0.1', r));
    const port = (closed.address() as AddressInfo).port;
    await new Promise((r) => closed.close(r));
    await expect(retrieve(step('', { url: `http://127.0.0.1:${port}/search` }), 'q')).rejects.toMatchObject({ kind: 'connection_failed', message: expect.stringContaining('ECONNREFUSED') });
    const controller = new AbortController();
    const pending = retrieve(step('/hang'), 'q', { signal: controller.signal });
    setTimeout(() => controller.abort(), 50);
    await expect(pending).rejects.toMatchObject({ kind: 'cancelled' });
  });

  it("the run's timeout bounds the step: a file's own timeoutMs can shorten it, never lengthen it", async () => {
    const error = await retrieve(step('/hang', { timeoutMs: 2_000_000_000 }), 'q', { runTimeoutMs: 300 }).catch((e: unknown) => e as RetrievalError);
    expect(error).toMatchObject({ kind: 'timeout', message: expect.stringContaining("did not answer within 300 ms (the run's timeout)") });
    const shorter = await retrieve(step('/hang', { timeoutMs: 200 }), 'q', { runTimeoutMs: 60_000 }).catch((e: unknown) => e as RetrievalError);
    expect(shorter).toMatchObject({ kind: 'timeout', message: expect.stringContaining('did not answer within 200 ms (retrieval.timeoutMs)') });
  });

  it('a request body above the bound is refused before anything is sent', async () => {
    const before = received.length;
    const error = await retrieve(step('/search'), 'x'.repeat(MAX_RETRIEVAL_REQUEST_BYTES)).catch((e: unknown) => e as RetrievalError);
    expect(error).toMatchObject({ kind: 'too_large', message: expect.stringMatching(/request body of 65,5\d\d bytes; above 65,536 it is not sent/) });
    expect(received.length).toBe(before);
  });
});
