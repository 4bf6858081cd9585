/** The HTTP/1.1 wire format the exchange speaks: response parsing at any read boundary, request serialisation. */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { seeded } from '../../fixtures/propertySeed';
import { requestBytes, RequestHeaderError } from '../../../src/core/endpoint/http1Request';
import { Http1ResponseParser, HttpProtocolError, type ResponsePart } from '../../../src/core/endpoint/http1Response';

interface Parsed {
  status?: number;
  headers?: ReadonlyMap<string, string>;
  keepAlive?: boolean;
  body: string;
  ended: boolean;
  extraneous: boolean;
}

function collect(parts: ResponsePart[], into: Parsed): void {
  for (const part of parts) {
    if (part.kind === 'head') Object.assign(into, { status: part.status, headers: part.headers, keepAlive: part.keepAlive });
    else if (part.kind === 'body') into.body += Buffer.from(part.data).toString('latin1');
    else into.ended = true;
  }
}

/** Feeds `wire` cut at `cuts`, then closes the connection if `close`. */
function parse(wire: string, cuts: number[] = [], close = false): Parsed {
  const bytes = Buffer.from(wire, 'latin1');
  const parser = new Http1ResponseParser();
  const out: Parsed = { body: '', ended: false, extraneous: false };
  let from = 0;
  for (const cut of [...cuts].sort((a, b) => a - b).concat(bytes.length)) {
    collect(parser.feed(bytes.subarray(from, cut)), out);
    from = cut;
  }
  if (close) collect(parser.close(), out);
  out.extraneous = parser.extraneous;
  return out;
}

const chunked = 'HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nTransfer-Encoding: chunked\r\n\r\n' + '1c\r\ndata: {"content":"Detached"}\r\n' + '5;ext=1\r\n\n\ndat\r\n' + '0\r\nx-trailer: 1\r\n\r\n';
const chunkedBody = 'data: {"content":"Detached"}\n\ndat';

describe('Http1ResponseParser', () => {
  it('reads a chunked body with extensions and trailers, the same at every read boundary', () => {
    const whole = parse(chunked);
    expect(whole).toMatchObject({ status: 200, keepAlive: true, body: chunkedBody, ended: true, extraneous: false });
    expect(whole.headers!.get('content-type')).toBe('text/event-stream');
    for (let cut = 1; cut < chunked.length; cut++) expect(parse(chunked, [cut])).toMatchObject({ body: chunkedBody, ended: true });
    fc.assert(
      fc.property(fc.uniqueArray(fc.integer({ min: 1, max: chunked.length - 1 }), { maxLength: 20 }), (cuts) => {
        const parsed = parse(chunked, cuts);
        expect(parsed.body).toBe(chunkedBody);
        expect(parsed.ended).toBe(true);
      }),
      seeded(),
    );
  });

  it('returns body bytes as soon as they arrive, not when the chunk is complete', () => {
    const parser = new Http1ResponseParser();
    const head = 'HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\n\r\n10\r\n12345';
    const parts = parser.feed(Buffer.from(head));
    expect(parts.map((p) => p.kind)).toEqual(['head', 'body']);
    expect(Buffer.from((parts[1] as { data: Uint8Array }).data).toString()).toBe('12345');
  });

  it('reads a Content-Length body and notices bytes after it', () => {
    const wire = 'HTTP/1.1 401 Unauthorized\r\ncontent-length: 5\r\n\r\nhelloEXTRA';
    expect(parse(wire)).toMatchObject({ status: 401, body: 'hello', ended: true, extraneous: true });
    expect(parse('HTTP/1.1 200 OK\r\nContent-Length: 5, 5\r\n\r\nhello')).toMatchObject({ body: 'hello', ended: true, extraneous: false });
  });

  it('reads a body delimited by the close, and such a connection is not kept', () => {
    const wire = 'HTTP/1.0 200 OK\r\ncontent-type: application/json\r\n\r\n{"a":1}';
    expect(parse(wire)).toMatchObject({ body: '{"a":1}', ended: false, keepAlive: false });
    expect(parse(wire, [], true)).toMatchObject({ body: '{"a":1}', ended: true });
  });

  it('a connection closed inside a chunked or sized body does not end the response', () => {
    expect(parse(chunked.slice(0, 80), [], true).ended).toBe(false);
    expect(parse('HTTP/1.1 200 OK\r\ncontent-length: 9\r\n\r\nhalf', [], true).ended).toBe(false);
  });

  it('skips interim 1xx responses, joins repeated headers and unfolds folded ones, honours Connection: close', () => {
    const wire = 'HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 103 Early Hints\r\nlink: </a>\r\n\r\nHTTP/1.1 200 OK\r\nX-A: 1\r\nx-a: 2\r\nX-Long: first\r\n  second\r\nConnection: close\r\ncontent-length: 2\r\n\r\nok';
    const parsed = parse(wire);
    expect(parsed).toMatchObject({ status: 200, body: 'ok', keepAlive: false, ended: true });
    expect(parsed.headers!.get('x-a')).toBe('1, 2');
    expect(parsed.headers!.get('x-long')).toBe('first second');
    expect(parsed.headers!.has('link')).toBe(false);
  });

  it('204 has no body; LF-only line ends are tolerated', () => {
    expect(parse('HTTP/1.1 204 No Content\n\n')).toMatchObject({ status: 204, body: '', ended: true });
  });

  it('rejects what is not HTTP/1.1 with a protocol error, never a crash', () => {
    const bad = [
      'SSH-2.0-OpenSSH_9.2\r\n',
      'HTTP/2 200\r\n\r\n',
      'HTTP/1.1 200 OK\r\nno colon here\r\n\r\n',
      'HTTP/1.1 200 OK\r\nbad name: 1\r\n\r\n',
      'HTTP/1.1 200 OK\r\ncontent-length: 5, 6\r\n\r\n',
      'HTTP/1.1 200 OK\r\ncontent-length: -1\r\n\r\n',
      'HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\n\r\nzz\r\n',
      'HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\n\r\n2\r\nabc\r\n',
      'HTTP/1.1 101 Switching Protocols\r\n\r\n',
    ];
    for (const wire of bad) expect(() => parse(wire), wire).toThrow(HttpProtocolError);
  });

  it('bounds the head at 64 KB and a chunk-size line at 4 KB, however the bytes are cut', () => {
    const hugeHead = `HTTP/1.1 200 OK\r\nx-big: ${'a'.repeat(70 * 1024)}\r\n\r\n`;
    expect(() => parse(hugeHead)).toThrow(/64 KB/);
    expect(() => parse(hugeHead, Array.from({ length: 80 }, (_, i) => (i + 1) * 1000))).toThrow(/64 KB/);
    const endlessSize = `HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\n\r\n${'0'.repeat(5000)}`;
    expect(() => parse(endlessSize, [60, 1000, 3000])).toThrow(/chunk-size line/);
  });

  it('after a head larger than 4 KB, a chunk-size line split across reads is still read', () => {
    const head = `HTTP/1.1 200 OK\r\nx-big: ${'a'.repeat(5000)}\r\ntransfer-encoding: chunked\r\n\r\n`;
    const wire = `${head}1c\r\ndata: {"content":"Detached"}\r\n0\r\n\r\n`;
    expect(parse(wire, [head.length + 1])).toMatchObject({ body: 'data: {"content":"Detached"}', ended: true });
  });

  it('a chunked transfer coding that is not last reads until the close', () => {
    expect(parse('HTTP/1.1 200 OK\r\ntransfer-encoding: chunked, gzip\r\n\r\nraw', [], true)).toMatchObject({ body: 'raw', ended: true, keepAlive: false });
  });
});

describe('requestBytes', () => {
  const url = new URL('http://127.0.0.1:8080/v1/chat/completions?api-version=1');

  it('writes one POST with host, length and keep-alive; the caller cannot override the framing', () => {
    const text = requestBytes(url, { 'content-type': 'application/json', 'Content-Length': '1', authorization: 'Bearer k' }, Buffer.from('{"é":1}')).toString('latin1');
    const [head, body] = text.split('\r\n\r\n');
    expect(head!.split('\r\n')).toEqual(['POST /v1/chat/completions?api-version=1 HTTP/1.1', 'host: 127.0.0.1:8080', 'content-type: application/json', 'authorization: Bearer k', 'content-length: 8', 'connection: keep-alive']);
    expect(Buffer.from(body!, 'latin1').toString('utf8')).toBe('{"é":1}');
  });

  it('refuses header values that would inject a header or a request, and names that are not tokens', () => {
    expect(() => requestBytes(url, { 'x-a': 'ok\r\nx-injected: 1' }, Buffer.alloc(0))).toThrow(RequestHeaderError);
    expect(() => requestBytes(url, { 'x-a': 'line\nbreak' }, Buffer.alloc(0))).toThrow(/line break/);
    expect(() => requestBytes(url, { 'x-a': 'snowman ☃' }, Buffer.alloc(0))).toThrow(/Latin-1/);
    expect(() => requestBytes(url, { 'bad name': 'v' }, Buffer.alloc(0))).toThrow(/not valid/);
  });
});
