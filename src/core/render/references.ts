/**
 * Files a prompt refers to: Dotprompt partials (`{{> style}}` → `_style.prompt`) and Prompty
 * `${file:name.json}` values. Each is read through core/files/workspaceFile.ts: a regular file inside
 * the workspace after links are resolved, never under `.git`, at most 1 MB, a FIFO refused at once —
 * a prompt from an untrusted repository must not pull `~/.git-credentials` or a CI checkout's token
 * in `.git/config` into what ▶ Run sends. Names are relative to the prompt's folder, never absolute.
 */
import { dirname, isAbsolute, join, resolve } from 'node:path';
import { findWorkspaceRoot, readWorkspaceFileSync, REFERENCED_FILE_MAX_BYTES, WorkspaceFileError } from '../files/workspaceFile';

const MAX_PARTIALS = 32;
const PARTIAL_USE = /\{\{#?>\s*([A-Za-z0-9_][\w./-]*)/g;
const HANDLEBARS_COMMENT = /\{\{!--[\s\S]*?--\}\}|\{\{![\s\S]*?\}\}/g;
const FILE_VALUE = /^\$\{file:([^}]+)\}$/;
/** `$${…}` (after any leading space): the literal text `${…}`, one `$` less — never a reference. */
const ESCAPED_REFERENCE = /^(\s*)\$(\$+\{)/;
const REFERENCE_LIKE = /^(\s*)(\$+\{)/;

/** The literal text a `$${…}` value stands for, or undefined when the value is not escaped. */
export function escapedLiteral(value: string): string | undefined {
  return ESCAPED_REFERENCE.test(value) ? value.replace(ESCAPED_REFERENCE, '$1$2') : undefined;
}

/**
 * Text written so that no loader interprets it (production inputs `sample` writes): a value that
 * begins like a reference (`${file:.env}`, `${env:HOME}`, or an already escaped `$${…}`) gets one
 * more `$`, which escapedLiteral removes again. Other text is returned as it is.
 */
export function inertText(text: string): string {
  return text.replace(REFERENCE_LIKE, '$1$$$2');
}

/** Every string in a JSON-like value read as escapedLiteral reads it (test-case inputs). */
export function literalValues<T>(value: T): T {
  if (typeof value === 'string') return (escapedLiteral(value) ?? value) as T;
  if (Array.isArray(value)) return value.map(literalValues) as T;
  if (typeof value === 'object' && value !== null) return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, literalValues(v)])) as T;
  return value;
}

export interface ReferenceNote {
  message: string;
}

/** Reads `name` (relative to `folder`) inside `root`, or says why not. */
function readReference(folder: string, name: string, root: string): { text: string } | { error: string; kind: WorkspaceFileError['kind'] | 'absolute' } {
  if (isAbsolute(name)) return { error: `'${name}' is an absolute path; only files named relative to the prompt, inside the workspace, are read`, kind: 'absolute' };
  try {
    return { text: readWorkspaceFileSync(resolve(folder, name), { root, maxBytes: REFERENCED_FILE_MAX_BYTES, what: 'referenced files', shownAs: name }).toString('utf8') };
  } catch (error) {
    // Notes become sentences elsewhere (analysis.ts adds the full stop).
    if (error instanceof WorkspaceFileError) return { error: error.message.replace(/\.$/, ''), kind: error.kind };
    throw error;
  }
}

/**
 * Partials the source uses (and the partials they use), read from `_name.prompt` or `name.prompt`
 * beside the prompt, then in each configured folder (the same rules inside each).
 */
export function loadPartials(promptPath: string, source: string, moreFolders: readonly string[] = [], root: string = findWorkspaceRoot(promptPath)): { partials: Record<string, string>; notes: ReferenceNote[] } {
  // A configured folder is the user's choice (a machine setting, a CLI flag): it is its own root.
  const folders = [{ folder: dirname(promptPath), root }, ...moreFolders.map((folder) => ({ folder, root: folder }))];
  const partials: Record<string, string> = {};
  const notes: ReferenceNote[] = [];
  const queue = [source];
  const tried = new Set<string>();
  while (queue.length > 0) {
    const text = queue.shift()!.replace(HANDLEBARS_COMMENT, '');
    for (const match of text.matchAll(PARTIAL_USE)) {
      const name = match[1]!;
      if (name in partials || tried.has(name)) continue;
      tried.add(name);
      if (Object.keys(partials).length >= MAX_PARTIALS) {
        notes.push({ message: `more than ${MAX_PARTIALS} partials; the rest are not loaded` });
        return { partials, notes };
      }
      const base = name.includes('/') ? join(dirname(name), `_${name.split('/').pop()}.prompt`) : `_${name}.prompt`;
      let found: ReturnType<typeof readReference> = { error: 'not found', kind: 'not-found' };
      const refused: string[] = [];
      for (const { folder, root: folderRoot } of folders) {
        for (const candidate of [base, `${name}.prompt`]) {
          found = readReference(folder, candidate, folderRoot);
          if (!('error' in found)) break;
          if (found.kind !== 'not-found') refused.push(found.error);
        }
        if (!('error' in found)) break;
      }
      if ('error' in found) {
        // Not registered: the library then fails as the runtime would, and says so.
        notes.push({ message: refused.length > 0 ? `partial '${name}': ${refused.join('; ')}` : `partial '${name}': neither _${name}.prompt nor ${name}.prompt is beside the prompt${moreFolders.length ? ' or in the partial folders' : ''}` });
        continue;
      }
      partials[name] = found.text;
      queue.push(found.text);
    }
  }
  return { partials, notes };
}

/** Input values written as `${file:name}` replaced by the file (JSON parsed, other text as text). */
export function resolveFileValues(promptPath: string | undefined, values: Record<string, unknown>, root?: string): { values: Record<string, unknown>; notes: ReferenceNote[] } {
  const notes: ReferenceNote[] = [];
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(values)) {
    const literal = typeof value === 'string' ? escapedLiteral(value) : undefined;
    if (literal !== undefined) {
      out[key] = literal;
      continue;
    }
    const match = typeof value === 'string' ? FILE_VALUE.exec(value.trim()) : null;
    if (!match) {
      out[key] = value;
      continue;
    }
    if (!promptPath) {
      notes.push({ message: `input '${key}' refers to ${value}, which is read only for a prompt saved in a folder` });
      out[key] = value;
      continue;
    }
    const found = readReference(dirname(promptPath), match[1]!.trim(), root ?? findWorkspaceRoot(promptPath));
    if ('error' in found) {
      notes.push({ message: `input '${key}': ${found.error}` });
      out[key] = value;
      continue;
    }
    try {
      out[key] = /\.json$/i.test(match[1]!.trim()) ? JSON.parse(found.text) : found.text;
    } catch (error) {
      notes.push({ message: `input '${key}': ${match[1]} is not valid JSON (${(error as Error).message})` });
      out[key] = value;
    }
  }
  return { values: out, notes };
}
