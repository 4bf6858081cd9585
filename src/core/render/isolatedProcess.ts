/**
 * Starts a script in a separate Node process locked down for running code we do not trust, and
 * talks to it one request at a time over bounded frames (frames.ts).
 *
 * The process gets:
 *  - Node's permission model where the runtime accepts it (`--permission` on Node ≥ 22.13,
 *    `--experimental-permission` on Node 20, chosen from `process.allowedNodeEnvironmentFlags`):
 *    no child processes, no workers, no native addons, no WASI, no inspector, no file writes, and
 *    file reads of its own script only;
 *  - `--disallow-code-generation-from-strings` unless it must compile (Handlebars);
 *  - a V8 heap limit, a deadline per request (then it is killed), a cap on the size of each reply;
 *  - an empty environment (API keys live in environment variables), except ELECTRON_RUN_AS_NODE,
 *    which VS Code's Electron needs to run as Node (and SYSTEMROOT on Windows);
 *  - its own hardening once loaded (hardenProcess.ts), reported in its "ready" message.
 * Where the runtime refuses the permission flag (exit before "ready"), the same process is started
 * without it — hardening only — and the report says why.
 *
 * Each instance settles only its own requests: a late exit of a stopped process can never fail a
 * request sent to its successor.
 */
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { dirname } from 'node:path';
import { ownChild } from '../workers/ownChildren';
import type { EngineProcessMessage, ProcessIsolation } from './engineProcess';
import { encodeFrame, FrameReader } from './frames';

export interface SpawnIsolatedOptions {
  heapMb: number;
  /** `eval`/`new Function` allowed (Handlebars); off adds `--disallow-code-generation-from-strings`. */
  codeGeneration: boolean;
  /** A reply frame longer than this is refused and the process stopped. */
  maxReplyBytes: number;
  startTimeoutMs?: number;
  /** The flags the runtime accepts; decides which permission flag is used (default: this runtime's). */
  allowedNodeFlags?: ReadonlySet<string>;
  /** The runtime to start (default: this process's, `process.execPath`: Node, or Electron as Node in VS Code). */
  runtime?: string;
}

export type IsolationMode = 'permission-model' | 'hardened-process';

export interface IsolationReport {
  mode: IsolationMode;
  process: ProcessIsolation;
  /** Why the permission model is not in use, when it is not. */
  withoutPermissionBecause?: string;
}

export type FailureKind = 'deadline' | 'memory' | 'exited' | 'oversize' | 'malformed' | 'start';
export type CallOutcome = { ok: true; value: unknown } | { ok: false; kind: FailureKind; detail: string };

const DEFAULT_START_TIMEOUT_MS = 10_000;
const STDERR_TAIL_BYTES = 8 * 1024;
const START_TIMEOUT_PREFIX = 'it did not start within';

/** Set once a runtime has refused the permission flag, so restarts do not try it again. */
let permissionRefusedBecause: string | undefined;

export function permissionFlag(allowed: ReadonlySet<string>): string | undefined {
  if (allowed.has('--permission')) return '--permission';
  if (allowed.has('--experimental-permission')) return '--experimental-permission';
  return undefined;
}

export function spawnIsolated(script: string, options: SpawnIsolatedOptions): IsolatedProcess {
  return new IsolatedProcess(script, options);
}

interface Running {
  child: ChildProcessWithoutNullStreams;
  stderrTail: string;
}

export class IsolatedProcess {
  readonly ready: Promise<IsolationReport>;
  private running: Running | undefined;
  private stoppedFlag = false;
  /** stop() was called (a process that exited on its own is stopped too, but may be restarted without the permission flag). */
  private stopRequested = false;
  private inFlight: { id: number; settle: (outcome: CallOutcome) => void; timer?: NodeJS.Timeout } | undefined;
  private nextId = 1;

  constructor(private readonly script: string, private readonly options: SpawnIsolatedOptions) {
    this.ready = this.start();
    this.ready.catch(() => undefined); // observed by call(); a failed start must not be an unhandled rejection
  }

  get stopped(): boolean {
    return this.stoppedFlag;
  }

  /** Sends one message and waits for its answer, at most `deadlineMs` once the process is ready. */
  async call(message: unknown, deadlineMs: number): Promise<CallOutcome> {
    if (this.inFlight) throw new Error('IsolatedProcess.call: one request at a time');
    const settled = new Promise<CallOutcome>((resolve) => {
      this.inFlight = { id: this.nextId++, settle: resolve };
    });
    const current = this.inFlight!;
    this.refPipes(true);
    try {
      await this.ready;
    } catch (error) {
      this.finish(current, { ok: false, kind: 'start', detail: (error as Error).message });
      return settled;
    }
    const running = this.running;
    if (this.stoppedFlag || !running) {
      this.finish(current, { ok: false, kind: 'exited', detail: 'the process had stopped' });
      return settled;
    }
    current.timer = setTimeout(() => {
      this.finish(current, { ok: false, kind: 'deadline', detail: `no answer within ${deadlineMs} ms` });
      this.stop();
    }, deadlineMs);
    running.child.stdin.write(encodeFrame({ id: current.id, request: message }));
    return settled;
  }

  stop(): void {
    if (this.stoppedFlag && this.stopRequested) return;
    this.stopRequested = true;
    this.stoppedFlag = true;
    this.running?.child.kill('SIGKILL');
  }

  private finish(call: NonNullable<IsolatedProcess['inFlight']>, outcome: CallOutcome): void {
    if (this.inFlight !== call) return;
    this.inFlight = undefined;
    clearTimeout(call.timer);
    this.refPipes(false);
    call.settle(outcome);
  }

  /** The child and its pipes keep the parent alive only while a request waits (an idle render process never holds a CLI open). */
  private refPipes(on: boolean): void {
    const child = this.running?.child;
    if (!child) return;
    for (const handle of [child, child.stdout, child.stderr, child.stdin] as unknown as { ref?: () => void; unref?: () => void }[]) (on ? handle.ref : handle.unref)?.call(handle);
  }

  private async start(): Promise<IsolationReport> {
    const flag = permissionRefusedBecause === undefined ? permissionFlag(this.options.allowedNodeFlags ?? process.allowedNodeEnvironmentFlags) : undefined;
    if (flag) {
      let isolation: ProcessIsolation | undefined;
      try {
        isolation = await this.launch([flag, `--allow-fs-read=${this.script}`]);
      } catch (error) {
        // Only a runtime that exits at once on the flag refused it; a slow start is not a reason to drop the permission model.
        if (this.stopRequested || (error as Error).message.startsWith(START_TIMEOUT_PREFIX)) throw error;
        permissionRefusedBecause = `the runtime refused ${flag} (${(error as Error).message})`;
        this.stoppedFlag = false; // the first child exited; its successor below is this instance's process
      }
      if (isolation?.permission) return { mode: 'permission-model', process: isolation };
      // Accepted but inert (Electron's utility processes parse no permission flags): hardening is what holds.
      if (isolation) return { mode: 'hardened-process', process: isolation, withoutPermissionBecause: `the runtime accepted ${flag} but did not turn the permission model on (no process.permission)` };
    }
    const isolation = await this.launch([]);
    const because = permissionRefusedBecause ?? 'this runtime has no permission flag (process.allowedNodeEnvironmentFlags)';
    return { mode: isolation.permission ? 'permission-model' : 'hardened-process', process: isolation, withoutPermissionBecause: because };
  }

  /** Starts the child and resolves with its "ready" report; rejects if it exits or stays silent first. */
  private launch(permissionFlags: string[]): Promise<ProcessIsolation> {
    const flags = [...permissionFlags, `--max-old-space-size=${this.options.heapMb}`, ...(this.options.codeGeneration ? [] : ['--disallow-code-generation-from-strings'])];
    const child = spawn(this.options.runtime ?? process.execPath, [...flags, this.script], {
      cwd: dirname(this.script),
      env: childEnvironment(),
      stdio: ['pipe', 'pipe', 'pipe'],
      windowsHide: true,
    });
    ownChild(child);
    const running: Running = { child, stderrTail: '' };
    this.running = running;
    return new Promise<ProcessIsolation>((resolve, reject) => {
      let ready = false;
      const startTimer = setTimeout(() => {
        reject(new Error(`${START_TIMEOUT_PREFIX} ${this.options.startTimeoutMs ?? DEFAULT_START_TIMEOUT_MS} ms`));
        child.kill('SIGKILL');
      }, this.options.startTimeoutMs ?? DEFAULT_START_TIMEOUT_MS);
      startTimer.unref();
      // Before "ready" a failure only rejects the start: the waiting call reports that, or is served by
      // the process start() retries without the permission flag. Settling the call here (as before) left
      // it waiting for that retry with nothing keeping the new process referenced: the first Dotprompt
      // render failed, and a worker thread ended with the call unanswered.
      const fail = (kind: FailureKind, detail: string): void => {
        if (this.running === running) this.stoppedFlag = true;
        child.kill('SIGKILL');
        if (!ready) reject(new Error(detail));
        else if (this.inFlight && this.running === running) this.finish(this.inFlight, { ok: false, kind, detail });
      };
      const reader = new FrameReader(
        this.options.maxReplyBytes,
        (message) => {
          const frame = message as Partial<EngineProcessMessage> | null;
          if (!ready) {
            if (frame && typeof frame === 'object' && 'ready' in frame && frame.ready && typeof frame.ready === 'object') {
              ready = true;
              clearTimeout(startTimer);
              this.refPipes(this.inFlight !== undefined);
              resolve(frame.ready);
            } else fail('malformed', 'its first message was not "ready"');
            return;
          }
          if (!frame || typeof frame !== 'object' || !('id' in frame) || typeof frame.id !== 'number' || !('answer' in frame)) return fail('malformed', 'it sent a message that is not an answer');
          if (this.inFlight?.id === frame.id && this.running === running) this.finish(this.inFlight, { ok: true, value: frame.answer });
        },
        (problem) => fail(problem.kind, problem.kind === 'oversize' ? `an answer of ${problem.bytes} bytes (limit ${this.options.maxReplyBytes})` : problem.detail),
      );
      child.stdout.on('data', (chunk: Buffer) => reader.push(chunk));
      child.stderr.on('data', (chunk: Buffer) => {
        running.stderrTail = (running.stderrTail + chunk.toString('utf8')).slice(-STDERR_TAIL_BYTES);
      });
      child.stdin.on('error', () => undefined); // EPIPE after the child died: its exit reports it
      child.on('error', (error) => {
        clearTimeout(startTimer);
        if (!ready) reject(new Error(error.message));
        fail('exited', error.message);
      });
      child.on('exit', (code, signal) => {
        clearTimeout(startTimer);
        if (this.running === running) this.stoppedFlag = true;
        const why = exitDescription(code, signal, running.stderrTail);
        if (!ready) reject(new Error(why));
        else if (this.inFlight && this.running === running) this.finish(this.inFlight, { ok: false, kind: /heap|allocation failed/i.test(running.stderrTail) ? 'memory' : 'exited', detail: why });
      });
      if (!this.inFlight) this.refPipes(false);
    });
  }
}

function childEnvironment(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  if (process.env.ELECTRON_RUN_AS_NODE !== undefined) env.ELECTRON_RUN_AS_NODE = process.env.ELECTRON_RUN_AS_NODE;
  if (process.platform === 'win32' && process.env.SYSTEMROOT) env.SYSTEMROOT = process.env.SYSTEMROOT;
  return env;
}

function exitDescription(code: number | null, signal: NodeJS.Signals | null, stderrTail: string): string {
  const lastLine = stderrTail
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line && !/ExperimentalWarning|--trace-warnings/.test(line))
    .at(-1);
  return `${signal ? `signal ${signal}` : `exit code ${code}`}${lastLine ? `: ${lastLine.slice(0, 200)}` : ''}`;
}
