/**
 * Replacing a file whose place a repository chose (the tests sidecar `sample` appends to), so that a
 * cloned repository cannot make the product write anywhere else. The target obeys the readers' rules
 * (workspaceFile.ts): its folder is inside the workspace after links are resolved and not inside
 * `.git`, and the target is a regular file or absent — a link (even one leading inside the workspace),
 * a FIFO or a folder is refused. The write itself is fileWrite.ts's: an exclusive, no-follow temporary
 * file beside the target, then a rename.
 */
import { realpathSync } from 'node:fs';
import { basename, dirname, relative, resolve } from 'node:path';
import { appendChecked, checkTargetInFolder, replaceChecked } from './fileWrite';
import { hasGitComponent, isInside, realRoot, WorkspaceFileError } from './workspaceFile';

export interface WorkspaceWriteOptions {
  /** Folder the file must lie in after links are resolved (from findWorkspaceRoot). */
  root: string;
  /** What the file is, for messages: "tests files". */
  what: string;
}

/** Where a checked target is: its real folder and name, and the mode a new text keeps. */
export interface WritableTarget {
  path: string;
  mode: number;
  exists: boolean;
}

/**
 * Checks that `file` may be replaced, before any work is done for it; throws WorkspaceFileError saying
 * why not. The write checks again (the folder may have changed since).
 */
export function checkWritableTarget(file: string, options: WorkspaceWriteOptions): WritableTarget {
  const path = resolve(file);
  const shown = `'${file}'`;
  const root = realRoot(options.root);
  if (hasGitComponent(relative(resolve(options.root), path))) throw gitInternal(shown, options);
  let folder: string;
  try {
    folder = realpathSync(dirname(path));
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    throw new WorkspaceFileError('not-found', shown, `the folder of ${shown} does not exist (${code ?? (error as Error).message}); ${options.what} are written only into an existing folder of the workspace.`);
  }
  if (!isInside(root, folder)) {
    throw new WorkspaceFileError('outside-workspace', shown, `${shown} lies in ${folder}, outside the workspace (${root}); ${options.what} are written only inside the workspace. Give --out a path inside it.`);
  }
  if (hasGitComponent(relative(root, folder))) throw gitInternal(shown, options);
  return checkTargetInFolder(folder, basename(path), shown, options.what);
}

/** Replaces `file` with `text` (UTF-8) as described above; throws WorkspaceFileError when the target is refused. */
export function replaceWorkspaceFile(file: string, text: string, options: WorkspaceWriteOptions): void {
  replaceChecked(checkWritableTarget(file, options), text);
}

/**
 * Appends `text` to `file` under the same rules (the labels file a reviewer adds to, one line a keystroke:
 * a replace per label would rewrite a file of many megabytes each time).
 */
export function appendWorkspaceFile(file: string, text: string, options: WorkspaceWriteOptions): void {
  appendChecked(checkWritableTarget(file, options), text, `'${file}'`, options.what);
}

function gitInternal(shown: string, options: WorkspaceWriteOptions): WorkspaceFileError {
  return new WorkspaceFileError('git-internal', shown, `${shown} is inside a .git folder; ${options.what} are never written there.`);
}
