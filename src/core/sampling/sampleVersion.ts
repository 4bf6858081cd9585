/**
 * `sample --version V`: which production version labels are V. V and every label seen are resolved as
 * prod resolves them (versionResolver.ts: the file's commits, any commit of the repository, the
 * NAME.versions.yaml registry, content hashes; calls that name no version matched by their messages),
 * so `--version 3`, a deploy SHA and `sha256:…` all pick the calls of the revision they name.
 */
import type { FileVersions } from '../telemetry/prodVersions';
import { matchVersion } from '../telemetry/prodVersions';
import type { ImportedSpan, SpanSink } from '../telemetry/importOtlpSpans';
import { resolveVersionLabels } from '../telemetry/versionResolver';

/** First pass: the version labels of one prompt's calls in the range, with how many calls each. */
export class VersionLabels implements SpanSink {
  readonly counts = new Map<string, number>();

  constructor(
    private readonly promptName: string,
    private readonly range: { sinceMs?: number; untilMs?: number },
  ) {}

  span(span: ImportedSpan): void {
    if (span.promptName !== this.promptName) return;
    if ((this.range.sinceMs !== undefined && span.endMs < this.range.sinceMs) || (this.range.untilMs !== undefined && span.endMs > this.range.untilMs)) return;
    this.counts.set(span.promptVersion, (this.counts.get(span.promptVersion) ?? 0) + 1);
  }

  skip(): void {}

  other(): void {}
}

export interface VersionChoice {
  /** As asked. */
  asked: string;
  /** The file's revision it names (null: not in the file's history; then only labels equal to it match). */
  revision: string | null;
  /** The labels of the calls sampled. */
  labels: Set<string>;
  /** Every label seen in the range, with its calls, most first. */
  seen: { version: string; calls: number }[];
  /** What could not be used in resolving (a bad version table). */
  problems: string[];
}

export async function chooseVersion(file: string, promptName: string, asked: string, versions: FileVersions, seenCounts: ReadonlyMap<string, number>, signal?: AbortSignal): Promise<VersionChoice> {
  const labels = [...seenCounts.keys(), asked].map((version) => ({ name: promptName, version }));
  const { problems } = await resolveVersionLabels(file, versions, labels, signal ? { signal } : {});
  const revision = matchVersion(asked, promptName, versions).revision;
  const chosen = new Set([...seenCounts.keys()].filter((label) => label === asked || (revision !== null && matchVersion(label, promptName, versions).revision === revision)));
  const seen = [...seenCounts].map(([version, calls]) => ({ version, calls })).sort((a, b) => b.calls - a.calls || (a.version < b.version ? -1 : 1));
  return { asked, revision, labels: chosen, seen, problems };
}
