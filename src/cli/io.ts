/** Where CLI commands write, and the signal that Ctrl-C raises; tests pass their own. */
export interface CliIO {
  stdout(text: string): void;
  stderr(text: string): void;
  /** Aborts on SIGINT/SIGTERM (long commands stop cleanly and keep what they finished). */
  interrupted(): AbortSignal;
}

let interruption: AbortController | undefined;

export const processIO: CliIO = {
  stdout: (text) => void process.stdout.write(text),
  stderr: (text) => void process.stderr.write(text),
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
