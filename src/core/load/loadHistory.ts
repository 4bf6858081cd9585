/**
 * The stored load points of a prompt as a Markdown table for the editor's runs view ("Show Runs"):
 * newest first, one row per point — which test (load id), the level, what was sent and failed, the
 * rates, goodput, SLO attainment against its target with its 95% interval, TTFT/E2E p90, and whether
 * the prefix cache was warm. Every figure as `load` printed it; nothing recomputed.
 */
import { formatMs, formatRate } from '../metrics/format';
import type { StoredLoadPoint } from './loadResults';

/** At most this many rows: the rest is counted in the heading. */
export const MAX_LOAD_ROWS = 50;

export function loadHistoryMarkdown(points: readonly StoredLoadPoint[], max = MAX_LOAD_ROWS): string {
  if (points.length === 0) return '';
  const newest = [...points].sort((a, b) => (a.at < b.at ? 1 : a.at > b.at ? -1 : b.index - a.index)).slice(0, max);
  const pct = (v: number | null | undefined) => (v === null || v === undefined ? '–' : `${Math.round(v * 100)}%`);
  const ms = (v: number | null) => (v === null ? '–' : formatMs(v));
  const rate = (v: number | null) => (v === null ? '–' : formatRate(v));
  const rows = newest.map((r) => {
    const p = r.point;
    const a = p.attainment;
    const interval = a.ci95 ? ` (${pct(a.ci95[0])}–${pct(a.ci95[1])})` : '';
    const verdict = a.resolved === 'meets' ? ' ✓' : a.resolved === 'misses' ? ' ✗' : '';
    const warm = p.cache.counters?.warm === true || p.cache.warm > 0 ? 'warm' : 'cold';
    return `| ${r.at.replace('T', ' ').slice(0, 19)} | ${cell(r.loadId.slice(0, 8))} | ${cell(r.endpointName)}${r.simulated ? ' (sim)' : ''} | ${r.key.promptHash.slice(0, 8)} | ${cell(p.label)} | ${p.sent} / ${p.failed} | ${rate(p.requestsPerSec)} | ${rate(p.goodput.requestsPerSec)} | ${pct(a.share)}${interval}${verdict} vs ${a.target === null ? 'each SLO p' : pct(a.target)} | ${ms(p.ttftMs.p90)} | ${ms(p.e2eMs.p90)} | ${warm}${p.cancelled ? ', cancelled' : ''} |`;
  });
  return [
    `## Load points (latest ${newest.length} of ${points.length})`,
    '',
    'Attainment: the share of requests meeting every latency SLO, with its 95% interval; ✓/✗ when the interval lies on one side of the target.',
    '',
    '| stored | test | endpoint | content | level | sent / failed | req/s | goodput req/s | attainment | TTFT p90 | E2E p90 | cache |',
    '|---|---|---|---|---|---:|---:|---:|---|---:|---:|---|',
    ...rows,
    '',
  ].join('\n');
}

/** A table cell from text someone else wrote (an endpoint name): no pipe, no line break, bounded. */
function cell(text: string): string {
  return text.replace(/[|\r\n\u0000-\u001f\u007f]/g, ' ').slice(0, 80);
}
