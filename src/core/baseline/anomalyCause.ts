/**
 * What moved with an anomaly, and what that points at (the source document's attribution rules): input
 * tokens per request up → the prompt grew (prefill); the server's queue or KV cache up while input stayed
 * flat → capacity; time per output token up → decoding. Each companion series is compared between the day
 * before the anomaly (before its version change, when one caused it) and the anomaly's own windows.
 */
import type { Anomaly } from './anomalies';
import type { SeriesPoint } from '../stats/seasonalBaseline';

export type Companion = 'input-tokens' | 'tpot.p50' | 'queue' | 'kv-cache';

export interface Moved {
  metric: Companion;
  before: number;
  during: number;
  /** during / before − 1. */
  change: number;
}

export interface Explanation {
  movedWith: Moved[];
  /** What the moves point at, or null when nothing moved beyond the margin. */
  pointsAt: 'prompt' | 'capacity' | 'decoding' | null;
  summary: string | null;
}

/** A companion moved when it changed by more than this share. */
const MOVED = 0.15;
const DAY_MS = 86_400_000;

function median(values: number[]): number | null {
  if (values.length === 0) return null;
  const s = [...values].sort((a, b) => a - b);
  return s.length % 2 ? s[s.length >> 1]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2;
}

const WORDS: Record<Companion, string> = { 'input-tokens': 'input tokens per request', 'tpot.p50': 'time per output token', queue: 'requests waiting in the server queue', 'kv-cache': 'KV-cache use' };

export function explainAnomaly(anomaly: Anomaly, companions: Partial<Record<Companion, readonly SeriesPoint[]>>, windowMs = 3_600_000): Explanation {
  const cut = anomaly.likelyCause ? Math.min(anomaly.start, Math.floor(anomaly.likelyCause.t / windowMs) * windowMs) : anomaly.start;
  const end = anomaly.end ?? Infinity;
  const movedWith: Moved[] = [];
  for (const [metric, series] of Object.entries(companions) as [Companion, readonly SeriesPoint[]][]) {
    const before = median(series.filter((p) => p.t < cut && p.t >= cut - DAY_MS).map((p) => p.value));
    const during = median(series.filter((p) => p.t >= anomaly.start && p.t < end).map((p) => p.value));
    if (before === null || during === null) continue;
    const change = before === 0 ? (during === 0 ? 0 : Infinity) : during / before - 1;
    movedWith.push({ metric, before, during, change });
  }
  const up = (m: Companion) => movedWith.find((x) => x.metric === m && x.change > MOVED);
  const flatInput = !movedWith.some((x) => x.metric === 'input-tokens' && Math.abs(x.change) > MOVED);
  const said = (x: Moved) => `${WORDS[x.metric]} ${x.change === Infinity ? 'up from 0' : `${x.change >= 0 ? '+' : ''}${Math.round(x.change * 100)}%`}`;
  let pointsAt: Explanation['pointsAt'] = null;
  let summary: string | null = null;
  const input = up('input-tokens');
  const capacity = flatInput ? (up('queue') ?? up('kv-cache')) : undefined;
  const decoding = up('tpot.p50');
  if (input) [pointsAt, summary] = ['prompt', `${said(input)}: the prompt grew (more to prefill) — see what the version changed`];
  else if (capacity) [pointsAt, summary] = ['capacity', `${said(capacity)} with input flat: capacity — the server is busier, not the prompt`];
  else if (decoding) [pointsAt, summary] = ['decoding', `${said(decoding)}: decoding is slower (longer answers are not it; the server, its batch or its KV cache)`];
  return { movedWith, pointsAt, summary };
}
