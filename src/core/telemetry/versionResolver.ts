/**
 * The one place production versions become the prompt file's revisions (prod, watch, sample and the
 * editor all come here), besides the file's own commits and content hashes (prodVersions.ts matchVersion):
 *   - any commit of the repository — a deploy SHA where the prompt did not change — is the file's text
 *     at that commit: its last revision at or before it;
 *   - a registry's integers or names (Langfuse and Traceloop prompt versions, `v7`) through a small table
 *     the user keeps beside the prompt, NAME.versions.yaml: `label: commit`, or per prompt name;
 *   - calls that name no version are matched by the messages they sent (contentMatch.ts), and said so.
 */
import { basename, dirname, join } from 'node:path';
import { parse } from 'yaml';
import { findWorkspaceRoot, readWorkspaceFileSync, WorkspaceFileError } from '../files/workspaceFile';
import { git, isGitStop } from '../history/git';
import { resolveRevision } from '../history/fileHistory';
import { matchesTemplate } from './contentMatch';
import type { CapturedMessage } from './capturedContent';
import type { ContentMatcher } from './importOtlpSpans';
import type { Relabel } from './prodAggregate';
import { matchVersion, type FileVersions, type RegistryReading, type VersionAlias, type VersionTable } from './prodVersions';
import { createHash } from 'node:crypto';

/** `homes.prompty` → `homes.versions.yaml` beside it. */
export function registryPathFor(file: string): string {
  const name = basename(file).replace(/\.(prompty|prompt\.ya?ml|prompt\.md|prompt\.txt|prompt|txt|md)$/i, '');
  return join(dirname(file), `${name}.versions.yaml`);
}

/** A version table is a few lines; a larger one is refused. */
export const REGISTRY_MAX_BYTES = 1024 * 1024;
const COMMITISH = /^[0-9a-f]{7,64}$/i;
/** Labels looked up in git at most per read (each is one or two git calls). */
const MAX_LOOKUPS = 200;

export interface ResolveResult {
  /** What could not be used, said to the user (a bad table, an entry that names no commit). */
  problems: string[];
  registry: string | null;
  /** Where the table was read, when it was read at a revision (`table`). */
  registryReading?: RegistryReading;
}

export interface ResolveOptions {
  signal?: AbortSignal;
  /**
   * The table as committed at a revision (versionTableAt.ts), used instead of the working copy's: a decision
   * reads it from the base's side, since the change being rolled out could otherwise name its own baseline.
   */
  table?: VersionTable;
}

/**
 * Resolves production labels that the file's own commits and hashes do not: registry entries, then any
 * commit of the repository. Fills `versions.aliases`, which matchVersion reads.
 */
export async function resolveVersionLabels(file: string, versions: FileVersions, labels: Iterable<{ name: string | null; version: string }>, options: ResolveOptions = {}): Promise<ResolveResult> {
  const problems: string[] = [];
  const registryPath = registryPathFor(file);
  let table: Map<string, string> = new Map();
  const committed = options.table;
  if (committed) problems.push(...committed.problems);
  const text = committed ? committed.text : workingVersionTable(registryPath, problems);
  const from = committed ? `${committed.reading.file} at ${committed.reading.revision}` : registryPath;
  if (text !== undefined) {
    try {
      table = registryEntries(parse(text), problems, basename(registryPath));
    } catch (error) {
      problems.push(`${basename(registryPath)}: ${(error as Error).message.slice(0, 300)}`);
    }
  }
  const result = (): ResolveResult => ({ problems, registry: table.size ? registryPath : null, ...(committed ? { registryReading: committed.reading } : {}) });
  if (!versions.repoRoot) return result();
  let lookups = 0;
  const revisionAt = async (commitish: string): Promise<string | null> => {
    if (lookups++ >= MAX_LOOKUPS) return null;
    return fileRevisionAt(versions, commitish, options.signal);
  };
  for (const [key, commitish] of table) {
    const rev = await revisionAt(commitish);
    if (rev) versions.aliases.set(key, { rev, how: 'registry', from } satisfies VersionAlias);
    else problems.push(`${basename(registryPath)}: '${key.split('\u0000')[1]}' → '${commitish}' is not a commit where ${basename(file)} exists.`);
  }
  for (const { name, version } of labels) {
    if (!COMMITISH.test(version) || matchVersion(version, name, versions).revision !== null) continue;
    const rev = await revisionAt(version);
    if (rev) versions.aliases.set(`\u0000${version}`, { rev, how: 'deploy-commit' });
  }
  return result();
}

/** The table's text in the working copy; undefined when there is none (a problem when it cannot be read). */
export function workingVersionTable(registryPath: string, problems: string[]): string | undefined {
  try {
    return readWorkspaceFileSync(registryPath, { root: findWorkspaceRoot(registryPath), maxBytes: REGISTRY_MAX_BYTES, what: 'version tables' }).toString('utf8');
  } catch (error) {
    if (!(error instanceof WorkspaceFileError && error.kind === 'not-found')) problems.push(`${basename(registryPath)}: ${(error as Error).message.slice(0, 300)}`);
    return undefined;
  }
}

/** `label: commit` at the top, or `promptName: {label: commit}`; keys `name\0label` ('' = any prompt). */
function registryEntries(doc: unknown, problems: string[], what: string): Map<string, string> {
  const out = new Map<string, string>();
  if (doc === null || doc === undefined) return out;
  if (typeof doc !== 'object' || Array.isArray(doc)) {
    problems.push(`${what}: expected a map of production version → commit`);
    return out;
  }
  const add = (prompt: string, label: string, value: unknown) => {
    if ((typeof value === 'string' || typeof value === 'number') && /^[\w./~^@{}-]{1,200}$/.test(String(value))) out.set(`${prompt}\u0000${label}`, String(value));
    else problems.push(`${what}: '${label}' does not name a commit`);
  };
  for (const [key, value] of Object.entries(doc as Record<string, unknown>).slice(0, 10_000)) {
    if (typeof value === 'object' && value !== null && !Array.isArray(value)) for (const [label, v] of Object.entries(value)) add(key, label, v);
    else add('', key, value);
  }
  return out;
}

/** The file's revision whose text a commit holds: its last revision at or before that commit, or null. */
async function fileRevisionAt(versions: FileVersions, commitish: string, signal?: AbortSignal): Promise<string | null> {
  const root = versions.repoRoot!;
  const call = signal ? { signal } : {};
  try {
    const sha = await resolveRevision(root, commitish, call);
    const last = (await git(root, ['log', '-1', '--format=%H', sha, '--', ...versions.paths.map((p) => `:(literal)${p}`)], call)).trim();
    return versions.revisions.some((r) => r.rev === last) ? last : null;
  } catch (error) {
    if (isGitStop(error)) throw error;
    return null;
  }
}

/** Memoised per distinct message list (production repeats the same system text): at most this many kept. */
const MAX_CACHED = 10_000;

/**
 * Versions by content: a call's messages (or its system message's SHA-256) against each revision's rendered
 * text, newest first; the label is the oldest revision of the run of revisions with that text, as for
 * content hashes. Only the prompts in `wanted` (the file's, or --prompt).
 */
export function contentMatcher(versions: FileVersions, wanted: ReadonlySet<string>): ContentMatcher {
  const cache = new Map<string, { name: string; version: string } | null>();
  const labelOf = (index: number, name: string) => {
    const r = versions.revisions[index]!;
    return r.rev === 'working' ? `sha256:${r.hashes.get(name)?.slice(0, 16) ?? 'working'}` : r.rev;
  };
  const fitsAt = (index: number, name: string, messages: CapturedMessage[] | null, hash: string | null) => {
    const template = versions.revisions[index]?.templates.get(name);
    if (!template) return false;
    return messages ? matchesTemplate(template, messages) : hash !== null && template.systemSha256 === hash;
  };
  return (call) => {
    if (!call.messages && !call.systemSha256) return null;
    const names = call.identity.name !== null ? [call.identity.name].filter((n) => wanted.has(n)) : [...wanted];
    const key = createHash('sha1').update(names.join('\u0001')).update('\u0002').update(call.messages ? call.messages.map((m) => `${m.role}\u0001${m.content}`).join('\u0002') : `#${call.systemSha256}`).digest('hex');
    if (cache.has(key)) return cache.get(key)!;
    let found: { name: string; version: string } | null = null;
    for (let i = 0; i < versions.revisions.length && !found; i++) {
      for (const name of names) {
        if (!fitsAt(i, name, call.messages, call.systemSha256)) continue;
        let oldest = i;
        while (oldest + 1 < versions.revisions.length && fitsAt(oldest + 1, name, call.messages, call.systemSha256)) oldest++;
        found = { name, version: labelOf(oldest, name) };
        break;
      }
    }
    if (cache.size >= MAX_CACHED) cache.delete(cache.keys().next().value!);
    cache.set(key, found);
    return found;
  };
}

/**
 * Labels of one revision counted as one version (a Langfuse integer, a deploy commit and content matches of the
 * same text): each is renamed to the label with the most requests among them, so every reader of the same spans
 * (the report, the panel's timeline, watch) names the version the same. A call that named no prompt takes the
 * file's, when the file has one.
 */
export function revisionRename(versions: FileVersions, labels: Iterable<{ promptName: string | null; version: string; requests: number }>): Relabel {
  const single = versions.promptNames.size === 1 ? [...versions.promptNames][0]! : null;
  const byRevision = new Map<string, { name: string | null; version: string; requests: number }>();
  const target = new Map<string, { name: string | null; version: string }>();
  const seen = [...labels];
  const groupOf = (name: string | null, version: string) => {
    const match = matchVersion(version, name, versions);
    return match.revision === null ? null : { group: `${name ?? single ?? ''}\u0000${match.revision}`, name: name ?? single };
  };
  for (const l of seen) {
    const g = groupOf(l.promptName, l.version);
    if (!g) continue;
    const best = byRevision.get(g.group);
    if (!best || l.requests > best.requests || (l.requests === best.requests && l.version < best.version)) byRevision.set(g.group, { name: g.name, version: l.version, requests: l.requests });
  }
  for (const l of seen) {
    const g = groupOf(l.promptName, l.version);
    if (g) target.set(`${l.promptName ?? ''}\u0000${l.version}`, byRevision.get(g.group)!);
  }
  return (name, version) => target.get(`${name ?? ''}\u0000${version}`) ?? { name, version };
}
