/**
 * Runs git on repositories we do not trust: no shell, an argument array, stdin closed, bounded
 * output, a time limit, killed on cancel, and configuration that could run a program neutralised.
 *
 * A repository's own `.git/config` is attacker-controlled (it arrives with a cloned or unpacked
 * repository). Settings that make git run a program — gpg for signatures shown by log, the
 * fsmonitor hook, hooks, pagers, external diff and textconv drivers — are overridden on the command
 * line, which wins over every configuration file; the system file and inherited GIT_* variables that
 * redirect git (GIT_DIR, GIT_CONFIG_*, GIT_EXEC_PATH, GIT_SSH_COMMAND, …) are dropped.
 */
import { spawn } from 'node:child_process';
import { ownChild } from '../workers/ownChildren';

export class GitError extends Error {
  constructor(
    readonly kind: 'not-a-repo' | 'untracked' | 'bad-revision' | 'git-missing' | 'timeout' | 'cancelled' | 'failed',
    message: string,
  ) {
    super(message);
  }
}

/** A git call that was stopped (time limit, cancel) rather than answered: callers pass it on, never read it as "no". */
export function isGitStop(error: unknown): error is GitError {
  return error instanceof GitError && (error.kind === 'timeout' || error.kind === 'cancelled');
}

const MAX_OUTPUT_BYTES = 256 * 1024 * 1024;
const DEFAULT_TIMEOUT_MS = 30_000;

/** `-c` overrides that keep git from running programs named by the repository's configuration. */
export const SAFE_CONFIG_ARGS: readonly string[] = [
  '-c', 'log.showSignature=false',
  '-c', 'gpg.program=false',
  '-c', 'gpg.ssh.program=false',
  '-c', 'gpg.x509.program=false',
  '-c', 'core.fsmonitor=false',
  '-c', 'core.untrackedCache=false',
  '-c', 'core.hooksPath=/dev/null',
  '-c', 'core.pager=cat',
  '-c', 'core.sshCommand=false',
  '-c', 'core.gitProxy=',
  '-c', 'core.askPass=',
  '-c', 'credential.helper=',
  '-c', 'diff.external=',
  '-c', 'protocol.allow=never',
  '-c', 'safe.bareRepository=explicit',
];

/**
 * No transport at all, whatever the repository's configuration says: `protocol.allow=never` above is
 * beaten by a repository's own `protocol.ext.allow=always`, and a partial clone whose promisor remote
 * is `ext::sh -c …` would run it on the first missing object. This variable overrides every
 * `protocol.*` setting. A fetch the user allowed names its transports (fetchRevision.ts).
 */
const NO_TRANSPORTS = '';

/** The environment git runs in: the caller's, less every GIT_* variable, plus our fixed ones. */
export function gitEnvironment(base: NodeJS.ProcessEnv = process.env, transports: readonly string[] = []): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [name, value] of Object.entries(base)) {
    if (/^GIT_/i.test(name) || name === 'PAGER' || name === 'SSH_ASKPASS' || name === 'EDITOR' || name === 'VISUAL') continue;
    env[name] = value;
  }
  return {
    ...env,
    GIT_CONFIG_NOSYSTEM: '1',
    GIT_TERMINAL_PROMPT: '0',
    GIT_OPTIONAL_LOCKS: '0',
    GIT_PAGER: 'cat',
    GIT_ASKPASS: 'false',
    GIT_NO_REPLACE_OBJECTS: '1',
    GIT_ALLOW_PROTOCOL: transports.length ? transports.join(':') : NO_TRANSPORTS,
    // The user's own ssh command (their environment, not the repository's) for an allowed ssh fetch.
    ...(transports.includes('ssh') && base.GIT_SSH_COMMAND ? { GIT_SSH_COMMAND: base.GIT_SSH_COMMAND } : {}),
    LC_ALL: 'C',
  };
}

export interface GitOptions {
  /** Sent to git's stdin, which is closed after it (or at once when absent). */
  input?: string;
  timeoutMs?: number;
  signal?: AbortSignal;
  /** Transports git may use (a fetch the user allowed); none otherwise. */
  transports?: readonly string[];
  /** More `-c` overrides, after (so over) the safe ones. */
  configArgs?: readonly string[];
}

export async function git(cwd: string, args: string[], options: GitOptions = {}): Promise<string> {
  return (await gitBytes(cwd, args, options)).toString('utf8');
}

/** How one git process ended: what it printed and its exit code (`null` when a signal ended it). */
export interface GitEnding {
  stdout: Buffer;
  stderr: string;
  code: number | null;
  signal: NodeJS.Signals | null;
}

/** Runs one git command and collects its binary output; every failure is a GitError. */
export async function gitBytes(cwd: string, args: string[], options: GitOptions = {}): Promise<Buffer> {
  const { stdout, stderr, code, signal } = await gitEnding(cwd, args, options);
  if (code === 0) return stdout;
  throw new GitError(/not a git repository/i.test(stderr) ? 'not-a-repo' : 'failed', stderr.trim() || `git ${args[0]} ${code === null ? `was ended by ${signal ?? 'a signal'}` : `exited with ${code}`}`);
}

/**
 * Runs one git command to its end, whatever that end is: the caller reads a non-zero exit or a
 * signal with what was printed before it (a batch process may answer some questions, then die).
 * Only a stop (time limit, cancel), too much output or a missing git is a GitError.
 */
export function gitEnding(cwd: string, args: string[], options: GitOptions = {}): Promise<GitEnding> {
  return new Promise((resolve, reject) => {
    if (options.signal?.aborted) return reject(new GitError('cancelled', 'Cancelled.'));
    // Its own process group, so that a stop also ends whatever git started (a hook that hangs
    // would otherwise keep the pipes, and this promise, open).
    const child = spawn('git', [...SAFE_CONFIG_ARGS, ...(options.configArgs ?? []), ...args], { cwd, stdio: ['pipe', 'pipe', 'pipe'], env: gitEnvironment(process.env, options.transports), windowsHide: true, detached: process.platform !== 'win32' });
    ownChild(child);
    const chunks: Buffer[] = [];
    let size = 0;
    let stderr = '';
    let ended: GitError | undefined;
    const stop = (error: GitError): void => {
      ended ??= error;
      try {
        if (child.pid !== undefined && process.platform !== 'win32') process.kill(-child.pid, 'SIGKILL');
        else child.kill('SIGKILL');
      } catch {
        child.kill('SIGKILL');
      }
      child.stdout.destroy();
      child.stderr.destroy();
    };
    const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    const timer = setTimeout(() => stop(new GitError('timeout', `git ${args[0]} did not finish within ${Math.round(timeoutMs / 1000)} s and was stopped (a hook or a huge repository?).`)), timeoutMs);
    const onAbort = (): void => stop(new GitError('cancelled', 'Cancelled.'));
    options.signal?.addEventListener('abort', onAbort, { once: true });
    child.stdout.on('data', (c: Buffer) => {
      size += c.length;
      if (size > MAX_OUTPUT_BYTES) stop(new GitError('failed', `git ${args[0]} printed more than ${MAX_OUTPUT_BYTES >> 20} MB; stopped.`));
      else chunks.push(c);
    });
    child.stderr.on('data', (c: Buffer) => {
      if (stderr.length < 64 * 1024) stderr += c.toString();
    });
    child.stdin.on('error', () => undefined); // git may exit before reading all input
    child.on('error', (error: NodeJS.ErrnoException) => {
      ended ??= error.code === 'ENOENT' ? new GitError('git-missing', 'git is not installed or not on PATH.') : new GitError('failed', error.message);
    });
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      options.signal?.removeEventListener('abort', onAbort);
      if (ended) return reject(ended);
      resolve({ stdout: Buffer.concat(chunks), stderr, code, signal });
    });
    child.stdin.end(options.input ?? '');
  });
}
