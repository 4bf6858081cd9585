/**
 * `prod FILE --traces PATH…`: the prompt file's production numbers from OTLP JSON Lines trace files,
 * per version, mapped to git revisions, latest against previous.
 */
import { importOtlpFiles, type ImportOptions } from './importOtlp';
import type { Relabelable, VersionAggregate } from './prodAggregate';
import { compareVersions, orderVersions, versionReport, type ProdReport, type ProdVersion } from './prodReport';
import { loadFileVersions, matchVersion, type FileVersions, type VersionTable } from './prodVersions';
import { sourceSummaries } from './prodSources';
import { contentMatcher, resolveVersionLabels, revisionRename } from './versionResolver';

export interface ProdOptions extends ImportOptions {
  /** Only this prompt of the file (a file may hold several). */
  prompt?: string;
  /** The file's versions when the caller has them already (the editor reads history once for every source). */
  fileVersions?: Promise<FileVersions>;
  /** Compare these two versions (a production label, or a revision's commit id or its prefix) instead of the latest two. */
  compare?: { base: string; head: string };
  /** The version table as read at a revision (deciding: the base's side), instead of the working copy's. */
  versionTable?: VersionTable;
}

/** The version a label names: its production label, one of its labels, or its revision (7+ characters of the commit). */
export function findVersion<V extends Pick<ProdVersion, 'version' | 'revision' | 'labels'>>(versions: readonly V[], label: string): V | undefined {
  return versions.find((v) => v.version === label) ?? versions.find((v) => v.labels?.some((l) => l.label === label) || (v.revision !== null && label.length >= 7 && v.revision.startsWith(label)));
}

const MAX_OTHER_PROMPT_NAMES = 20;

export async function prodFromTraces(file: string, tracePaths: readonly string[], options: ProdOptions = {}): Promise<ProdReport> {
  // History first: calls that name no version are matched by content against its revisions as they are read.
  const fileVersions = await (options.fileVersions ?? loadFileVersions(file, options.signal ? { signal: options.signal } : {}));
  const wantedNames = options.prompt ? new Set([options.prompt]) : fileVersions.promptNames;
  const { aggregate } = await importOtlpFiles(tracePaths, { ...options, matchContent: contentMatcher(fileVersions, wantedNames) });
  const labels = [...aggregate.versions.values()].map((a) => ({ name: a.promptName, version: a.version }));
  const resolved = await resolveVersionLabels(file, fileVersions, labels, { ...(options.signal ? { signal: options.signal } : {}), ...(options.versionTable ? { table: options.versionTable } : {}) });
  const rename = revisionRename(fileVersions, aggregate.versions.values());
  aggregate.relabel(rename);
  (options.alsoTo as Partial<Relabelable> | undefined)?.relabel?.(rename);
  const notes: string[] = [...resolved.problems];
  if (fileVersions.historyProblem) notes.push(`git history unavailable (${fileVersions.historyProblem}): versions are not mapped to revisions.`);
  if (fileVersions.shallow) notes.push('this is a shallow clone: versions older than its history show as not in git history (git fetch --unshallow).');
  const wanted = wantedNames;
  if (options.prompt && !fileVersions.promptNames.has(options.prompt)) notes.push(`the file has no prompt named '${options.prompt}' (it has: ${[...fileVersions.promptNames].join(', ') || 'none'}).`);

  const mine: { report: ProdVersion; agg: VersionAggregate; order: number | null }[] = [];
  const otherPrompts = new Map<string, number>();
  for (const agg of aggregate.versions.values()) {
    const match = matchVersion(agg.version, agg.promptName, fileVersions);
    // A span names its prompt, or (OpenInference's llm.prompt_template.version alone) only a version: that is
    // this file's only when the version is one of its revisions.
    const isMine = agg.promptName !== null ? wanted.has(agg.promptName) : match.revision !== null;
    if (!isMine) {
      const name = agg.promptName ?? '(no name)';
      otherPrompts.set(name, (otherPrompts.get(name) ?? 0) + agg.requests);
      continue;
    }
    mine.push({ report: versionReport(agg, fileVersions), agg, order: match.order });
  }
  const orderOf = new Map(mine.map((m) => [m.report, m.order]));
  const ordered = orderVersions(mine.map((m) => m.report), (v) => orderOf.get(v) ?? null);
  const byReport = new Map(mine.map((m) => [m.report, m]));
  let [latest, previous] = ordered;
  if (options.compare) {
    [previous, latest] = [findVersion(ordered, options.compare.base), findVersion(ordered, options.compare.head)];
    for (const [label, found] of [[options.compare.base, previous], [options.compare.head, latest]] as const) if (!found) notes.push(`version ${label} served no request of this prompt in these files.`);
  }
  const comparison = latest && previous && latest !== previous ? compareVersions(byReport.get(previous)!, byReport.get(latest)!) : null;
  for (const v of ordered) if (!v.inGitHistory) notes.push(`version ${v.version} is seen in production (${v.requests} requests) but is not in ${file}'s git history.`);
  if (aggregate.outsideWindow) notes.push(`${aggregate.outsideWindow} inference spans ended outside the window (before --since or after --now) and are left out.`);
  const top = [...otherPrompts].sort((a, b) => b[1] - a[1]).slice(0, MAX_OTHER_PROMPT_NAMES);
  return {
    file,
    source: { kind: 'otlp-files', files: [...tracePaths] },
    window: { since: options.sinceMs !== undefined ? new Date(options.sinceMs).toISOString() : null },
    versions: ordered,
    comparison,
    skipped: aggregate.skipped,
    sources: sourceSummaries(aggregate.bySource),
    otherPrompts: Object.fromEntries(top),
    notes,
    ...(resolved.registryReading ? { registry: resolved.registryReading } : {}),
  };
}
