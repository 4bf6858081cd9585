/** Runs git without a shell: execFile with an argument array, bounded output, one error type. */
import { execFile, spawn } from 'node:child_process';

export class GitError extends Error {
  constructor(
    readonly kind: 'not-a-repo' | 'untracked' | 'bad-revision' | 'git-missing' | 'failed',
    message: string,
  ) {
    super(message);
  }
}

const MAX_OUTPUT_BYTES = 256 * 1024 * 1024;

export function git(cwd: string, args: string[]): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile('git', args, { cwd, maxBuffer: MAX_OUTPUT_BYTES, encoding: 'utf8', env: { ...process.env, GIT_TERMINAL_PROMPT: '0', GIT_OPTIONAL_LOCKS: '0' } }, (error, stdout, stderr) => {
      if (!error) return resolve(stdout);
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return reject(new GitError('git-missing', 'git is not installed or not on PATH.'));
      reject(new GitError(/not a git repository/i.test(stderr) ? 'not-a-repo' : 'failed', stderr.trim() || error.message));
    });
  });
}

/** Feeds `input` to a long-running git command and collects its binary output. */
export function gitWithInput(cwd: string, args: string[], input: string): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const child = spawn('git', args, { cwd, stdio: ['pipe', 'pipe', 'pipe'], env: { ...process.env, GIT_TERMINAL_PROMPT: '0', GIT_OPTIONAL_LOCKS: '0' } });
    const chunks: Buffer[] = [];
    let size = 0;
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => {
      size += c.length;
      if (size > MAX_OUTPUT_BYTES) child.kill();
      else chunks.push(c);
    });
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    child.on('error', (error: NodeJS.ErrnoException) => reject(error.code === 'ENOENT' ? new GitError('git-missing', 'git is not installed or not on PATH.') : error));
    child.on('close', (code) => (code === 0 ? resolve(Buffer.concat(chunks)) : reject(new GitError('failed', stderr.trim() || `git exited with ${code}`))));
    child.stdin.end(input);
  });
}
