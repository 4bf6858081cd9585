/**
 * Production prompt versions → the prompt file's git revisions. A version is matched when it is
 * (a prefix of) a commit id that touched the file, or the content hash of the prompt at a revision:
 * the hash the project puts in `gen_ai.prompt.version` for uncommitted runs (`sha256:` + the first 16
 * hex digits of promptContentHash, runSpans.ts promptVersion) or the full 64-digit hash. A version
 * that matches nothing is "not in git history" — a deploy from another branch, a hand-set label, or
 * history this clone lacks.
 */
import { readFileSync } from 'node:fs';
import { parsePromptFile } from '../formats/detect';
import { contentsAt, fileHistory, type FileRevision } from '../history/fileHistory';
import { renderWithReferences } from '../render/renderWithReferences';
import { requestOf } from '../run/promptRequest';
import { promptContentHash } from '../store/runKey';
import { promptTemplate, type PromptTemplate } from './contentMatch';

export interface RevisionFacts {
  rev: string;
  date: string;
  subject: string;
  /** Content hash (64 hex) per prompt name in the file at this revision. */
  hashes: Map<string, string>;
  /** Each prompt's literal text between its variables, for versions by content (contentMatch.ts). */
  templates: Map<string, PromptTemplate>;
}

/** A production label resolved outside the file's own commits: a deploy commit, or the user's registry table. */
export interface VersionAlias {
  /** The revision of the file (a commit in `revisions`) whose text the label serves. */
  rev: string;
  how: 'deploy-commit' | 'registry';
  /** For a registry entry: the table's file. */
  from?: string;
}

/** Where a decision read the version table: as committed at the base's side, never the working copy. */
export interface RegistryReading {
  /** The table's path in the repository. */
  file: string;
  /** The revision as named (`origin/main`, or the user's --registry-rev). */
  revision: string;
  commit: string;
  /** Whether the table exists there (without it, labels map to commits and content only). */
  found: boolean;
}

/** A version table read at a revision (versionTableAt.ts): its text (undefined: none there), where, and what was said. */
export interface VersionTable {
  text: string | undefined;
  reading: RegistryReading;
  problems: string[];
}

export interface FileVersions {
  /** Newest first; `working` (the file on disk) first when it differs from every revision. */
  revisions: RevisionFacts[];
  /** Every prompt name the file has had. */
  promptNames: Set<string>;
  shallow: boolean;
  /** Why history could not be read (not a repository, untracked file); versions then map to nothing. */
  historyProblem?: string;
  repoRoot?: string;
  /** The paths the file had (renames), relative to the repository root. */
  paths: string[];
  /** Labels resolved by versionResolver.ts (per prompt name, or '' for any prompt). */
  aliases: Map<string, VersionAlias>;
}

/** `sha256:` + 16 hex digits of each prompt's content hash in a file's text (what the exporter writes for uncommitted text). */
export async function contentLabels(fileName: string, text: string): Promise<Map<string, string>> {
  const { hashes } = await promptFacts(fileName, text, new Set());
  return new Map([...hashes].map(([name, hash]) => [name, `sha256:${hash.slice(0, 16)}`]));
}

/** Enough history to map any version a deployment still serves; older ones are said to be unmapped. */
export const MAX_REVISIONS = 500;

export async function loadFileVersions(file: string, options: { signal?: AbortSignal } = {}): Promise<FileVersions> {
  const call = options.signal ? { signal: options.signal } : {};
  const promptNames = new Set<string>();
  const revisions: RevisionFacts[] = [];
  let working: RevisionFacts | undefined;
  try {
    working = { rev: 'working', date: '', subject: 'working copy', ...(await promptFacts(file, readFileSync(file, 'utf8'), promptNames)) };
  } catch {
    // an unreadable working copy: history alone
  }
  let history;
  try {
    history = await fileHistory(file, { ...call, maxCount: MAX_REVISIONS });
  } catch (error) {
    return { revisions: working ? [working] : [], promptNames, shallow: false, historyProblem: (error as Error).message, paths: [], aliases: new Map() };
  }
  const present: FileRevision[] = history.revisions.filter((r) => !r.deleted);
  const contents = await contentsAt(history.repoRoot, present, call);
  for (const [i, revision] of present.entries()) {
    const content = contents[i]!;
    const facts = content.ok ? await promptFacts(revision.path, content.text, promptNames) : { hashes: new Map<string, string>(), templates: new Map<string, PromptTemplate>() };
    revisions.push({ rev: revision.rev, date: revision.date, subject: revision.subject, ...facts });
  }
  const newest = revisions[0];
  if (working && (!newest || [...working.hashes].some(([name, hash]) => newest.hashes.get(name) !== hash))) revisions.unshift(working);
  return { revisions, promptNames, shallow: history.shallow, repoRoot: history.repoRoot, paths: [...new Set([history.path, ...present.map((r) => r.path)])], aliases: new Map() };
}

/**
 * The content hash of each prompt of a file's text, rendered with its own sample values (as `run` sends it),
 * and its template for versions by content.
 */
async function promptFacts(fileName: string, text: string, names: Set<string>): Promise<Pick<RevisionFacts, 'hashes' | 'templates'>> {
  const hashes = new Map<string, string>();
  const templates = new Map<string, PromptTemplate>();
  let doc;
  try {
    doc = parsePromptFile(fileName, text);
  } catch {
    return { hashes, templates };
  }
  for (const prompt of doc.prompts) {
    names.add(prompt.name);
    templates.set(prompt.name, promptTemplate(prompt));
    try {
      // No file references at a past revision: what the text itself renders to.
      const { rendering } = await renderWithReferences(text, prompt, {}, {});
      if (rendering.error) continue;
      hashes.set(prompt.name, promptContentHash(requestOf(prompt, rendering.messages, { endpointDefault: 'any' })));
    } catch {
      // a prompt that cannot be rendered has no content hash
    }
  }
  return { hashes, templates };
}

export interface VersionMatch {
  revision: string | null;
  how: 'commit' | 'content-hash' | 'deploy-commit' | 'registry' | null;
  date?: string;
  subject?: string;
  /** Position in history, 0 = newest; null when unmapped. */
  order: number | null;
}

const COMMIT_PREFIX = /^[0-9a-f]{7,64}$/i;
const SHORT_HASH = /^sha256:([0-9a-f]{8,64})$/i;

export function matchVersion(version: string, promptName: string | null, versions: FileVersions): VersionMatch {
  const alias = versions.aliases.get(`${promptName ?? ''}\u0000${version}`) ?? versions.aliases.get(`\u0000${version}`);
  if (alias) {
    const order = versions.revisions.findIndex((r) => r.rev === alias.rev);
    if (order >= 0) {
      const at = versions.revisions[order]!;
      return { revision: at.rev, how: alias.how, ...(at.date ? { date: at.date } : {}), subject: at.subject, order };
    }
  }
  const v = version.trim().toLowerCase();
  const hashPrefix = SHORT_HASH.exec(v)?.[1] ?? (/^[0-9a-f]{64}$/.test(v) ? v : undefined);
  for (const [order, r] of versions.revisions.entries()) {
    const found = (how: 'commit' | 'content-hash'): VersionMatch => ({ revision: r.rev, how, ...(r.date ? { date: r.date } : {}), subject: r.subject, order });
    if (COMMIT_PREFIX.test(v) && r.rev !== 'working' && r.rev.startsWith(v)) return found('commit');
    if (hashPrefix) {
      const candidates = promptName !== null && r.hashes.has(promptName) ? [r.hashes.get(promptName)!] : [...r.hashes.values()];
      // The oldest revision with this content is where it was introduced: keep looking further back.
      if (candidates.some((h) => h.startsWith(hashPrefix))) {
        let oldest = order;
        for (let k = order + 1; k < versions.revisions.length; k++) {
          const older = versions.revisions[k]!;
          const olderHashes = promptName !== null && older.hashes.has(promptName) ? [older.hashes.get(promptName)!] : [...older.hashes.values()];
          if (olderHashes.some((h) => h.startsWith(hashPrefix))) oldest = k;
          else break;
        }
        const at = versions.revisions[oldest]!;
        return { revision: at.rev, how: 'content-hash', ...(at.date ? { date: at.date } : {}), subject: at.subject, order: oldest };
      }
    }
  }
  return { revision: null, how: null, order: null };
}
