/** Tiny helpers for benchmark tables: medians, percentiles, aligned columns. */
import { percentile } from '../src/core/stats/percentile';
export function median(values: number[]): number {
  return quantile(values, 0.5);
}

/** The product's one percentile definition (core/metrics), so benchmarks and views agree. */
export function quantile(values: number[], q: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted.length === 0 ? Number.NaN : percentile(sorted, q);
}

export function table(headers: string[], rows: (string | number)[][]): string {
  const cells = [headers, ...rows.map((r) => r.map(String))];
  const widths = headers.map((_, i) => Math.max(...cells.map((r) => r[i]!.length)));
  const line = (r: string[]) => `| ${r.map((c, i) => (i === 0 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join(' | ')} |`;
  return [line(cells[0]!), `|${widths.map((w, i) => (i === 0 ? `${'-'.repeat(w + 1)}-` : `${'-'.repeat(w + 1)}:`)).join('|')}|`, ...cells.slice(1).map(line)].join('\n');
}

export const fmt = (n: number, digits = 1) => n.toFixed(digits);
