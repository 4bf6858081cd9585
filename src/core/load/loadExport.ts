/**
 * Stored load points for other tools: JSON `{ "loadPoints": [...] }` (each stored point whole, its
 * figures exactly as `load --json` printed them), or CSV with one row per point and its headline
 * figures (`export --kind load`).
 */
import { csvCell } from '../store/export';
import type { StoredLoadPoint } from './loadResults';

const CSV_COLUMNS: [string, (r: StoredLoadPoint) => unknown][] = [
  ['at', (r) => r.at],
  ['loadId', (r) => r.loadId],
  ['index', (r) => r.index],
  ['file', (r) => r.file],
  ['prompt', (r) => r.prompt],
  ['endpoint', (r) => r.endpointName],
  ['simulated', (r) => r.simulated],
  ['model', (r) => r.key.model],
  ['promptHash', (r) => r.key.promptHash],
  ['slo', (r) => r.slo.join('; ')],
  ['level', (r) => r.point.label],
  ['concurrency', (r) => (r.point.level.kind === 'concurrency' ? r.point.level.concurrency : '')],
  ['ratePerSec', (r) => (r.point.level.kind === 'rate' ? r.point.level.ratePerSec : '')],
  ['sent', (r) => r.point.sent],
  ['failed', (r) => r.point.failed],
  ['counted', (r) => r.point.counted],
  ['requestsPerSec', (r) => r.point.requestsPerSec ?? ''],
  ['outputTokensPerSec', (r) => r.point.outputTokensPerSec ?? ''],
  ['goodputRequestsPerSec', (r) => r.point.goodput.requestsPerSec ?? ''],
  ['goodputOutputTokensPerSec', (r) => r.point.goodput.outputTokensPerSec ?? ''],
  ['attainment', (r) => r.point.attainment.share ?? ''],
  ['attainmentLow', (r) => r.point.attainment.ci95?.[0] ?? ''],
  ['attainmentHigh', (r) => r.point.attainment.ci95?.[1] ?? ''],
  ['attainmentTarget', (r) => r.point.attainment.target ?? 'per SLO percentile'],
  ['resolved', (r) => r.point.attainment.resolved ?? ''],
  ['ttftP50Ms', (r) => r.point.ttftMs.p50 ?? ''],
  ['ttftP90Ms', (r) => r.point.ttftMs.p90 ?? ''],
  ['ttftP99Ms', (r) => r.point.ttftMs.p99 ?? ''],
  ['e2eP50Ms', (r) => r.point.e2eMs.p50 ?? ''],
  ['e2eP90Ms', (r) => r.point.e2eMs.p90 ?? ''],
  ['e2eP99Ms', (r) => r.point.e2eMs.p99 ?? ''],
  ['tpotP50Ms', (r) => r.point.tpotMs.p50 ?? ''],
  ['tpotP90Ms', (r) => r.point.tpotMs.p90 ?? ''],
  ['inputTokens', (r) => r.point.inputTokens ?? ''],
  ['outputTokens', (r) => r.point.outputTokens ?? ''],
  ['prefixCacheHitRate', (r) => r.point.cache.counters?.hitRate ?? ''],
  ['prefixCacheSource', (r) => r.point.cache.counters?.source ?? ''],
  ['warm', (r) => (r.point.cache.counters?.warm ?? false) || r.point.cache.warm > 0],
  ['cancelled', (r) => r.point.cancelled],
];

export function loadPointsToJson(records: readonly StoredLoadPoint[]): string {
  return `${JSON.stringify({ loadPoints: records }, null, 2)}\n`;
}

export function loadPointsToCsv(records: readonly StoredLoadPoint[]): string {
  const lines = [CSV_COLUMNS.map(([name]) => name).join(',')];
  for (const record of records) lines.push(CSV_COLUMNS.map(([, get]) => csvCell(get(record))).join(','));
  return `${lines.join('\r\n')}\r\n`;
}
