/**
 * The last trust card of each judged check, kept where the editor keeps its runs (the workspace's
 * storage, never the repository), so the tests file's hover can say whether the check's judge is
 * trusted without asking it: one JSON file, bounded, rewritten after each Check Judge Trust.
 */
import { readFileSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import type { TrustCard } from './trustCard';

export const TRUST_SUMMARIES_FILE = 'judge-trust.json';
const MAX_BYTES = 1024 * 1024;
const MAX_ENTRIES = 500;

export interface TrustSummary {
  /** The labels file the card was made from (absolute): it names the prompt's stem and folder. */
  labels: string;
  check: string;
  trusted: boolean;
  why: string;
  judge: string;
  /** ISO time the card was made. */
  at: string;
}

/** Where the summaries live: beside the run store (`…/runs.jsonl` → `…/judge-trust.json`). */
export function trustSummariesPath(storePath: string): string {
  return join(dirname(storePath), TRUST_SUMMARIES_FILE);
}

/** The summaries in the file; none when it is missing, too large or not the expected shape. */
export function readTrustSummaries(path: string): TrustSummary[] {
  let text: string;
  try {
    const bytes = readFileSync(path);
    if (bytes.length > MAX_BYTES) return [];
    text = bytes.toString('utf8');
  } catch {
    return [];
  }
  try {
    const value = JSON.parse(text) as { v?: unknown; summaries?: unknown };
    if (value.v !== 1 || !Array.isArray(value.summaries)) return [];
    return value.summaries.filter(isSummary).slice(-MAX_ENTRIES);
  } catch {
    return [];
  }
}

/** The file's new text: these cards replace the earlier ones of the same labels file and check; the newest MAX_ENTRIES are kept. */
export function withTrustSummaries(existing: readonly TrustSummary[], labels: string, cards: readonly TrustCard[], judge: string, at: Date): string {
  const fresh: TrustSummary[] = cards.map((c) => ({ labels, check: c.check, trusted: c.trusted, why: c.why, judge, at: at.toISOString() }));
  const kept = existing.filter((s) => !fresh.some((f) => f.labels === s.labels && f.check === s.check));
  return `${JSON.stringify({ v: 1, summaries: [...kept, ...fresh].slice(-MAX_ENTRIES) })}\n`;
}

/** The summary of `check` for the tests file at `testsPath` (its labels file shares the tests file's stem). */
export function trustSummaryFor(summaries: readonly TrustSummary[], testsPath: string, check: string): TrustSummary | undefined {
  const stem = basename(testsPath).replace(/\.tests\.ya?ml$/i, '');
  const labels = join(dirname(testsPath), `${stem}.labels.jsonl`);
  return summaries.filter((s) => s.labels === labels && s.check === check).at(-1);
}

function isSummary(value: unknown): value is TrustSummary {
  const s = value as Partial<TrustSummary> | null;
  return typeof s === 'object' && s !== null && typeof s.labels === 'string' && typeof s.check === 'string' && typeof s.trusted === 'boolean' && typeof s.why === 'string' && typeof s.judge === 'string' && typeof s.at === 'string';
}
