/**
 * The version table (NAME.versions.yaml) as committed at a revision — for a decision, the base's side — read
 * as a regular file under the table's cap (a committed link is not followed). A working copy that says
 * otherwise is said, not used. Kept apart from versionResolver.ts so the editor's readers, which read the
 * working copy's table, do not carry it.
 */
import { basename, posix } from 'node:path';
import { regularFileAt } from '../history/fileHistory';
import type { NamedRevision } from '../history/releaseBranch';
import type { FileVersions, VersionTable } from './prodVersions';
import { registryPathFor, REGISTRY_MAX_BYTES, workingVersionTable } from './versionResolver';

export async function versionTableAt(file: string, versions: FileVersions, at: NamedRevision, signal?: AbortSignal): Promise<VersionTable> {
  const problems: string[] = [];
  const registryPath = registryPathFor(file);
  const path = posix.join(posix.dirname(versions.paths[0] ?? ''), basename(registryPath));
  const content = versions.repoRoot ? await regularFileAt(versions.repoRoot, at.commit, path, REGISTRY_MAX_BYTES, signal ? { signal } : {}) : undefined;
  if (content && !content.ok) problems.push(content.reason);
  const text = content?.ok ? content.text : undefined;
  if (workingVersionTable(registryPath, []) !== text) problems.push(`${basename(registryPath)} in the working copy differs from ${at.name}'s: not used (a decision reads the version table from the branch being released into; --registry-rev names another revision).`);
  return { text, reading: { file: path, revision: at.name, commit: at.commit, found: content !== undefined }, problems };
}
