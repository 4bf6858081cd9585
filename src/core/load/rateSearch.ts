/**
 * The highest request rate (open loop: arrivals as the chosen process sends them, whether or not the
 * server kept up) whose levels reach their SLO attainment targets — the figure a user-facing service
 * plans with. From a starting rate (what the closed-loop search sustained), doubled while it
 * attains and halved while it does not, then bisected until the rates that attain and that do not are
 * within 10% of each other. Each level says whether its one-sided bounds settled it.
 */
import type { LoadPoint } from './loadPointRecord';

export interface RateCapacity {
  /** The highest rate (requests/s) that attained; 0 when even the lowest tried did not. */
  maxRatePerSec: number;
  /** Both the answer and the next rate above it are settled by their bounds. */
  resolved: boolean;
  requestsToResolve: number | null;
  points: LoadPoint[];
}

const PRECISION = 0.1;
const MAX_STEPS = 12;

/** Three significant digits: a rate is planned with, not read to the millisecond. */
function round(rate: number): number {
  return Number(rate.toPrecision(3));
}

export async function searchMaxRate(measure: (ratePerSec: number) => Promise<LoadPoint>, options: { startRatePerSec: number; signal?: AbortSignal }): Promise<RateCapacity> {
  const tried = new Map<number, LoadPoint>();
  const attains = async (rate: number): Promise<boolean> => {
    let point = tried.get(rate);
    if (!point) tried.set(rate, (point = await measure(rate)));
    return point.attainment.attains;
  };
  let good = 0;
  let bad: number | undefined;
  let rate = round(Math.max(0.01, options.startRatePerSec));
  let steps = 0;
  if (await attains(rate)) {
    good = rate;
    while (!options.signal?.aborted && steps++ < MAX_STEPS) {
      rate = round(rate * 2);
      if (await attains(rate)) good = rate;
      else {
        bad = rate;
        break;
      }
    }
  } else {
    bad = rate;
    while (!options.signal?.aborted && steps++ < MAX_STEPS) {
      rate = round(rate / 2);
      if (await attains(rate)) {
        good = rate;
        break;
      }
      bad = rate;
    }
  }
  while (bad !== undefined && good > 0 && bad / good > 1 + PRECISION && !options.signal?.aborted && steps++ < MAX_STEPS) {
    const mid = round((good + bad) / 2);
    if (mid === good || mid === bad) break;
    if (await attains(mid)) good = mid;
    else bad = mid;
  }
  const settled = (r: number | undefined) => r === undefined || r === 0 || tried.get(r)?.attainment.resolved !== null;
  const resolved = settled(good) && settled(bad);
  const needs = [good, bad].map((r) => (r === undefined || r === 0 ? 0 : (tried.get(r)?.attainment.requestsToResolve ?? 0)));
  const points = [...tried.values()].sort((a, b) => rateOf(a) - rateOf(b));
  return { maxRatePerSec: good, resolved, requestsToResolve: resolved ? null : Math.max(...needs) || null, points };
}

function rateOf(point: LoadPoint): number {
  return point.level.kind === 'rate' ? point.level.ratePerSec : 0;
}
