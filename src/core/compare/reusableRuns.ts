/**
 * Before planning: the stored runs a comparison may reuse, by run key. Cancelled runs are never
 * reused (they say nothing about the prompt), nor stale ones, nor ones measured with the prefix
 * cache in another state than the comparison asks for.
 */
import type { CacheMode } from '../endpoint/serverKind';
import type { RunRecord } from '../metrics/runRecord';
import type { ResultsStore, StoredRun } from '../store/resultsStore';
import { storeNotice } from '../store/sealedLines';
import { runKeyString } from '../store/runKey';

/** Stored runs older than this are not reused by default: the server, its load and its version move on. */
export const DEFAULT_FRESHNESS_MS = 24 * 60 * 60 * 1000;

export interface ReuseOptions {
  store?: ResultsStore;
  fresh: boolean;
  cache?: CacheMode;
  freshnessMs?: number;
  now?: () => number;
}

/** The reusable runs by run key, and what the store said when it could not be read whole. */
export function reusableRuns(options: ReuseOptions): { stored: Map<string, StoredRun[]>; storeProblem: string | undefined } {
  if (!options.store || options.fresh) return { stored: new Map(), storeProblem: undefined };
  const now = options.now?.() ?? Date.now();
  const freshnessMs = options.freshnessMs ?? DEFAULT_FRESHNESS_MS;
  const cacheMode = options.cache ?? 'cold';
  const contents = options.store.read((r) => r.run.error?.kind !== 'cancelled' && now - Date.parse(r.at) <= freshnessMs && cacheStateFits(r.run.cache, cacheMode));
  return { stored: indexStore(contents.records), storeProblem: storeNotice(options.store.path, contents) };
}

/** Stored runs fit a cold comparison when the server did not serve them from its cache, a warm one when it did. */
function cacheStateFits(state: RunRecord['cache'], mode: CacheMode): boolean {
  if (mode === 'cold') return state !== 'warm';
  if (mode === 'warm') return state === 'warm';
  return true;
}

function indexStore(records: readonly StoredRun[]): Map<string, StoredRun[]> {
  const byKey = new Map<string, StoredRun[]>();
  for (const record of records) {
    const key = runKeyString(record.key);
    let list = byKey.get(key);
    if (!list) byKey.set(key, (list = []));
    list.push(record);
  }
  return byKey;
}
