/**
 * What each instrumentation gave, in the user's words: per convention (conventions.ts) the model calls
 * read, how many carried a TTFT, what was left out and why ("74 OpenInference model-call spans: no prompt
 * version on them, their parent spans or the Resource"), and what the source itself never records (no TTFT,
 * no span for a failed call) — so a 0% error rate or a missing TTFT is never mistaken for a measurement.
 */
import { conventionRow, type SourceId } from './conventions';
import type { SourceCounts } from './prodAggregate';
import type { SkipReason } from './importOtlpSpans';

export interface SourceSummary {
  source: SourceId;
  label: string;
  /** Model-call spans seen: read + left out. */
  modelCalls: number;
  read: number;
  withTtft: number;
  failed: number;
  skipped: Partial<Record<SkipReason, number>>;
  /** What this source does not record, as observed with the pinned versions. */
  caveats: string[];
}

const WHY: Partial<Record<SkipReason, string>> = {
  'no-prompt-version': 'no prompt version on them, their parent spans or the Resource',
  'identity-too-long': 'a prompt name or version over 256 characters',
  'bad-id': 'a trace or span id that is not one',
  'bad-timestamps': 'missing or unreadable timestamps',
  'absurd-duration': 'a negative duration or one over a day',
  'absurd-ttft': 'a TTFT before the start or after the end',
  'absurd-tokens': 'negative or fractional token counts',
};

export function sourceSummaries(bySource: ReadonlyMap<SourceId, SourceCounts>): SourceSummary[] {
  return [...bySource].map(([source, c]) => {
    const row = conventionRow(source);
    const skippedTotal = Object.values(c.skipped).reduce((a, b) => a + (b ?? 0), 0);
    const caveats: string[] = [];
    if (c.withTtft === 0 && c.read > c.failed) caveats.push(`TTFT: ${row.caveats?.ttft ? `${row.label} ${row.caveats.ttft}` : 'none of these spans carries one'}; TTFT needs an instrumentation that records it (docs/instrument-your-app.md)`);
    if (row.caveats?.failedCalls) caveats.push(`errors: ${row.label} ${row.caveats.failedCalls} — its error rate is a lower bound`);
    return { source, label: row.label, modelCalls: c.read + skippedTotal, read: c.read, withTtft: c.withTtft, failed: c.failed, skipped: c.skipped, caveats };
  });
}

/** One line per source, then one per reason something was left out. */
export function sourceLines(summaries: readonly SourceSummary[], contentMatching: boolean): string[] {
  const lines: string[] = [];
  for (const s of summaries) {
    const ttft = s.withTtft === s.read ? 'TTFT on each' : s.withTtft === 0 ? 'no TTFT' : `TTFT on ${s.withTtft}`;
    lines.push(`${s.label}: ${s.read} of ${s.modelCalls} model-call spans read (${ttft}, ${s.failed} failed)`);
    for (const [reason, n] of Object.entries(s.skipped)) {
      const why = WHY[reason as SkipReason] ?? reason;
      lines.push(`  ${n} ${s.label} model-call spans left out: ${why}${reason === 'no-prompt-version' ? (contentMatching ? ', and their messages match no revision of the file' : '') : ''}`);
    }
    for (const caveat of s.caveats) lines.push(`  ${caveat}`);
  }
  return lines;
}
