/**
 * A revision the clone lacks (CI checks out one commit; the pull request's base is not there):
 * fetched one commit deep when the user allows it, else named in the one command that fetches it.
 *
 * The repository's configuration chooses the remote's URL, and a hostile configuration could make a
 * fetch run programs: `remote.<name>.uploadpack` (the program a local or ssh fetch starts),
 * `core.alternateRefsCommand` (run to list an alternate's refs), `core.sshCommand`, hooks (the
 * reference-transaction hook fires when a ref is written), `ext::` transports enabled by
 * `protocol.ext.allow`, submodule recursion, automatic gc and maintenance. Each is overridden on the
 * command line or in the environment (git.ts): only https, ssh (the user's own ssh) and file
 * transports, the standard upload-pack, no hooks, no submodules, no gc; no prompt for credentials.
 */
import { git, GitError } from './git';

/** Transports a fetch may use; everything else (ext::, fd::, remote helpers) is refused. */
const FETCH_TRANSPORTS = ['https', 'ssh', 'file'] as const;
const FETCH_CONFIG = [
  '-c', 'core.sshCommand=ssh',
  '-c', 'core.alternateRefsCommand=true',
  '-c', 'gc.auto=0',
  '-c', 'maintenance.auto=false',
  '-c', 'fetch.recurseSubmodules=false',
  '-c', 'submodule.recurse=false',
  '-c', 'fetch.writeCommitGraph=false',
];
const FETCH_TIMEOUT_MS = 180_000;
const FULL_COMMIT_ID = /^(?:[0-9a-f]{40}|[0-9a-f]{64})$/;
const REMOTE_NAME = /^[A-Za-z0-9][\w.-]*$/;
const BRANCH_NAME = /^(?!.*\.\.)(?!.*\/\/)(?!.*\.lock$)[A-Za-z0-9_][\w./-]*(?<![./])$/;

/** What to fetch for a revision this clone does not have, and the command a user would run for it. */
export interface FetchPlan {
  remote: string;
  /** The fetch's refspec: a commit id, or `+refs/heads/B:refs/remotes/R/B`. */
  refspec: string;
  /** What names the fetched commit afterwards. */
  resolvesAs: string;
  /** The command, for a message (`git fetch --depth=1 origin 1a2b…`). */
  command: string;
}

/**
 * A full commit id is fetched as itself; `origin/main` (or `main`) as the remote's branch, into its
 * remote-tracking ref. Abbreviated ids and expressions (`HEAD~1`) cannot be fetched by name.
 */
export function fetchPlanFor(rev: string, remote: string, shallow: boolean): FetchPlan | undefined {
  if (!REMOTE_NAME.test(remote)) throw new GitError('bad-revision', `'${remote}' is not a remote name.`);
  const depth = shallow ? ' --depth=1' : '';
  if (FULL_COMMIT_ID.test(rev)) return { remote, refspec: rev, resolvesAs: rev, command: `git fetch${depth} ${remote} ${rev}` };
  const branch = rev.replace(/^refs\/remotes\//, '').startsWith(`${remote}/`) ? rev.replace(/^refs\/remotes\//, '').slice(remote.length + 1) : rev.replace(/^refs\/heads\//, '');
  if (/^[0-9a-f]{4,39}$/.test(branch) || !BRANCH_NAME.test(branch)) return undefined;
  const tracking = `refs/remotes/${remote}/${branch}`;
  return { remote, refspec: `+refs/heads/${branch}:${tracking}`, resolvesAs: tracking, command: `git fetch${depth} ${remote} ${branch}:${tracking}` };
}

/** Runs the plan's fetch (one commit deep in a shallow clone), hardened as the header says. */
export async function fetchRevision(repoRoot: string, plan: FetchPlan, options: { shallow: boolean; signal?: AbortSignal }): Promise<void> {
  const args = ['fetch', '--quiet', '--no-tags', '--no-recurse-submodules', '--no-write-fetch-head', '--no-auto-maintenance', '--upload-pack=git-upload-pack'];
  if (options.shallow) args.push('--depth=1');
  try {
    await git(repoRoot, [...args, '--end-of-options', plan.remote, plan.refspec], {
      transports: FETCH_TRANSPORTS,
      configArgs: FETCH_CONFIG,
      timeoutMs: FETCH_TIMEOUT_MS,
      ...(options.signal ? { signal: options.signal } : {}),
    });
  } catch (error) {
    if (!(error instanceof GitError) || error.kind !== 'failed') throw error;
    const reason = error.message.split('\n').find((line) => /fatal|error/i.test(line)) ?? error.message.split('\n')[0];
    throw new GitError('failed', `Fetching ${plan.refspec.replace(/^\+refs\/heads\/([^:]+):.*$/, '$1')} from ${plan.remote} failed (${reason?.trim()}). Run it yourself: \`${plan.command}\` (fetches over https, ssh or file only; credentials as your git has them).`);
  }
}
