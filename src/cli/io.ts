import { scrubSecrets } from '../core/endpoint/secrets';

/** Where CLI commands write, and the signal that Ctrl-C raises; tests pass their own. */
export interface CliIO {
  stdout(text: string): void;
  stderr(text: string): void;
  /** Aborts on SIGINT/SIGTERM (long commands stop cleanly and keep what they finished). */
  interrupted(): AbortSignal;
}

let interruption: AbortController | undefined;
/** Streams whose reader has gone (`prompt-insight export | head`): nothing more is written to them. */
const closed = new Set<NodeJS.WriteStream>();

function write(stream: NodeJS.WriteStream, text: string): void {
  if (!closed.has(stream)) stream.write(scrubSecrets(text));
}

/**
 * A reader that stops reading early (`export | head`, `tokens … | grep -m1`) closes the pipe: the
 * next write fails with EPIPE, which unhandled ends the process with a stack trace. The binary
 * (main.ts) calls this once: output to a closed pipe is dropped and the command ends as it would
 * have, with its own exit code (so `tokens --budget N … | head` still fails the build when over).
 */
export function dropOutputToClosedPipes(): void {
  for (const stream of [process.stdout, process.stderr]) {
    stream.on('error', (error: NodeJS.ErrnoException) => {
      if (error.code !== 'EPIPE' && error.code !== 'ERR_STREAM_DESTROYED') throw error;
      closed.add(stream);
    });
  }
}

export const processIO: CliIO = {
  // Nothing the CLI prints carries a credential, whatever a server echoed into it.
  stdout: (text) => write(process.stdout, text),
  stderr: (text) => write(process.stderr, text),
  interrupted() {
    if (!interruption) {
      const controller = new AbortController();
      interruption = controller;
      const stop = (): void => controller.abort();
      process.once('SIGINT', stop);
      process.once('SIGTERM', stop);
    }
    return interruption.signal;
  },
};
