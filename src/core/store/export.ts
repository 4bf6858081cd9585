/** Store contents as JSON or CSV for spreadsheets and other tools. */
import type { StoredRun } from './resultsStore';

const CSV_COLUMNS: [string, (r: StoredRun) => unknown][] = [
  ['at', (r) => r.at],
  ['file', (r) => r.file],
  ['prompt', (r) => r.prompt],
  ['revision', (r) => r.revision ?? ''],
  ['endpoint', (r) => r.endpointName],
  ['simulated', (r) => r.simulated],
  ['model', (r) => r.key.model],
  ['promptHash', (r) => r.key.promptHash],
  ['ok', (r) => r.run.ok],
  ['status', (r) => r.run.status ?? ''],
  ['errorKind', (r) => r.run.error?.kind ?? ''],
  ['errorMessage', (r) => r.run.error?.message ?? ''],
  ['ttftMs', (r) => r.run.ttftMs ?? ''],
  ['firstAnswerMs', (r) => r.run.firstAnswerMs ?? ''],
  ['e2eMs', (r) => r.run.e2eMs ?? ''],
  ['streamEndMs', (r) => r.run.streamEndMs],
  ['tpotMs', (r) => r.run.tpotMs ?? ''],
  ['outputTokens', (r) => r.run.outputTokens ?? ''],
  ['outputTokensSource', (r) => r.run.outputTokensSource ?? ''],
  ['inputTokens', (r) => r.run.inputTokens ?? ''],
  ['inputTokensSource', (r) => r.run.inputTokensSource ?? ''],
  ['finishReason', (r) => r.run.finishReason ?? ''],
  ['streamed', (r) => r.run.streamed],
  ['retries', (r) => r.run.retries],
];

export function runsToJson(records: readonly StoredRun[]): string {
  return `${JSON.stringify(records, null, 2)}\n`;
}

export function runsToCsv(records: readonly StoredRun[]): string {
  const lines = [CSV_COLUMNS.map(([name]) => name).join(',')];
  for (const record of records) lines.push(CSV_COLUMNS.map(([, get]) => csvCell(get(record))).join(','));
  return `${lines.join('\r\n')}\r\n`;
}

/** RFC 4180 quoting; cells a spreadsheet would run as a formula get a leading apostrophe. */
export function csvCell(value: unknown): string {
  let text = typeof value === 'number' ? String(Math.round(value * 1000) / 1000) : String(value);
  if (/^[=+\-@\t\r]/.test(text) && typeof value === 'string') text = `'${text}`;
  return /[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}
