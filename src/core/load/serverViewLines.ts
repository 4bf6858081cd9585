/**
 * The server's own view of each load point in words, for the `load` text output: running and waiting
 * requests, KV-cache use and — when its /metrics carries DCGM's exporter — GPU utilisation and memory,
 * each as max / mean over the point's steady window. Nothing when no point was sampled.
 */
import type { LoadPoint, Spread } from './loadPointRecord';

const GIB = 1024 ** 3;

export function serverViewLines(points: readonly LoadPoint[]): string[] {
  const sampled = points.filter((p) => p.server !== null);
  if (sampled.length === 0) return [];
  const spread = (s: Spread | null, unit: (v: number) => string): string | null => (s === null ? null : `${unit(s.max)} / ${unit(s.mean)}`);
  const count = (v: number) => (Number.isInteger(v) ? String(v) : v.toFixed(1));
  const pct = (v: number) => `${(v * 100).toFixed(0)}%`;
  const gib = (v: number) => `${(v / GIB).toFixed(2)} GiB`;
  const lines = ["Server's own view (its /metrics over each point's window, max / mean):"];
  for (const p of sampled) {
    const s = p.server!;
    const parts = [
      ['running', spread(s.requestsRunning, count)],
      ['waiting', spread(s.requestsWaiting, count)],
      ['KV cache', spread(s.kvCacheUsage, pct)],
      ['GPU util', spread(s.gpuUtil, pct)],
      ['GPU memory', spread(s.gpuMemoryUsedBytes, gib)],
    ].filter((part): part is [string, string] => part[1] !== null);
    const gpuGap = s.gpuUtil === null && s.gpuMemoryUsedBytes === null ? ' · GPU not exported' : '';
    lines.push(`  ${p.label}: ${parts.map(([name, value]) => `${name} ${value}`).join(' · ') || 'no known gauges'}${gpuGap} (${s.samples} samples)`);
  }
  return lines;
}
