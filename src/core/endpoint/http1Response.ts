/**
 * An incremental HTTP/1.1 response parser (RFC 9112): status line, headers, then the body framed by
 * chunked transfer coding, Content-Length or the connection's close. It is fed the socket's reads
 * as they are and returns body bytes as slices of those reads, so every body byte can keep the
 * timestamp of the read it arrived in. 1xx interim responses are skipped.
 */

export type ResponsePart =
  | { kind: 'head'; status: number; headers: ReadonlyMap<string, string>; keepAlive: boolean }
  | { kind: 'body'; data: Uint8Array }
  | { kind: 'end' };

export class HttpProtocolError extends Error {}

const MAX_HEAD_BYTES = 64 * 1024;
const MAX_CHUNK_LINE_BYTES = 4 * 1024;
const LF = 0x0a;

type State = 'status' | 'headers' | 'length' | 'chunkSize' | 'chunkData' | 'chunkDataEnd' | 'trailers' | 'untilClose' | 'done';

export class Http1ResponseParser {
  private state: State = 'status';
  /** Bytes of the line being read that arrived in earlier reads. */
  private partialLine: Uint8Array[] = [];
  private partialLineBytes = 0;
  private headBytes = 0;
  private status = 0;
  private version = '';
  private headers = new Map<string, string>();
  private lastHeader: string | undefined;
  private remaining = 0;
  /** Bytes arrived after the response was complete: the connection cannot be reused. */
  extraneous = false;

  /** Parts found in one read. Throws HttpProtocolError when the bytes are not HTTP/1.1. */
  feed(chunk: Uint8Array): ResponsePart[] {
    const parts: ResponsePart[] = [];
    let at = 0;
    while (at < chunk.length) {
      switch (this.state) {
        case 'status':
        case 'headers':
        case 'chunkSize':
        case 'chunkDataEnd':
        case 'trailers': {
          const end = chunk.indexOf(LF, at);
          const limit = this.state === 'status' || this.state === 'headers' ? MAX_HEAD_BYTES : MAX_CHUNK_LINE_BYTES;
          if (end < 0) {
            this.keepPartialLine(chunk.subarray(at), limit);
            return parts;
          }
          const line = this.takeLine(chunk.subarray(at, end), limit);
          at = end + 1;
          this.onLine(line, parts);
          break;
        }
        case 'length':
        case 'chunkData': {
          const take = Math.min(this.remaining, chunk.length - at);
          parts.push({ kind: 'body', data: chunk.subarray(at, at + take) });
          at += take;
          this.remaining -= take;
          if (this.remaining === 0) {
            if (this.state === 'length') this.finish(parts);
            else this.state = 'chunkDataEnd';
          }
          break;
        }
        case 'untilClose':
          parts.push({ kind: 'body', data: chunk.subarray(at) });
          return parts;
        case 'done':
          this.extraneous = true;
          return parts;
      }
    }
    return parts;
  }

  /** The connection closed: the end of a close-delimited body, else an incomplete response. */
  close(): ResponsePart[] {
    if (this.state === 'untilClose') {
      this.state = 'done';
      return [{ kind: 'end' }];
    }
    return [];
  }

  /** True once the final status line and headers have been read. */
  get headRead(): boolean {
    return this.state !== 'status' && this.state !== 'headers';
  }

  private keepPartialLine(bytes: Uint8Array, limit: number): void {
    this.partialLine.push(bytes);
    this.partialLineBytes += bytes.length;
    // The head's bound counts the whole head; a chunk-size line's counts that line alone.
    if (this.partialLineBytes + (this.headRead ? 0 : this.headBytes) > limit) throw new HttpProtocolError(this.headRead ? 'a chunk-size line is too long' : 'the response head is larger than 64 KB');
  }

  private takeLine(bytes: Uint8Array, limit: number): string {
    let whole = bytes;
    if (this.partialLine.length > 0) {
      whole = Buffer.concat([...this.partialLine, bytes]);
      this.partialLine = [];
      this.partialLineBytes = 0;
    }
    if (!this.headRead) {
      this.headBytes += whole.length + 1;
      if (this.headBytes > limit) throw new HttpProtocolError('the response head is larger than 64 KB');
    } else if (whole.length > limit) {
      throw new HttpProtocolError('a chunk-size line is too long');
    }
    const text = Buffer.from(whole.buffer, whole.byteOffset, whole.length).toString('latin1');
    return text.endsWith('\r') ? text.slice(0, -1) : text;
  }

  private onLine(line: string, parts: ResponsePart[]): void {
    switch (this.state) {
      case 'status': {
        if (line === '' && this.headBytes <= 2) return; // tolerated: an empty line before the status line
        const match = /^HTTP\/(1\.[01]) (\d{3})(?: .*)?$/.exec(line);
        if (!match) throw new HttpProtocolError(`not an HTTP/1.1 status line: ${JSON.stringify(line.slice(0, 80))}`);
        this.version = match[1]!;
        this.status = Number(match[2]);
        this.state = 'headers';
        return;
      }
      case 'headers':
        if (line === '') return this.onHeadEnd(parts);
        if (line.startsWith(' ') || line.startsWith('\t')) {
          // Obsolete line folding: a continuation of the previous header's value.
          if (this.lastHeader === undefined) throw new HttpProtocolError('a folded header line without a header');
          this.headers.set(this.lastHeader, `${this.headers.get(this.lastHeader)} ${line.trim()}`);
          return;
        }
        return this.onHeaderLine(line);
      case 'chunkSize': {
        const size = /^([0-9a-fA-F]{1,12})[ \t]*(?:;.*)?$/.exec(line);
        if (!size) throw new HttpProtocolError(`not a chunk size: ${JSON.stringify(line.slice(0, 40))}`);
        this.remaining = parseInt(size[1]!, 16);
        this.state = this.remaining === 0 ? 'trailers' : 'chunkData';
        return;
      }
      case 'chunkDataEnd':
        if (line !== '') throw new HttpProtocolError('a chunk is longer than its stated size');
        this.state = 'chunkSize';
        return;
      case 'trailers':
        if (line === '') this.finish(parts);
        return;
    }
  }

  private onHeaderLine(line: string): void {
    const colon = line.indexOf(':');
    if (colon <= 0) throw new HttpProtocolError(`not a header line: ${JSON.stringify(line.slice(0, 80))}`);
    const name = line.slice(0, colon).toLowerCase();
    if (!/^[!#$%&'*+\-.^_`|~0-9a-z]+$/.test(name)) throw new HttpProtocolError(`not a header name: ${JSON.stringify(name.slice(0, 40))}`);
    const value = line.slice(colon + 1).trim();
    const earlier = this.headers.get(name);
    this.headers.set(name, earlier === undefined ? value : `${earlier}, ${value}`);
    this.lastHeader = name;
  }

  private onHeadEnd(parts: ResponsePart[]): void {
    const status = this.status;
    const headers = this.headers;
    this.headers = new Map();
    this.lastHeader = undefined;
    if (status >= 100 && status < 200) {
      if (status === 101) throw new HttpProtocolError('the server switched protocols, which was not asked for');
      this.state = 'status'; // interim response (100 Continue, 103 Early Hints): the real one follows
      this.headBytes = 0;
      return;
    }
    const connection = (headers.get('connection') ?? '').toLowerCase();
    let keepAlive = this.version === '1.1' ? !/\bclose\b/.test(connection) : /\bkeep-alive\b/.test(connection);
    const transferEncoding = headers.get('transfer-encoding');
    const contentLength = headers.get('content-length');
    if (status === 204 || status === 304) {
      this.state = 'done';
    } else if (transferEncoding !== undefined) {
      // The last coding decides: chunked is self-delimiting, anything else runs until the close.
      if (/(^|,)\s*chunked\s*$/i.test(transferEncoding)) this.state = 'chunkSize';
      else this.state = 'untilClose';
    } else if (contentLength !== undefined) {
      const values = new Set(contentLength.split(',').map((v) => v.trim()));
      const [only] = values;
      if (values.size !== 1 || !/^\d{1,15}$/.test(only!)) throw new HttpProtocolError(`not a content length: ${JSON.stringify(contentLength.slice(0, 40))}`);
      this.remaining = Number(only);
      this.state = this.remaining === 0 ? 'done' : 'length';
    } else {
      this.state = 'untilClose';
    }
    if (this.state === 'untilClose') keepAlive = false;
    parts.push({ kind: 'head', status, headers, keepAlive });
    if (this.state === 'done') parts.push({ kind: 'end' });
  }

  private finish(parts: ResponsePart[]): void {
    this.state = 'done';
    parts.push({ kind: 'end' });
  }
}
