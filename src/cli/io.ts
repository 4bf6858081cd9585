import { scrubSecrets } from '../core/endpoint/secrets';

/** Where CLI commands write, and the signal that Ctrl-C raises; tests pass their own. */
export interface CliIO {
  stdout(text: string): void;
  stderr(text: string): void;
  /** Aborts on SIGINT/SIGTERM (long commands stop cleanly and keep what they finished). */
  interrupted(): AbortSignal;
}

let interruption: AbortController | undefined;

export const processIO: CliIO = {
  // Nothing the CLI prints carries a credential, whatever a server echoed into it.
  stdout: (text) => void process.stdout.write(scrubSecrets(text)),
  stderr: (text) => void process.stderr.write(scrubSecrets(text)),
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
