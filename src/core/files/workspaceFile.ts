/**
 * Reading a file that a repository names — a prompt file, its tests sidecar, a `${file:}` value, a
 * Dotprompt partial, a sample-inputs file — so that a cloned repository cannot make the product read
 * what it must not. The file must be a regular file inside the workspace after every link is resolved,
 * never inside a `.git` folder (a CI checkout keeps its token in `.git/config`), and no larger than a
 * cap, checked on the opened descriptor before a byte is read. It is opened non-blocking, so a FIFO
 * is refused at once instead of hanging the reader, and it is read to a bound, not to its claimed size.
 */
import { closeSync, constants, fstatSync, lstatSync, openSync, readSync, realpathSync, type Stats } from 'node:fs';
import { open, realpath, type FileHandle } from 'node:fs/promises';
import { homedir } from 'node:os';
import { dirname, isAbsolute, join, relative, resolve, sep } from 'node:path';

/** Prompt files and tests files: far above any real one (the largest prompt in the corpus is ~100 KB). */
export const PROMPT_FILE_MAX_BYTES = 8 * 1024 * 1024;
export const TESTS_FILE_MAX_BYTES = 8 * 1024 * 1024;
/** `${file:}` values, partials and sample inputs: they are pasted into what is sent. */
export const REFERENCED_FILE_MAX_BYTES = 1024 * 1024;

export type WorkspaceFileErrorKind = 'outside-workspace' | 'git-internal' | 'not-regular' | 'too-large' | 'not-found' | 'unreadable';

export class WorkspaceFileError extends Error {
  constructor(
    readonly kind: WorkspaceFileErrorKind,
    /** The path as the repository or the user wrote it. */
    readonly shownPath: string,
    message: string,
  ) {
    super(message);
    this.name = 'WorkspaceFileError';
  }
}

/** Where the workspace is, for finding a file's root. */
export interface WorkspaceScope {
  /** Editor and language server: the open workspace folders (file-system paths). Given, the root is the one holding the file. */
  workspaceFolders?: readonly string[];
  /** CLI: the current directory (default `process.cwd()`), the root for a file outside any git repository. */
  cwd?: string;
}

export interface WorkspaceReadOptions {
  /** Folder the file must lie in after links are resolved (from findWorkspaceRoot). */
  root: string;
  maxBytes: number;
  /** What the file is, for messages: "prompt file", "tests file", "referenced file". */
  what: string;
  /** The path as written (`.git/config`), for messages; default the path given. */
  shownAs?: string;
}

/**
 * The workspace a file belongs to. Editor: the deepest workspace folder holding it. Otherwise the
 * top of the git repository holding it (a `.git` folder or file), else — CLI only — the current
 * directory when it holds the file, else the file's own folder. A candidate that holds the home
 * directory (`/`, `/home`, `~` as a dotfiles repository) is never a root: it would let a link reach
 * `~/.git-credentials`; the next rule applies instead.
 */
export function findWorkspaceRoot(file: string, scope: WorkspaceScope = {}): string {
  const path = resolve(file);
  const folder = dirname(path);
  const home = safeHome();
  const usable = (candidate: string): boolean => !(home && isInside(candidate, home));
  if (scope.workspaceFolders) {
    const holding = scope.workspaceFolders.map((f) => resolve(f)).filter((f) => isInside(f, path) && usable(f));
    if (holding.length > 0) return holding.sort((a, b) => b.length - a.length)[0]!;
  }
  const gitTop = gitTopLevel(folder);
  if (gitTop && usable(gitTop)) return gitTop;
  if (!scope.workspaceFolders) {
    const cwd = resolve(scope.cwd ?? process.cwd());
    if (isInside(cwd, path) && usable(cwd)) return cwd;
  }
  return folder;
}

/** Reads a file a repository names, or throws WorkspaceFileError saying why not and what to do. */
export function readWorkspaceFileSync(file: string, options: WorkspaceReadOptions): Buffer {
  return readBoundedSync(file, options);
}

/** As readWorkspaceFileSync, without blocking the thread on the disk. */
export function readWorkspaceFile(file: string, options: WorkspaceReadOptions): Promise<Buffer> {
  return readBounded(file, options);
}

/** A prompt file given on the command line or found by a glob, with its workspace found for it. */
export function readPromptFile(file: string, scope: WorkspaceScope = {}): Promise<Buffer> {
  return readWorkspaceFile(file, { root: findWorkspaceRoot(file, scope), maxBytes: PROMPT_FILE_MAX_BYTES, what: 'prompt files' });
}

/** A tests sidecar (`NAME.tests.yaml`): its text, or undefined when there is none; refused files throw WorkspaceFileError. */
export function readTestsFileSync(file: string, scope: WorkspaceScope = {}): string | undefined {
  try {
    return readWorkspaceFileSync(file, { root: findWorkspaceRoot(file, scope), maxBytes: TESTS_FILE_MAX_BYTES, what: 'tests files' }).toString('utf8');
  } catch (error) {
    if (error instanceof WorkspaceFileError && error.kind === 'not-found') return undefined;
    throw error;
  }
}

/**
 * A file the user named on the command line for their own use (the simulator's scenario): any place
 * is allowed, as they chose it, but it must be a regular file within the cap, and a FIFO never blocks.
 */
export function readUserFile(file: string, maxBytes: number, what: string): Promise<Buffer> {
  return readBounded(file, { maxBytes, what });
}

/** A read failure in a CLI line after the file's name: "no such file", or what was refused and why. */
export function describeReadError(error: unknown): string {
  if (error instanceof WorkspaceFileError) return error.kind === 'not-found' ? 'no such file' : error.message;
  return (error as Error).message;
}

/**
 * Opens a file a repository names for streaming (a production trace file): the same checks as the
 * readers — inside the workspace after links, not in `.git`, a regular file (a FIFO refused at once) —
 * on the opened descriptor. The caller reads it to its own bound and closes it.
 */
export async function openWorkspaceFile(file: string, options: Omit<WorkspaceReadOptions, 'maxBytes'>): Promise<{ handle: FileHandle; size: number }> {
  const rules: ReadRules = { ...options, maxBytes: Number.MAX_SAFE_INTEGER };
  const path = resolve(file);
  checkLexical(path, rules, file);
  let handle: FileHandle | undefined;
  try {
    const real = await realpath(path);
    checkResolved(real, realRoot(options.root), rules, file);
    handle = await open(real, OPEN_FLAGS);
    const stat = await handle.stat();
    checkOpened(stat, rules, file);
    return { handle, size: stat.size };
  } catch (error) {
    await handle?.close();
    throw asWorkspaceError(error, rules, file);
  }
}

// Below: the readers and their checks. Without a root (readUserFile) only type and size are checked.

type ReadRules = Omit<WorkspaceReadOptions, 'root'> & { root?: string };

const CHUNK_BYTES = 64 * 1024;
// O_NONBLOCK: opening a FIFO with no writer returns at once (then fstat says it is not a file);
// O_NOFOLLOW: the path was resolved just before, so a link put in its place since fails to open.
const OPEN_FLAGS = constants.O_RDONLY | (constants.O_NONBLOCK ?? 0) | (constants.O_NOFOLLOW ?? 0);

function readBoundedSync(file: string, rules: ReadRules): Buffer {
  const path = resolve(file);
  checkLexical(path, rules, file);
  let fd: number | undefined;
  try {
    const real = realpathSync(path);
    if (rules.root !== undefined) checkResolved(real, realRoot(rules.root), rules, file);
    fd = openSync(real, OPEN_FLAGS);
    checkOpened(fstatSync(fd), rules, file);
    // Read to EOF within the cap rather than trusting the size fstat reported.
    const chunks: Buffer[] = [];
    let total = 0;
    for (;;) {
      const chunk = Buffer.allocUnsafe(CHUNK_BYTES);
      const n = readSync(fd, chunk, 0, chunk.length, null);
      if (n === 0) break;
      total += n;
      if (total > rules.maxBytes) throw tooLarge(rules, file, `more than ${rules.maxBytes}`);
      chunks.push(chunk.subarray(0, n));
    }
    return Buffer.concat(chunks, total);
  } catch (error) {
    throw asWorkspaceError(error, rules, file);
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}

async function readBounded(file: string, rules: ReadRules): Promise<Buffer> {
  const path = resolve(file);
  checkLexical(path, rules, file);
  let handle: FileHandle | undefined;
  try {
    const real = await realpath(path);
    if (rules.root !== undefined) checkResolved(real, realRoot(rules.root), rules, file);
    handle = await open(real, OPEN_FLAGS);
    checkOpened(await handle.stat(), rules, file);
    const chunks: Buffer[] = [];
    let total = 0;
    for (;;) {
      const chunk = Buffer.allocUnsafe(CHUNK_BYTES);
      const { bytesRead } = await handle.read(chunk, 0, chunk.length, null);
      if (bytesRead === 0) break;
      total += bytesRead;
      if (total > rules.maxBytes) throw tooLarge(rules, file, `more than ${rules.maxBytes}`);
      chunks.push(chunk.subarray(0, bytesRead));
    }
    return Buffer.concat(chunks, total);
  } catch (error) {
    throw asWorkspaceError(error, rules, file);
  } finally {
    await handle?.close();
  }
}

/** The root's real path (links resolved), or the root as given when it cannot be resolved. */
export function realRoot(root: string): string {
  try {
    return realpathSync(resolve(root));
  } catch {
    return resolve(root);
  }
}

/** The path as written: a `.git` component is refused before anything is touched. */
function checkLexical(path: string, options: ReadRules, file: string): void {
  if (options.root === undefined) return;
  const inside = relative(resolve(options.root), path);
  if (hasGitComponent(inside) || hasGitComponent(options.shownAs ?? '')) throw gitInternal(options, file);
}

/** The path after links: inside the root's real path, and not in a `.git` folder there either. */
function checkResolved(real: string, root: string, options: ReadRules, file: string): void {
  if (!isInside(root, real)) {
    throw new WorkspaceFileError(
      'outside-workspace',
      shown(options, file),
      `${shown(options, file)} leads outside the workspace (${root})${real !== resolve(file) ? ` — it resolves to ${real}` : ''}; ${options.what} are read only from inside the workspace. Copy the file into the workspace if it is meant to be read.`,
    );
  }
  if (hasGitComponent(relative(root, real))) throw gitInternal(options, file);
}

function checkOpened(stat: Stats, options: ReadRules, file: string): void {
  if (!stat.isFile()) {
    const kind = stat.isFIFO() ? 'a FIFO (named pipe)' : stat.isCharacterDevice() || stat.isBlockDevice() ? 'a device' : stat.isDirectory() ? 'a folder' : stat.isSocket() ? 'a socket' : 'not a regular file';
    throw new WorkspaceFileError('not-regular', shown(options, file), `${shown(options, file)} is ${kind}, not a regular file; ${options.what} are read only from regular files.`);
  }
  if (stat.size > options.maxBytes) throw tooLarge(options, file, String(stat.size));
}

function tooLarge(options: ReadRules, file: string, size: string): WorkspaceFileError {
  return new WorkspaceFileError('too-large', shown(options, file), `${shown(options, file)} is ${size} bytes, over the ${options.maxBytes}-byte limit for ${options.what}; it is not read. Make it smaller if it is meant to be read.`);
}

function gitInternal(options: ReadRules, file: string): WorkspaceFileError {
  return new WorkspaceFileError('git-internal', shown(options, file), `${shown(options, file)} is inside a .git folder, which holds the repository's configuration and credentials; it is never read. Refer to a file outside .git.`);
}

function asWorkspaceError(error: unknown, options: ReadRules, file: string): WorkspaceFileError {
  if (error instanceof WorkspaceFileError) return error;
  const code = (error as NodeJS.ErrnoException).code;
  if (code === 'ENOENT' || code === 'ENOTDIR') return new WorkspaceFileError('not-found', shown(options, file), `${shown(options, file)} was not found (or is a link to nothing)`);
  if (code === 'ELOOP') return new WorkspaceFileError('unreadable', shown(options, file), `${shown(options, file)} is a link that loops, or was replaced by a link while it was being read; it is not read.`);
  return new WorkspaceFileError('unreadable', shown(options, file), `${shown(options, file)} could not be read (${code ?? (error as Error).message}); check its permissions.`);
}

function shown(options: ReadRules, file: string): string {
  return `'${options.shownAs ?? file}'`;
}

export function hasGitComponent(path: string): boolean {
  return path.split(/[\\/]/).some((part) => part.toLowerCase() === '.git');
}

/** `inner` is `outer` or below it. */
export function isInside(outer: string, inner: string): boolean {
  const rel = relative(outer, inner);
  return rel === '' || (!rel.startsWith(`..${sep}`) && rel !== '..' && !isAbsolute(rel));
}

function gitTopLevel(folder: string): string | undefined {
  for (let dir = folder; ; dir = dirname(dir)) {
    try {
      lstatSync(join(dir, '.git'));
      return dir;
    } catch {
      // not here; one level up
    }
    if (dirname(dir) === dir) return undefined;
  }
}

function safeHome(): string | undefined {
  try {
    const home = homedir();
    return home ? resolve(home) : undefined;
  } catch {
    return undefined;
  }
}
