/**
 * The body of a render process (dist/renderInterpreted.js, dist/renderHandlebars.js): load the
 * engines and render once (so every lazily loaded part is in), harden the process
 * (hardenProcess.ts), say "ready" with what isolation it runs under, then answer one framed
 * request at a time on stdin/stdout until the parent closes the pipe.
 */
import { encodeFrame, FrameReader } from './frames';
import { hardenProcess, type HardeningReport } from './hardenProcess';

/** Requests carry a template and its values (referenced files are at most 1 MB each): far below this. */
const MAX_REQUEST_BYTES = 64 * 1024 * 1024;

export interface ProcessIsolation extends HardeningReport {
  /** Node's permission model is on (no child processes, workers, addons, file writes; reads of this script only). */
  permission: boolean;
  /** `eval` and `new Function` work (Handlebars needs them; the interpreting engines' process has them off). */
  codeGeneration: boolean;
  node: string;
}

export type EngineProcessMessage = { ready: ProcessIsolation } | { id: number; answer: unknown };

export async function serveEngineProcess(answer: (request: unknown) => unknown, warmUp: () => Promise<unknown> | unknown): Promise<void> {
  // The pipes and exit, taken before hardening removes them from `process`.
  const input = process.stdin;
  const output = process.stdout;
  const exit = process.exit.bind(process);
  const send = (message: EngineProcessMessage): void => {
    output.write(encodeFrame(message));
  };
  for (const method of ['log', 'info', 'warn', 'error', 'debug', 'trace'] as const) console[method] = () => undefined;
  await warmUp();
  const permission = permissionModelActive();
  const report = hardenProcess();
  send({ ready: { ...report, permission, codeGeneration: codeGenerationAllowed(), node: process.version } });
  let queue: Promise<void> = Promise.resolve();
  const reader = new FrameReader(
    MAX_REQUEST_BYTES,
    (message) => {
      const { id, request } = message as { id: number; request: unknown };
      queue = queue.then(async () => {
        let reply: unknown;
        try {
          reply = await answer(request);
        } catch (error) {
          reply = { error: error instanceof Error ? error.message : String(error) };
        }
        send({ id, answer: reply });
      });
    },
    () => exit(2),
  );
  input.on('data', (chunk: Buffer) => reader.push(chunk));
  input.on('end', () => exit(0));
}

function permissionModelActive(): boolean {
  const permission = (process as unknown as { permission?: { has(scope: string): boolean } }).permission;
  return typeof permission?.has === 'function' && !permission.has('child');
}

function codeGenerationAllowed(): boolean {
  try {
    return new Function('return true')() === true;
  } catch {
    return false;
  }
}
