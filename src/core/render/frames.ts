/**
 * Messages between a render process and its parent over a pipe: a 4-byte big-endian length, then
 * that many bytes of JSON. The reader refuses a frame longer than its cap as soon as the length is
 * read, before buffering it: a render process is treated as possibly compromised, and what it
 * sends must not be able to grow the parent's memory without bound (Node's built-in IPC channel
 * buffers a message of any length).
 */
const HEADER_BYTES = 4;

export function encodeFrame(message: unknown): Buffer {
  const body = Buffer.from(JSON.stringify(message), 'utf8');
  const header = Buffer.alloc(HEADER_BYTES);
  header.writeUInt32BE(body.length, 0);
  return Buffer.concat([header, body]);
}

export type FrameProblem = { kind: 'oversize'; bytes: number } | { kind: 'malformed'; detail: string };

export class FrameReader {
  private chunks: Buffer[] = [];
  private buffered = 0;
  /** Length of the frame being read, once its header is in. */
  private expected: number | undefined;
  private stopped = false;

  constructor(
    private readonly maxFrameBytes: number,
    private readonly onFrame: (message: unknown) => void,
    private readonly onProblem: (problem: FrameProblem) => void,
  ) {}

  push(chunk: Buffer): void {
    if (this.stopped) return;
    this.chunks.push(chunk);
    this.buffered += chunk.length;
    while (!this.stopped) {
      if (this.expected === undefined) {
        if (this.buffered < HEADER_BYTES) return;
        const length = this.consume(HEADER_BYTES).readUInt32BE(0);
        if (length > this.maxFrameBytes) return this.stop({ kind: 'oversize', bytes: length });
        this.expected = length;
      }
      if (this.buffered < this.expected) return;
      const body = this.consume(this.expected);
      this.expected = undefined;
      let message: unknown;
      try {
        message = JSON.parse(body.toString('utf8'));
      } catch (error) {
        return this.stop({ kind: 'malformed', detail: (error as Error).message });
      }
      this.onFrame(message);
    }
  }

  private stop(problem: FrameProblem): void {
    this.stopped = true;
    this.chunks = [];
    this.buffered = 0;
    this.onProblem(problem);
  }

  /** Removes and returns the first `bytes` buffered bytes (copying only when they span chunks). */
  private consume(bytes: number): Buffer {
    const first = this.chunks[0]!;
    let out: Buffer;
    if (first.length >= bytes) {
      out = first.subarray(0, bytes);
      if (first.length === bytes) this.chunks.shift();
      else this.chunks[0] = first.subarray(bytes);
    } else {
      const pieces: Buffer[] = [];
      let needed = bytes;
      while (needed > 0) {
        const head = this.chunks[0]!;
        if (head.length <= needed) {
          pieces.push(head);
          this.chunks.shift();
          needed -= head.length;
        } else {
          pieces.push(head.subarray(0, needed));
          this.chunks[0] = head.subarray(needed);
          needed = 0;
        }
      }
      out = Buffer.concat(pieces, bytes);
    }
    this.buffered -= bytes;
    return out;
  }
}
