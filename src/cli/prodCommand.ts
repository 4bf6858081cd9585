/** `prompt-insight prod`: what production measured for each version of a prompt file. */
import { printable } from '../core/history/fileHistory';
import { formatMs } from '../core/metrics/format';
import type { ProdPercentiles, ProdReport } from '../core/telemetry/prodReport';
import { parseArgs, stringFlag, UsageError } from './args';
import type { CliIO } from './io';
import { PROD_USAGE } from './usage';

export async function prodCommand(argv: string[], io: CliIO): Promise<number> {
  const args = parseArgs(argv, { valued: ['prometheus', 'since', 'prompt', 'timeout-ms'], boolean: ['json'], repeatable: ['traces'] });
  if (args.positionals.length < 1) throw new UsageError(`give the prompt file\nusage: ${PROD_USAGE}`);
  const [file, ...extra] = args.positionals;
  // `--traces a.jsonl b.jsonl.gz`: the paths after --traces are positionals too (PATH…).
  const traces = [...(args.lists.get('traces') ?? []), ...(args.lists.has('traces') ? extra : [])];
  if (!args.lists.has('traces') && extra.length) throw new UsageError(`give exactly one prompt file (got ${args.positionals.length} paths); trace files follow --traces`);
  const prometheus = stringFlag(args, 'prometheus');
  if ((traces.length > 0) === (prometheus !== undefined)) throw new UsageError(`give one source: --traces PATH… or --prometheus URL\nusage: ${PROD_USAGE}`);
  const since = stringFlag(args, 'since');
  const sinceMs = since !== undefined ? parseSince(since, Date.now()) : undefined;
  const prompt = stringFlag(args, 'prompt');
  const signal = io.interrupted();

  let report: ProdReport;
  if (prometheus !== undefined) {
    const { prodFromPrometheus } = await import('../core/telemetry/prodPrometheus');
    const timeoutMs = args.flags.has('timeout-ms') ? Number(stringFlag(args, 'timeout-ms')) : undefined;
    if (timeoutMs !== undefined && !(Number.isInteger(timeoutMs) && timeoutMs >= 100)) throw new UsageError('--timeout-ms must be an integer ≥ 100');
    report = await prodFromPrometheus(file!, prometheus, { ...(since ? { window: since } : {}), ...(prompt ? { prompt } : {}), ...(timeoutMs ? { timeoutMs } : {}), signal });
  } else {
    const { prodFromTraces } = await import('../core/telemetry/prodFromTraces');
    report = await prodFromTraces(file!, traces, { ...(sinceMs !== undefined ? { sinceMs } : {}), ...(prompt ? { prompt } : {}), signal });
  }
  if (args.flags.get('json')) io.stdout(`${JSON.stringify(report, null, 2)}\n`);
  else io.stdout(formatReport(report));
  return 0;
}

const UNIT_MS: Record<string, number> = { s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000, w: 604_800_000 };

/** `24h`, `7d`, `90m`, `2w` before now, or an ISO date. */
export function parseSince(value: string, nowMs: number): number {
  const relative = /^(\d+(?:\.\d+)?)([smhdw])$/.exec(value.trim());
  if (relative) return nowMs - Number(relative[1]) * UNIT_MS[relative[2]!]!;
  if (/^\d{4}-\d{2}-\d{2}/.test(value)) {
    const ms = Date.parse(value);
    if (Number.isFinite(ms)) return ms;
  }
  throw new UsageError(`--since takes a duration (30m, 24h, 7d, 2w) or an ISO date (got '${value}')`);
}

function cell(p: ProdPercentiles, name: 'p50' | 'p90' | 'p99'): string {
  const v = p[name];
  if (!v) return '–';
  const [lo, hi] = v.ci95;
  return `${formatMs(v.value)} [${lo === null ? '…' : formatMs(lo)}, ${hi === null ? '…' : formatMs(hi)}]`;
}

/**
 * The report as text. Versions, prompt names and error types come from the trace files or the
 * Prometheus labels — anyone's text: control characters (terminal escapes) are shown as U+FFFD.
 */
export function formatReport(report: ProdReport): string {
  const lines: string[] = [];
  const source = report.source.kind === 'otlp-files' ? `${report.source.files.length} trace file(s)` : `Prometheus ${report.source.url}`;
  lines.push(`${report.file} in production · ${source}${report.window.since ? ` · since ${report.window.since}` : ''}`);
  if (report.versions.length === 0) lines.push('', 'No production requests for this prompt.');
  for (const v of report.versions) {
    const revision = v.revision ? `${v.revision === 'working' ? 'working copy' : v.revision.slice(0, 10)}${v.revisionSubject && v.revision !== 'working' ? ` "${v.revisionSubject}"` : ''}` : 'not in git history';
    lines.push('', `version ${v.version}${v.promptName ? ` (${v.promptName})` : ''} · ${revision}`);
    lines.push(`  ${v.requests} requests · ${v.errors} errors (${(v.errorRate * 100).toFixed(1)}%)${Object.keys(v.errorsByType).length ? ` · ${Object.entries(v.errorsByType).map(([t, n]) => `${t} ${n}`).join(', ')}` : ''}`);
    for (const [label, p] of [['TTFT', v.ttftMs], ['E2E ', v.e2eMs], ['TPOT', v.tpotMs]] as const) {
      if (p.n === 0) continue;
      lines.push(`  ${label} p50 ${cell(p, 'p50')} · p90 ${cell(p, 'p90')} · p99 ${cell(p, 'p99')}  (n=${p.n}${p.sampled ? ', sampled' : ''})`);
    }
    if (v.tokens.requestsWithUsage > 0) lines.push(`  tokens in ${v.tokens.input} · out ${v.tokens.output}${v.cacheReadShare !== null ? ` · cache-read share ${(v.cacheReadShare * 100).toFixed(1)}%` : ''}`);
  }
  if (report.comparison) {
    lines.push('', `latest ${report.comparison.head} vs previous ${report.comparison.base}:`);
    for (const verdict of report.comparison.verdicts) lines.push(`  ${verdict.verdict.padEnd(13)} ${verdict.summary}`);
  }
  const reasons = Object.entries(report.skipped.reasons);
  if (reasons.length) lines.push('', `skipped: ${report.skipped.lines} lines, ${report.skipped.spans} spans (${reasons.map(([r, n]) => `${r} ${n}`).join(', ')})`);
  const others = Object.entries(report.otherPrompts);
  if (others.length) lines.push(`other prompts in the source: ${others.map(([n, c]) => `${n} ${c}`).join(', ')}`);
  for (const note of report.notes) lines.push(`note: ${note}`);
  return `${lines.map(printable).join('\n')}\n`;
}
