/**
 * `gen_ai.prompt.version` for a run of the file as it is on disk: the last commit that touched the file,
 * when the file is tracked and unchanged since (so the text sent is that commit's); undefined otherwise
 * (not a repository, untracked, modified, git missing or slow), and the content hash is used instead.
 */
import { basename, dirname, resolve } from 'node:path';
import { git } from '../history/git';

export async function committedRevisionOf(file: string, options: { timeoutMs?: number } = {}): Promise<string | undefined> {
  const absolute = resolve(file);
  const cwd = dirname(absolute);
  const spec = `:(literal)${basename(absolute)}`;
  const call = { timeoutMs: options.timeoutMs ?? 5_000 };
  try {
    const [status, last] = await Promise.all([git(cwd, ['status', '--porcelain', '--untracked-files=all', '--', spec], call), git(cwd, ['log', '-1', '--format=%H', '--', spec], call)]);
    const rev = last.trim();
    return status.trim() === '' && /^[0-9a-f]{40,64}$/.test(rev) ? rev : undefined;
  } catch {
    return undefined;
  }
}
