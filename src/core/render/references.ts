/**
 * Files a prompt refers to: Dotprompt partials (`{{> style}}` → `_style.prompt`) and Prompty
 * `${file:name.json}` values. Both are read only from the prompt's own folder and below, through
 * no link that leads elsewhere, and bounded in size and number: a prompt from an untrusted
 * repository must not pull `~/.ssh/id_rsa` into what ▶ Run sends.
 */
import { closeSync, fstatSync, openSync, readSync, realpathSync, constants } from 'node:fs';
import { dirname, isAbsolute, join, relative, resolve, sep } from 'node:path';

const MAX_REFERENCE_BYTES = 1024 * 1024;
const MAX_PARTIALS = 32;
const PARTIAL_USE = /\{\{#?>\s*([A-Za-z0-9_][\w./-]*)/g;
const HANDLEBARS_COMMENT = /\{\{!--[\s\S]*?--\}\}|\{\{![\s\S]*?\}\}/g;
const FILE_VALUE = /^\$\{file:([^}]+)\}$/;

export interface ReferenceNote {
  message: string;
}

/** Reads `name` under `folder` or says why not. */
function readInside(folder: string, name: string): { text: string } | { error: string } {
  if (isAbsolute(name) || name.split(/[\\/]/).includes('..')) return { error: `'${name}' is outside the prompt's folder; only files beside the prompt (or below it) are read` };
  let realFolder: string;
  let realFile: string;
  try {
    realFolder = realpathSync(folder);
    realFile = realpathSync(resolve(folder, name));
  } catch {
    return { error: `'${name}' was not found beside the prompt` };
  }
  const inside = relative(realFolder, realFile);
  if (inside.startsWith(`..${sep}`) || inside === '..' || isAbsolute(inside)) return { error: `'${name}' leads outside the prompt's folder (through a link); it is not read` };
  let fd: number | undefined;
  try {
    fd = openSync(realFile, constants.O_RDONLY | (constants.O_NOFOLLOW ?? 0));
    const stat = fstatSync(fd);
    if (!stat.isFile()) return { error: `'${name}' is not a file` };
    if (stat.size > MAX_REFERENCE_BYTES) return { error: `'${name}' is ${stat.size} bytes, over the ${MAX_REFERENCE_BYTES}-byte limit for referenced files` };
    const buffer = Buffer.alloc(stat.size);
    let read = 0;
    while (read < stat.size) {
      const n = readSync(fd, buffer, read, stat.size - read, read);
      if (n === 0) break;
      read += n;
    }
    return { text: buffer.subarray(0, read).toString('utf8') };
  } catch (error) {
    return { error: `'${name}' could not be read: ${(error as Error).message}` };
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}

/**
 * Partials the source uses (and the partials they use), read from `_name.prompt` or `name.prompt`
 * beside the prompt, then in each configured folder (the same rules inside each).
 */
export function loadPartials(promptPath: string, source: string, moreFolders: readonly string[] = []): { partials: Record<string, string>; notes: ReferenceNote[] } {
  const folders = [dirname(promptPath), ...moreFolders];
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
      let found: { text: string } | { error: string } = { error: 'not found' };
      for (const folder of folders) {
        found = readInside(folder, base);
        if ('error' in found) found = readInside(folder, `${name}.prompt`);
        if (!('error' in found)) break;
      }
      if ('error' in found) {
        // Not registered: the library then fails as the runtime would, and says so.
        notes.push({ message: `partial '${name}': neither _${name}.prompt nor ${name}.prompt is beside the prompt${moreFolders.length ? ' or in the partial folders' : ''}` });
        continue;
      }
      partials[name] = found.text;
      queue.push(found.text);
    }
  }
  return { partials, notes };
}

/** Input values written as `${file:name}` replaced by the file (JSON parsed, other text as text). */
export function resolveFileValues(promptPath: string | undefined, values: Record<string, unknown>): { values: Record<string, unknown>; notes: ReferenceNote[] } {
  const notes: ReferenceNote[] = [];
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(values)) {
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
    const found = readInside(dirname(promptPath), match[1]!.trim());
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
