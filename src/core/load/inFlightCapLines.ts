/**
 * The cap on requests in flight of each open-loop point in words, for the `load` text output: the
 * cap and where it came from, whether it was reached, how many arrivals waited for a place (and how
 * long, from their scheduled time) and how many were dropped. Nothing for closed-loop points.
 */
import { formatMs } from '../metrics/format';
import type { LoadPoint } from './loadPointRecord';

export function inFlightCapLines(points: readonly LoadPoint[]): string[] {
  const lines: string[] = [];
  for (const p of points) {
    const cap = p.inFlightCap;
    if (!cap) continue;
    const from = cap.source === 'default' ? 'the default; --max-concurrency C sets it' : '--max-concurrency';
    const n = (v: number) => v.toLocaleString('en-US');
    if (!cap.reached) {
      lines.push(`In flight at ${p.label}: at most ${cap.cap} (${from}) — not reached; every arrival went out on schedule.`);
      continue;
    }
    const wait = p.dispatchDelayMs && p.dispatchDelayMs.p90 !== null ? ` (dispatch delay from the scheduled time p50 ${formatMs(p.dispatchDelayMs.p50 ?? 0)} / p90 ${formatMs(p.dispatchDelayMs.p90)})` : '';
    const unsent = cap.unsent > 0 ? `, ${n(cap.unsent)} still waiting when cancelled` : '';
    lines.push(`In flight at ${p.label}: at most ${cap.cap} (${from}) — reached: of ${n(cap.arrived)} arrivals, ${n(cap.waited)} waited for a place${wait}, ${n(cap.dropped)} dropped, never sent (at most ${cap.maxWaiting} wait)${unsent}.`);
  }
  return lines;
}
