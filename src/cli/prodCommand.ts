/** `prompt-insight prod`: what production measured for each version of a prompt file. */
import { basename } from 'node:path';
import type { ProductionSource } from '../core/telemetry/productionSettings';
import { describeProductionSource } from '../core/telemetry/productionSettings';
import { standaloneReportHtml } from '../core/compare/report';
import { printable } from '../core/history/fileHistory';
import { sinceToMs, type FileProduction } from '../core/telemetry/prodForEditor';
import { ProdTimeline, type TimelineData } from '../core/telemetry/prodTimeline';
import { loadFileVersions, type FileVersions } from '../core/telemetry/prodVersions';
import { productionView } from '../core/telemetry/productionView';
import { fanOut, versionWindows, type VersionWindow, type WindowPercentiles } from '../core/telemetry/prodWindows';
import { windowSizeMs } from '../core/telemetry/prodWindows';
import { reportAssets } from './reportAssets';
import { formatMs } from '../core/metrics/format';
import type { ProdPercentiles, ProdReport } from '../core/telemetry/prodReport';
import { sourceLines } from '../core/telemetry/prodSources';
import { nowFlag, parseArgs, stringFlag, UsageError, type ParsedArgs } from './args';
import type { CliIO } from './io';
import { checkOutputFiles, outputFlag, writeOutput } from './outputFiles';
import { terminalJson } from './terminalText';
import { PROD_USAGE } from './help/usage';
import { baseVersionTable, ReleaseError } from '../core/release/baseSide';
import { scoreAndDecide, wantsAnswers, type AdherencePlan } from '../core/release/scoreAndDecide';
import { ADHERENCE_BOOLEAN, ADHERENCE_REPEATABLE, ADHERENCE_VALUED, adherenceLines, adherencePlan, decisionExitCode, decisionText, releaseUsageError } from './prodAdherenceFlags';

export async function prodCommand(argv: string[], io: CliIO): Promise<number> {
  try {
    return await prod(argv, io);
  } catch (error) {
    throw error instanceof ReleaseError ? releaseUsageError(error) : error;
  }
}

async function prod(argv: string[], io: CliIO): Promise<number> {
  const args = parseArgs(argv, { valued: ['prometheus', 'since', 'prompt', 'timeout-ms', 'window', 'report', 'now', ...ADHERENCE_VALUED], boolean: ['json', ...ADHERENCE_BOOLEAN], repeatable: ['traces', ...ADHERENCE_REPEATABLE] });
  if (args.positionals.length < 1) throw new UsageError(`give the prompt file\nusage: ${PROD_USAGE}`);
  const [file, ...extra] = args.positionals;
  // `--traces a.jsonl b.jsonl.gz`: the paths after --traces are positionals too (PATH…).
  const traces = [...(args.lists.get('traces') ?? []), ...(args.lists.has('traces') ? extra : [])];
  if (!args.lists.has('traces') && extra.length) throw new UsageError(`give exactly one prompt file (got ${args.positionals.length} paths); trace files follow --traces`);
  const prometheus = stringFlag(args, 'prometheus');
  if ((traces.length > 0) === (prometheus !== undefined)) throw new UsageError(`give one source: --traces PATH… or --prometheus URL\nusage: ${PROD_USAGE}`);
  const nowMs = nowFlag(args);
  const since = stringFlag(args, 'since');
  const sinceMs = since !== undefined ? parseSince(since, nowMs) : undefined;
  const prompt = stringFlag(args, 'prompt');
  const windowArg = stringFlag(args, 'window');
  const windowMs = windowArg !== undefined ? windowSizeMs(windowArg) : undefined;
  if (windowMs === null) throw new UsageError(`--window takes a window size such as 30m, 1h, 6h or 1d (1 min to 28 d; got '${windowArg}')`);
  const reportPath = stringFlag(args, 'report');
  checkOutputFiles([outputFlag(reportPath, 'the HTML report (--report)')]);
  const signal = io.interrupted();
  const fileVersions = loadFileVersions(file!, { signal });
  if (prometheus !== undefined && args.flags.has('decide')) throw new UsageError('--decide reads trace files (--traces): it needs each request, its hour and its answer; Prometheus keeps counts per bucket');
  const scoring = adherencePlan(args, { ...(sinceMs !== undefined ? { sinceMs } : {}), ...(args.flags.has('now') ? { untilMs: nowMs } : {}) }, 60_000, signal);

  const read: ReadRequest = { file: file!, args, nowMs, ...(since !== undefined ? { since } : {}), ...(sinceMs !== undefined ? { sinceMs } : {}), ...(prompt !== undefined ? { prompt } : {}), ...(windowMs !== undefined ? { windowMs, windowArg: windowArg! } : {}), ...(reportPath !== undefined ? { reportPath } : {}), fileVersions, signal };
  const { report, windows, hourly, source } = prometheus !== undefined ? await readPrometheus(read, prometheus) : await readTraces(read, traces, scoring);
  const { decision, notes: scoringNotes } = prometheus === undefined ? await scoreAndDecide(file!, scoring, report, await fileVersions, prompt, signal) : { decision: undefined, notes: [] };
  report.notes.push(...scoringNotes);
  const byVersion = windows ? versionWindows(windows) : null;
  if (reportPath) {
    const versions = await fileVersions;
    const production: FileProduction = { file: file!, versions, readAtMs: nowMs, readings: [{ source, label: describeProductionSource(source), report, timeline: hourly, notes: report.notes }] };
    const promptName = prompt ?? report.versions.find((v) => v.promptName !== null)?.promptName ?? [...versions.promptNames][0] ?? basename(file!);
    // The text on disk: the newest revision (or the working copy when it differs from every revision).
    const onDisk = versions.revisions[0]?.rev;
    const view = productionView(file!, production, promptName, (v) => onDisk !== undefined && v.revision === onDisk);
    writeOutput({ path: reportPath, what: 'the HTML report (--report)' }, standaloneReportHtml(`Prompt Insight production: ${promptName}`, view, reportAssets()));
    if (!args.flags.get('json')) io.stderr(`Report written to ${reportPath}\n`);
  }
  if (args.flags.get('json')) {
    const json = byVersion ? { ...report, window: { ...report.window, size: windowArg }, versions: report.versions.map((v) => ({ ...v, windows: byVersion.get(v.version) ?? [] })) } : report;
    io.stdout(`${terminalJson(decision ? { ...json, decision } : json)}\n`);
  } else io.stdout(`${formatReport(report, byVersion ?? undefined)}${decision ? `\n${decisionText(decision)}\n` : ''}`);
  return decision ? decisionExitCode(decision, scoring.decide!.failOnRegression) : 0;
}

/** What both sources are read for: the range, the windows, the report's chart. */
interface ReadRequest {
  file: string;
  args: ParsedArgs;
  nowMs: number;
  since?: string;
  sinceMs?: number;
  prompt?: string;
  windowMs?: number;
  windowArg?: string;
  reportPath?: string;
  fileVersions: Promise<FileVersions>;
  signal: AbortSignal;
}

interface ProdRead {
  report: ProdReport;
  /** Per `--window` (null without), and hourly for `--report` (null without). */
  windows: TimelineData | null;
  hourly: TimelineData | null;
  source: ProductionSource;
}

async function readPrometheus(r: ReadRequest, prometheus: string): Promise<ProdRead> {
  const { prodFromPrometheus, DEFAULT_PROMETHEUS_MAX_BYTES, DEFAULT_PROMETHEUS_TIMEOUT_MS } = await import('../core/telemetry/prodPrometheus');
  const { prometheusTimeline } = await import('../core/telemetry/prodPrometheusTimeline');
  const timeoutMs = r.args.flags.has('timeout-ms') ? Number(stringFlag(r.args, 'timeout-ms')) : undefined;
  if (timeoutMs !== undefined && !(Number.isInteger(timeoutMs) && timeoutMs >= 100)) throw new UsageError('--timeout-ms must be an integer ≥ 100');
  // parseSince admits no years; an ISO date is refused by prodFromPrometheus (a PromQL range is a duration).
  const rangeMs = sinceToMs(r.since ?? '24h');
  // Prometheus answers at most 11,000 points per series; the hourly chart of the report asks for one per hour.
  for (const step of [r.windowMs, r.reportPath ? 3_600_000 : undefined]) {
    if (step !== undefined && rangeMs / step > 10_000) throw new UsageError(`--since ${r.since} in windows of ${step === r.windowMs ? r.windowArg : '1h (the report)'} is more than the 10,000 points one range query answers: a shorter --since or a larger --window`);
  }
  const report = await prodFromPrometheus(r.file, prometheus, { ...(r.since ? { window: r.since } : {}), ...(r.prompt ? { prompt: r.prompt } : {}), ...(timeoutMs ? { timeoutMs } : {}), atMs: r.nowMs, fileVersions: r.fileVersions, signal: r.signal });
  const call = { sinceMs: r.nowMs - rangeMs, atMs: r.nowMs, timeoutMs: timeoutMs ?? DEFAULT_PROMETHEUS_TIMEOUT_MS, maxBytes: DEFAULT_PROMETHEUS_MAX_BYTES };
  const windows = r.windowMs !== undefined ? await prometheusTimeline(prometheus, report, { ...call, stepMs: r.windowMs, band: false }) : null;
  const hourly = r.reportPath ? await prometheusTimeline(prometheus, report, call) : null;
  return { report, windows, hourly, source: { kind: 'prometheus', prometheus, since: r.since ?? '24h' } };
}

async function readTraces(r: ReadRequest, traces: string[], scoring: AdherencePlan): Promise<ProdRead> {
  const { prodFromTraces } = await import('../core/telemetry/prodFromTraces');
  const names = r.prompt ? new Set([r.prompt]) : (await r.fileVersions).promptNames;
  // No --since: the windows cover every span the files hold; the report's chart the last 24 h, as the panel's default.
  const windowSink = r.windowMs !== undefined ? new ProdTimeline(names, r.sinceMs ?? 0, r.nowMs, { bucketMs: r.windowMs, band: false }) : null;
  const hourlySink = r.reportPath ? new ProdTimeline(names, r.sinceMs ?? r.nowMs - sinceToMs('24h'), r.nowMs) : null;
  const sinks: Parameters<typeof fanOut> = [scoring.sample, ...[windowSink, hourlySink].filter((k): k is ProdTimeline => k !== null)];
  // Answers are read (and held per trace until its log records are in) only when they are scored; the passages
  // retrieved before each call only when a judge will read them.
  const keepAnswers = await wantsAnswers(r.file, scoring, r.prompt);
  // Deciding, the version table is the base's side's (core/release/baseSide.ts); asked before the traces are read.
  const versionTable = scoring.decide ? await baseVersionTable(r.file, scoring.decide.registryRev, await r.fileVersions, r.signal) : undefined;
  const report = await prodFromTraces(r.file, traces, {
    ...(r.sinceMs !== undefined ? { sinceMs: r.sinceMs } : {}),
    ...(r.args.flags.has('now') ? { untilMs: r.nowMs } : {}),
    ...(r.prompt ? { prompt: r.prompt } : {}),
    fileVersions: r.fileVersions,
    alsoTo: fanOut(...sinks),
    ...(keepAnswers ? { keepAnswers, ...(scoring.judge ? { keepRetrievals: true } : {}) } : {}),
    ...(scoring.decide ? { compare: { base: scoring.decide.base, head: scoring.decide.head } } : {}),
    ...(versionTable ? { versionTable } : {}),
    signal: r.signal,
  });
  return { report, windows: windowSink?.data() ?? null, hourly: hourlySink?.data() ?? null, source: { kind: 'traces', traces: traces.join(' '), since: r.since ?? '24h' } };
}

const UNIT_MS: Record<string, number> = { s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000, w: 604_800_000 };

/** `24h`, `7d`, `90m`, `2w` before now, or an ISO date; `flag` names the option in the messages (`since`, `until`). */
export function parseSince(value: string, nowMs: number, flag = 'since'): number {
  const relative = /^(\d+(?:\.\d+)?)([smhdw])$/.exec(value.trim());
  if (relative) {
    const ms = nowMs - Number(relative[1]) * UNIT_MS[relative[2]!]!;
    // A Date holds ±8.64e15 ms: further back is no time (its printing threw).
    if (!(ms >= -8.64e15)) throw new UsageError(`--${flag} ${value} reaches before any date a time can hold: give a shorter duration`);
    return ms;
  }
  if (/^\d{4}-\d{2}-\d{2}/.test(value)) {
    const ms = Date.parse(value);
    if (Number.isFinite(ms)) return ms;
  }
  throw new UsageError(`--${flag} takes a duration (30m, 24h, 7d, 2w) before now or an ISO date (got '${value}')`);
}

function cell(p: ProdPercentiles, name: 'p50' | 'p90' | 'p99'): string {
  const v = p[name];
  if (!v) return '–';
  const [lo, hi] = v.ci95;
  return `${formatMs(v.value)} [${lo === null ? '…' : formatMs(lo)}, ${hi === null ? '…' : formatMs(hi)}]`;
}

const trio = (label: string, p: WindowPercentiles) => (p.p50 === null ? '' : ` · ${label} p50 ${formatMs(p.p50)} p90 ${p.p90 === null ? '–' : formatMs(p.p90)} p99 ${p.p99 === null ? '–' : formatMs(p.p99)}`);

/** One window of a version: `  12-04 06:00–12:00  120 req · 0.8% err · TTFT p50 … · E2E … · TPOT …` (`06:00–now 09:12` while it runs). */
function windowLine(w: VersionWindow): string {
  const at = (iso: string) => iso.slice(5, 16).replace('T', ' ');
  return `    ${at(w.start)}–${w.partial ? 'now ' : ''}${at(w.end).slice(w.start.slice(0, 10) === w.end.slice(0, 10) ? 6 : 0)}  ${w.requests} req · ${(w.errorRate * 100).toFixed(1)}% err${trio('TTFT', w.ttftMs)}${trio('E2E', w.e2eMs)}${trio('TPOT', w.tpotMs)}`;
}

const MATCHED_WORDS: Record<string, string> = {
  content: ' · matched by content (the calls named no version; their messages are this revision\'s)',
  registry: ' · through the version table',
  'deploy-commit': ' · a deploy commit: the prompt as it was there',
};

/**
 * The report as text. Versions, prompt names and error types come from the trace files or the
 * Prometheus labels — anyone's text: control characters (terminal escapes) are shown as U+FFFD.
 */
export function formatReport(report: ProdReport, windows?: ReadonlyMap<string, VersionWindow[]>): string {
  const lines: string[] = [];
  const source = report.source.kind === 'otlp-files' ? `${report.source.files.length} trace file(s)` : `Prometheus ${report.source.url}`;
  lines.push(`${report.file} in production · ${source}${report.window.since ? ` · since ${report.window.since}` : ''}`);
  if (report.versions.length === 0) lines.push('', 'No production requests for this prompt.');
  for (const v of report.versions) {
    const revision = v.revision ? `${v.revision === 'working' ? 'working copy' : v.revision.slice(0, 10)}${v.revisionSubject && v.revision !== 'working' ? ` "${v.revisionSubject}"` : ''}${MATCHED_WORDS[v.matchedBy ?? ''] ?? ''}` : 'not in git history';
    lines.push('', `version ${v.version}${v.promptName ? ` (${v.promptName})` : ''} · ${revision}`);
    if (v.labels) lines.push(`  production labels of this revision: ${v.labels.map((l) => `${l.label} (${l.requests})`).join(', ')}`);
    lines.push(`  ${v.requests} requests · ${v.errors} errors (${(v.errorRate * 100).toFixed(1)}%)${Object.keys(v.errorsByType).length ? ` · ${Object.entries(v.errorsByType).map(([t, n]) => `${t} ${n}`).join(', ')}` : ''}`);
    for (const [label, p] of [['TTFT', v.ttftMs], ['E2E ', v.e2eMs], ['TPOT', v.tpotMs]] as const) {
      if (p.n === 0) continue;
      lines.push(`  ${label} p50 ${cell(p, 'p50')} · p90 ${cell(p, 'p90')} · p99 ${cell(p, 'p99')}  (n=${p.n}${p.sampled ? ', sampled' : ''})`);
    }
    if (v.adherence) lines.push(...adherenceLines(v.adherence));
    if (v.tokens.requestsWithUsage > 0) lines.push(`  tokens in ${v.tokens.input} · out ${v.tokens.output}${v.cacheReadShare !== null ? ` · cache-read share ${(v.cacheReadShare * 100).toFixed(1)}%` : ''}`);
    for (const w of windows?.get(v.version) ?? []) lines.push(windowLine(w));
  }
  if (report.comparison) {
    lines.push('', `latest ${report.comparison.head} vs previous ${report.comparison.base}${report.comparison.matching ? `, ${report.comparison.matching.summary.startsWith('no verdict') ? '' : 'compared '}${report.comparison.matching.summary}` : ''}:`);
    for (const verdict of report.comparison.verdicts) lines.push(`  ${verdict.verdict.padEnd(13)} ${verdict.summary}`);
  }
  if (report.sources?.length) lines.push('', ...sourceLines(report.sources, true));
  const reasons = Object.entries(report.skipped.reasons);
  if (reasons.length) lines.push('', `skipped: ${report.skipped.lines} lines, ${report.skipped.spans} spans (${reasons.map(([r, n]) => `${r} ${n}`).join(', ')})`);
  const others = Object.entries(report.otherPrompts);
  if (others.length) lines.push(`other prompts in the source: ${others.map(([n, c]) => `${n} ${c}`).join(', ')}`);
  for (const note of report.notes) lines.push(`note: ${note}`);
  return `${lines.map(printable).join('\n')}\n`;
}
