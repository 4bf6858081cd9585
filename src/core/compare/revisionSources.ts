/**
 * Turns revision names (commit ids, branches, `HEAD~1`, `working`, `buffer`) into the prompt text at
 * each, reading every committed revision in one `git cat-file --batch`. A revision the clone lacks
 * (CI's one-commit checkout) is fetched one commit deep when the caller allows it (`fetchMissing`),
 * else the error names the command that fetches it.
 */
import { describeReadError, PROMPT_FILE_MAX_BYTES, readPromptFile, type WorkspaceScope } from '../files/workspaceFile';
import { BUFFER_REVISION, contentsAt, fileHistory, resolveRevision, treeEntryAt, WORKING_REVISION, type FileHistory, type FileRevision } from '../history/fileHistory';
import { fileAtCommit } from '../history/commitFile';
import { fetchPlanFor, fetchRevision } from '../history/fetchRevision';
import { git, GitError, isGitStop } from '../history/git';

/** One revision of the prompt file as a comparison reads it: its text and where it came from. */
export interface RevisionSource {
  rev: string;
  /** Short name for charts: a commit's short id, 'working copy', 'unsaved buffer'. */
  label: string;
  path: string;
  text: string;
  date?: string;
  author?: string;
  subject?: string;
}

export interface RevisionSourceOptions {
  bufferText?: string;
  history?: FileHistory;
  signal?: AbortSignal;
  workspaceFolders?: readonly string[];
  /** Fetch a revision the clone lacks from this remote (the user allowed network fetches). */
  fetchMissing?: { remote: string };
}

export async function loadRevisionSources(file: string, revs: readonly string[], options: RevisionSourceOptions = {}): Promise<{ sources: RevisionSource[]; history?: FileHistory }> {
  const needsGit = revs.some((r) => r !== WORKING_REVISION && r !== BUFFER_REVISION);
  const call = options.signal ? { signal: options.signal } : {};
  const history = options.history ?? (needsGit ? await fileHistory(file, call) : undefined);
  const committed: { index: number; revision: FileRevision }[] = [];
  const sources: (RevisionSource | undefined)[] = new Array(revs.length);
  for (const [index, rev] of revs.entries()) {
    if (rev === WORKING_REVISION) {
      sources[index] = { rev, label: 'working copy', path: history?.path ?? file, text: await readWorking(file, options.workspaceFolders ? { workspaceFolders: options.workspaceFolders } : {}) };
    } else if (rev === BUFFER_REVISION) {
      if (options.bufferText === undefined) throw new GitError('bad-revision', 'There is no unsaved editor buffer to compare.');
      sources[index] = { rev, label: 'unsaved buffer', path: history?.path ?? file, text: options.bufferText };
    } else {
      const id = await resolveCommitted(history!, rev, options);
      const revision = await revisionAt(history!, id, call);
      if (revision.deleted) throw new GitError('bad-revision', `${history!.path} was deleted at ${id.slice(0, 8)} (${revision.subject}); pick an earlier revision.`);
      await checkCommittedPrompt(history!.repoRoot, revision, call);
      committed.push({ index, revision });
    }
  }
  const contents = await contentsAt(history?.repoRoot ?? '.', committed.map((c) => c.revision), call);
  committed.forEach(({ index, revision }, i) => {
    const content = contents[i]!;
    if (!content.ok) throw new GitError('bad-revision', content.reason);
    sources[index] = { rev: revision.rev, label: revision.rev.slice(0, 7), path: revision.path, text: content.text, date: revision.date, author: revision.author, subject: revision.subject };
  });
  return { sources: sources as RevisionSource[], ...(history ? { history } : {}) };
}

/** The working copy, read as any file a repository names: a regular file inside its workspace, capped. */
async function readWorking(file: string, scope: WorkspaceScope): Promise<string> {
  try {
    return (await readPromptFile(file, scope)).toString('utf8');
  } catch (error) {
    throw new GitError('bad-revision', `The working copy of ${file} cannot be read: ${describeReadError(error)}`);
  }
}

/** A committed prompt file is read only as a regular file under the prompt-file cap: a committed link is not followed. */
async function checkCommittedPrompt(repoRoot: string, revision: FileRevision, call: { signal?: AbortSignal }): Promise<void> {
  const entry = await treeEntryAt(repoRoot, revision.rev, revision.path, call);
  const at = `${revision.path} at ${revision.rev.slice(0, 8)}`;
  if (entry.kind === 'file' && entry.size > PROMPT_FILE_MAX_BYTES) throw new GitError('bad-revision', `${at} is ${entry.size} bytes, over the ${PROMPT_FILE_MAX_BYTES}-byte limit for prompt files; it is not read.`);
  if (entry.kind !== 'file' && entry.kind !== 'missing') throw new GitError('bad-revision', `${at} is a ${entry.kind === 'link' ? 'symbolic link' : entry.kind}, not a regular file; it is not read.`);
}

/** A revision name → commit id; a name the clone lacks is fetched (when allowed) or named in the command that fetches it. */
async function resolveCommitted(history: FileHistory, rev: string, options: RevisionSourceOptions): Promise<string> {
  const call = options.signal ? { signal: options.signal } : {};
  try {
    return await resolveRevision(history.repoRoot, rev, call);
  } catch (error) {
    if (!(error instanceof GitError) || error.kind !== 'bad-revision') throw error;
    const remote = options.fetchMissing?.remote ?? 'origin';
    const plan = fetchPlanFor(rev, remote, history.shallow);
    const clone = history.shallow ? 'this shallow clone' : 'this repository';
    if (!plan) throw history.shallow ? new GitError('bad-revision', `'${rev}' is not in ${clone} (its older history was not fetched). Give the revision as a full commit id or a branch of ${remote}, which compare can fetch (--fetch), or fetch more history: \`git fetch --deepen=50 ${remote}\`.`) : error;
    if (!options.fetchMissing) {
      if (history.shallow) throw new GitError('bad-revision', `'${rev}' is not in ${clone}. Fetch it with \`${plan.command}\`, or let compare fetch it (--fetch).`);
      // A full clone lacks it: most often a typo, unless the remote has it.
      if (!(await hasRemote(history.repoRoot, remote, call))) throw error;
      throw new GitError('bad-revision', `'${rev}' is not a commit in ${clone}. If ${remote} has it, fetch it with \`${plan.command}\`, or let compare fetch it (--fetch).`);
    }
    await fetchRevision(history.repoRoot, plan, { shallow: history.shallow, ...call });
    return resolveRevision(history.repoRoot, plan.resolvesAs, call);
  }
}

async function hasRemote(repoRoot: string, remote: string, call: { signal?: AbortSignal }): Promise<boolean> {
  return git(repoRoot, ['config', '--get', `remote.${remote}.url`], call).then(
    (url) => url.trim() !== '',
    (error: unknown) => {
      if (isGitStop(error)) throw error;
      return false;
    },
  );
}

/**
 * The file as of commit `id`: its own history entry, else the newest entry that is an ancestor of
 * it, else the commit's own tree (a shallow clone's fetched base is no ancestor of anything).
 */
async function revisionAt(history: FileHistory, id: string, call: { signal?: AbortSignal }): Promise<FileRevision> {
  const exact = history.revisions.find((r) => r.rev === id);
  if (exact) return exact;
  for (const candidate of history.revisions.slice(0, 500)) {
    const isAncestor = await git(history.repoRoot, ['merge-base', '--is-ancestor', candidate.rev, id], call).then(
      () => true,
      (error: unknown) => {
        if (isGitStop(error)) throw error;
        return false;
      },
    );
    if (isAncestor) return { ...candidate, rev: id };
  }
  const direct = await fileAtCommit(history.repoRoot, id, history.path, call);
  if (direct) return direct;
  throw new GitError('bad-revision', `${history.path} has no version at ${id.slice(0, 8)}: the commit has no such file (it did not exist yet, or it was renamed in a way git cannot follow).`);
}
