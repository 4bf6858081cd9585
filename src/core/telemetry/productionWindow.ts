/**
 * The time the Production page shows, from the picker's choice: 24 h, 7 d, 30 d, or since the last
 * version change — from a few hours before the newest version went live to now, at least 24 h. With no
 * choice the page covers the last version change and at least the sources' own `since` setting.
 */
import type { FileProduction } from './prodForEditor';
import { sinceToMs } from './prodForEditor';
import type { ProductionWindow } from './productionView';

const HOUR_MS = 3_600_000;
/** How long before the version change the page starts: enough hours to see the usual level before it. */
export const BEFORE_CHANGE_MS = 6 * HOUR_MS;
const DAY_MS = 24 * HOUR_MS;

/** When the newest version of the prompt went live (its first span), over every source; null without a change. */
export function lastVersionChangeMs(production: FileProduction, promptName: string): number | null {
  const changes = production.readings.flatMap((r) => {
    const watched = r.watch?.[promptName]?.versions;
    // The first version seen is no change; each later one is.
    if (watched) return watched.slice(1).map((v) => v.t);
    return r.timeline?.changes.map((c) => c.t) ?? [];
  });
  return changes.length ? Math.max(...changes) : null;
}

/**
 * The `since` to read the sources with (`36h`, `7d`), or undefined when the sources' own settings already
 * cover the window (the lens's cached read serves it).
 */
export function viewSince(production: FileProduction, promptName: string, window: ProductionWindow | undefined, nowMs: number): string | undefined {
  const settingMs = Math.max(DAY_MS, ...production.readings.map((r) => sinceToMs(r.source.since)));
  const everySource = (ms: number) => production.readings.every((r) => sinceToMs(r.source.since) === ms);
  if (window === '24h' || window === '7d' || window === '30d') return everySource(sinceToMs(window)) ? undefined : window;
  const change = lastVersionChangeMs(production, promptName);
  const sinceChangeMs = change === null ? DAY_MS : Math.max(DAY_MS, nowMs - (change - BEFORE_CHANGE_MS));
  const wantedMs = window === 'since-change' ? sinceChangeMs : Math.max(settingMs, sinceChangeMs);
  const hours = Math.ceil(wantedMs / HOUR_MS);
  return everySource(hours * HOUR_MS) ? undefined : `${hours}h`;
}
