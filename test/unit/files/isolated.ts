/**
 * Runs a snippet that imports the project's modules in a child process with a timeout, so that a read
 * that blocks (a FIFO opened without O_NONBLOCK) fails its test instead of hanging the suite.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildSync } from 'esbuild';

export interface IsolatedResult {
  status: number | null;
  stdout: string;
  stderr: string;
  timedOut: boolean;
  ms: number;
}

/** `source` is TypeScript; imports are resolved from the project root. Its stdout is returned. */
export function runIsolated(source: string, timeoutMs = 10_000): IsolatedResult {
  const built = buildSync({ stdin: { contents: source, resolveDir: process.cwd(), loader: 'ts' }, bundle: true, platform: 'node', format: 'cjs', target: 'node20', write: false, logLevel: 'silent' });
  const file = join(mkdtempSync(join(tmpdir(), 'pi-isolated-')), 'snippet.cjs');
  writeFileSync(file, built.outputFiles[0]!.text);
  const started = performance.now();
  const child = spawnSync(process.execPath, [file], { timeout: timeoutMs, killSignal: 'SIGKILL', encoding: 'utf8' });
  const ms = performance.now() - started;
  return { status: child.status, stdout: child.stdout, stderr: child.stderr, timedOut: child.signal === 'SIGKILL' || (child.error as NodeJS.ErrnoException | undefined)?.code === 'ETIMEDOUT', ms };
}
