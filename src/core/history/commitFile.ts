/**
 * The file as of a commit that its `git log --follow` does not reach — in a shallow clone (CI checks
 * out one commit, then fetches the base one commit deep) the base is a separate root, no ancestor of
 * anything in the file's history. Read from the commit itself: its tree (`ls-tree`), and, when the
 * path is not in it, the name the file had there (a rename between that commit and HEAD, found by
 * comparing the two trees, which both are in the clone).
 */
import { git } from './git';
import { printable, treeEntryAt, type FileRevision, type GitCallOptions } from './fileHistory';

/** The file at `id` under its current path or its name before a rename; undefined when neither is there. */
export async function fileAtCommit(repoRoot: string, id: string, path: string, options: GitCallOptions = {}): Promise<FileRevision | undefined> {
  const entry = await treeEntryAt(repoRoot, id, path, options);
  const pathThere = entry.kind !== 'missing' ? path : await renamedFrom(repoRoot, id, path, options);
  if (!pathThere) return undefined;
  return { ...(await commitFacts(repoRoot, id, options)), path: pathThere };
}

/** Date, author and subject of one commit (`log -1`: no signature check, no decoration). */
async function commitFacts(repoRoot: string, id: string, options: GitCallOptions): Promise<Omit<FileRevision, 'path'>> {
  const [rev = id, date = '', author = '', parents = '', subject = ''] = (await git(repoRoot, ['log', '-1', '-z', '--no-show-signature', '--no-color', '--format=%H%x00%aI%x00%an%x00%P%x00%s', id, '--'], options)).split('\0');
  return { rev, date, author: printable(author), subject: printable(subject), ...(parents.includes(' ') ? { merge: true as const } : {}) };
}

/** The path `path` had at `id`, when the file was renamed (or copied) between `id` and HEAD. */
async function renamedFrom(repoRoot: string, id: string, path: string, options: GitCallOptions): Promise<string | undefined> {
  const tokens = (await git(repoRoot, ['diff-tree', '-r', '-z', '-M', '--name-status', '--no-ext-diff', '--no-textconv', id, 'HEAD', '--'], options)).split('\0');
  for (let i = 0; i < tokens.length; i++) {
    const status = tokens[i]!;
    if (/^[RC]\d*$/.test(status)) {
      if (tokens[i + 2] === path) return tokens[i + 1];
      i += 2;
    } else if (/^[ADMTU]$/.test(status)) i += 1;
  }
  return undefined;
}
