/** Whether the working copy of a tracked file differs from the file at HEAD (staged or not). */
import { GitError, gitEnding } from './git';
import type { GitCallOptions } from './fileHistory';

/**
 * `git diff --quiet HEAD` on the one path: exit 1 means it differs. Read-only (no index refresh is
 * written), no external diff or text conversion; any other ending is git's message as a GitError.
 */
export async function differsFromHead(repoRoot: string, path: string, options: GitCallOptions = {}): Promise<boolean> {
  const ending = await gitEnding(repoRoot, ['diff', '--quiet', '--no-ext-diff', '--no-textconv', 'HEAD', '--', `:(literal)${path}`], options);
  if (ending.code === 0) return false;
  if (ending.code === 1) return true;
  throw new GitError('failed', ending.stderr.trim() || `git diff exited with ${ending.code ?? ending.signal ?? 'a signal'}`);
}
