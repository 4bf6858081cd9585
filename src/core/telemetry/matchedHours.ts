/**
 * Two prompt versions compared over matched time, never morning traffic against the evening peak. Each
 * version keeps its requests per UTC hour (a bounded, seeded reservoir of TTFT and E2E values per hour);
 * a comparison takes, in every hour both versions served — a canary or gray release running side by side —
 * the same number of requests from each (the smaller of the two, drawn at random with a fixed seed), so
 * both samples have the same mix of hours. Without such hours, the same hours of the week (a version that
 * replaced another is compared with the hours the other served a week or more before); with neither,
 * there is no verdict, and the report says why.
 */
import { seededRandom } from '../stats/random';
import { mergeReservoirs, reservoirKeep } from '../stats/reservoir';

export const HOUR_MS = 3_600_000;
const WEEK_HOURS = 168;
/** Values kept per version, hour and metric (a fixed-seed reservoir beyond). */
export const MAX_PER_HOUR = 500;
/** Side-by-side hours the same-hours method wants before it is preferred to the hours of the week. */
const MIN_SHARED_HOURS = 3;
/**
 * The matched requests must be at least this share of the smaller version's: the deploy's own hour, where the
 * old version served its first twenty minutes and the new one the rest, is no comparison of the two.
 */
const MIN_COVERAGE = 0.25;

export interface HourFigures {
  requests: number;
  errors: number;
  ttft: number[];
  ttftSeen: number;
  e2e: number[];
  e2eSeen: number;
}

/** A version's requests per hour start (Unix ms). */
export class HourlyValues {
  readonly hours = new Map<number, HourFigures>();
  private readonly random: () => number;

  constructor(seed: number) {
    this.random = seededRandom(seed);
  }

  add(startMs: number, failed: boolean, ttftMs: number | null, e2eMs: number): void {
    const t = Math.floor(startMs / HOUR_MS) * HOUR_MS;
    let h = this.hours.get(t);
    if (!h) this.hours.set(t, (h = { requests: 0, errors: 0, ttft: [], ttftSeen: 0, e2e: [], e2eSeen: 0 }));
    h.requests++;
    if (failed) {
      h.errors++;
      return;
    }
    this.keep(h.e2e, ++h.e2eSeen, e2eMs);
    if (ttftMs !== null) this.keep(h.ttft, ++h.ttftSeen, ttftMs);
  }

  /** Another label's hours of the same version (versionResolver.ts revisionRename). */
  absorb(other: HourlyValues): void {
    for (const [t, h] of other.hours) {
      const into = this.hours.get(t);
      if (!into) this.hours.set(t, { ...h, ttft: [...h.ttft], e2e: [...h.e2e] });
      else {
        into.requests += h.requests;
        into.errors += h.errors;
        into.e2e = mergeReservoirs(into.e2e, into.e2eSeen, h.e2e, h.e2eSeen, MAX_PER_HOUR, this.random);
        into.e2eSeen += h.e2eSeen;
        into.ttft = mergeReservoirs(into.ttft, into.ttftSeen, h.ttft, h.ttftSeen, MAX_PER_HOUR, this.random);
        into.ttftSeen += h.ttftSeen;
      }
    }
  }

  private keep(values: number[], seen: number, value: number): void {
    reservoirKeep(values, MAX_PER_HOUR, seen, value, this.random);
  }
}

export type MatchMethod = 'same-hours' | 'same-hours-of-week' | 'unmatched';

export interface MatchedSide {
  ttftMs: number[];
  e2eMs: number[];
  requests: number;
  errors: number;
}

export interface MatchedTime {
  method: MatchMethod;
  /** Hours (or hours of the week) both sides are drawn from. */
  hours: number;
  base: MatchedSide;
  head: MatchedSide;
  /** How the time was matched, or why it could not be, in words. */
  summary: string;
}

type Slots = Map<number, HourFigures[]>;

function slotsOf(values: HourlyValues, slotOf: (t: number) => number): Slots {
  const slots: Slots = new Map();
  for (const [t, h] of values.hours) {
    const slot = slotOf(t);
    const list = slots.get(slot);
    if (list) list.push(h);
    else slots.set(slot, [h]);
  }
  return slots;
}

/** Each shared slot's requests drawn in equal numbers from both sides. */
function balance(base: Slots, head: Slots, seed: number): { hours: number; base: MatchedSide; head: MatchedSide } {
  const random = seededRandom(seed);
  const draw = (values: number[], k: number) => {
    const copy = [...values];
    for (let i = copy.length - 1; i > 0; i--) {
      const j = Math.floor(random() * (i + 1));
      [copy[i], copy[j]] = [copy[j]!, copy[i]!];
    }
    return copy.slice(0, k);
  };
  const out = { hours: 0, base: { ttftMs: [] as number[], e2eMs: [] as number[], requests: 0, errors: 0 }, head: { ttftMs: [] as number[], e2eMs: [] as number[], requests: 0, errors: 0 } };
  let baseErrors = 0;
  let headErrors = 0;
  for (const [slot, baseHours] of [...base].sort((a, b) => a[0] - b[0])) {
    const headHours = head.get(slot);
    if (!headHours) continue;
    const pool = (hours: HourFigures[]) => ({ requests: hours.reduce((n, h) => n + h.requests, 0), errors: hours.reduce((n, h) => n + h.errors, 0), ttft: hours.flatMap((h) => h.ttft), e2e: hours.flatMap((h) => h.e2e) });
    const b = pool(baseHours);
    const h = pool(headHours);
    out.hours++;
    const kE2e = Math.min(b.e2e.length, h.e2e.length);
    const kTtft = Math.min(b.ttft.length, h.ttft.length);
    out.base.e2eMs.push(...draw(b.e2e, kE2e));
    out.head.e2eMs.push(...draw(h.e2e, kE2e));
    out.base.ttftMs.push(...draw(b.ttft, kTtft));
    out.head.ttftMs.push(...draw(h.ttft, kTtft));
    // Counts: the same number of requests a side, errors at each side's rate in that slot — summed unrounded and
    // rounded once: a canary's big side has a fraction of an error an hour, which rounded hour by hour is none.
    const k = Math.min(b.requests, h.requests);
    out.base.requests += k;
    out.head.requests += k;
    if (k > 0) {
      baseErrors += (b.errors * k) / b.requests;
      headErrors += (h.errors * k) / h.requests;
    }
  }
  out.base.errors = Math.round(baseErrors);
  out.head.errors = Math.round(headErrors);
  return out;
}

const hourOfWeek = (t: number) => Math.floor(t / HOUR_MS) % WEEK_HOURS;

/** Base and head over matched time (see the module comment); `enough` is how many values a verdict needs a side. */
export function matchTime(base: HourlyValues, head: HourlyValues, enough: number): MatchedTime {
  const sameHours = balance(slotsOf(base, (t) => t), slotsOf(head, (t) => t), 17);
  const sameWeekHours = balance(slotsOf(base, hourOfWeek), slotsOf(head, hourOfWeek), 29);
  const total = (v: HourlyValues) => [...v.hours.values()].reduce((n, h) => n + h.requests, 0);
  const smaller = Math.min(total(base), total(head));
  const sufficient = (m: { base: MatchedSide }) => m.base.requests >= enough && m.base.requests >= MIN_COVERAGE * smaller;
  const said = (n: number, unit: string) => `${n} ${unit}${n === 1 ? '' : 's'}`;
  if (sufficient(sameHours) && (sameHours.hours >= MIN_SHARED_HOURS || !sufficient(sameWeekHours))) {
    return { method: 'same-hours', ...sameHours, summary: `over the ${said(sameHours.hours, 'hour')} both versions served side by side (${sameHours.base.requests} requests a side, drawn evenly from each hour)` };
  }
  if (sufficient(sameWeekHours)) {
    return { method: 'same-hours-of-week', ...sameWeekHours, summary: `over the same hours of the week (${said(sameWeekHours.hours, 'hour')} of the week both versions served, ${sameWeekHours.base.requests} requests a side)` };
  }
  const span = (v: HourlyValues) => {
    const hours = [...v.hours.keys()].sort((a, b) => a - b);
    return hours.length ? `${new Date(hours[0]!).toISOString().slice(0, 13)}h–${new Date(hours.at(-1)! + HOUR_MS).toISOString().slice(0, 13)}h` : 'no hours';
  };
  return {
    method: 'unmatched',
    ...sameHours,
    summary: `no verdict: the two versions served different hours (${span(base)} and ${span(head)} UTC), with too few hours in common, side by side or by the hour of the week (${Math.max(sameHours.base.requests, sameWeekHours.base.requests)} matched requests a side, under ${Math.round(MIN_COVERAGE * 100)}% of ${smaller}) — traffic differs by the hour, so comparing them would compare the hours`,
  };
}
