/**
 * The base's side of a release: the revision a gate reads what the change must not choose for itself (the
 * version table that names the baseline). It is the revision the user names, else the branch being released
 * into, as the clone's own refs say it — HEAD's upstream branch, else the remote's default branch
 * (refs/remotes/origin/HEAD). Refs never arrive with the change's files, so the change cannot move them.
 */
import { git, isGitStop } from './git';
import { resolveRevision, type GitCallOptions } from './fileHistory';

export interface NamedRevision {
  /** As the user named it, or the branch's short name (`origin/main`). */
  name: string;
  /** Full commit id. */
  commit: string;
}

/** A revision the user named, resolved to its commit (a GitError 'bad-revision' when it is none). */
export async function namedRevision(repoRoot: string, name: string, options: GitCallOptions = {}): Promise<NamedRevision> {
  return { name, commit: await resolveRevision(repoRoot, name, options) };
}

/** HEAD's upstream branch, else origin/HEAD; null when the clone has neither (a detached checkout of a bare fetch). */
export async function releaseBranch(repoRoot: string, options: GitCallOptions = {}): Promise<NamedRevision | null> {
  const asks = [
    ['rev-parse', '--abbrev-ref', '--symbolic-full-name', '@{upstream}'],
    ['symbolic-ref', '--quiet', '--short', 'refs/remotes/origin/HEAD'],
  ];
  for (const ask of asks) {
    const name = await git(repoRoot, ask, options).then(
      (out) => out.trim(),
      (error: unknown) => {
        if (isGitStop(error)) throw error;
        return '';
      },
    );
    if (name) return namedRevision(repoRoot, name, options);
  }
  return null;
}
