import { resolve } from 'node:path';
import { describeReadError, readPromptFile } from '../core/files/workspaceFile';
import { decodePromptBytes } from '../core/formats/decode';
import { attributionHints, serverEvidenceHints } from '../core/metrics/attribution';
import { formatMs } from '../core/metrics/format';
import { fitLatency } from '../core/metrics/latencyModel';
import { chainLine } from '../core/metrics/chain';
import type { MetricSummary, RunSummary } from '../core/metrics/summary';
import { CACHE_MODES, type CacheMode } from '../core/endpoint/serverKind';
import { isSafeSelector, type MetricsSource } from '../core/endpoint/serverMetrics';
import { checkRun, hasClaimsChecks, runCheckPlan, type RunCheck, type RunCheckPlan } from '../core/adherence/runChecks';
import { CaseSelectError, selectCase, type SelectedCase } from '../core/adherence/caseSelect';
import { loadTestSuite, sampleCaseVars } from '../core/adherence/testCases';
import { transportJudge } from '../core/run/transportJudge';
import { detectFormat } from '../core/formats/detect';
import { executePromptRuns, planPromptRun, PlanError } from '../core/run/promptRun';
import { scoredRunOf } from '../core/run/retrievalRun';
import { declaredRetrievalIn } from '../core/retrieval/retrievalStep';
import type { RunOutcome } from '../core/run/runOnce';
import { ResultsStore } from '../core/store/resultsStore';
import { safeUrl } from '../core/store/runKey';
import { numberFlag, parseArgs, stringFlag, UsageError, type ParsedArgs } from './args';
import { COST_PARAM_BOOLEAN, COST_PARAM_REPEATABLE, endpointTransport, ENDPOINT_FLAGS, refuseUnallowedCostParams } from './endpointArgs';
import type { CliIO } from './io';
import { terminalJson } from './terminalText';
import { refuseUnallowedRetrieval, RETRIEVAL_REPEATABLE } from './retrievalConsent';
import { runChecksText, summarizeRunChecks } from './runChecksText';
import { committedRevisionOf } from '../core/telemetry/promptRevision';
import { exportToOtlp, otlpTargetFlag, RunClock, telemetryRunsOf } from './otlpExportFlag';
import { RUN_USAGE } from './help/usage';

export const DEFAULT_STORE_PATH = '.prompt-insight/runs.jsonl';

/**
 * `prompt-insight run`: N measured runs of one prompt; exit 1 when any run failed, 130 when interrupted.
 * Answers are checked against the test cases written for the sample values the run sends (pass, fail,
 * or unscored with the reason); that never changes the exit code — `compare` gates on adherence.
 */
export async function runCommand(argv: string[], io: CliIO): Promise<number> {
  const args = parseArgs(argv, {
    valued: ['prompt', 'case', ...ENDPOINT_FLAGS, ...ENDPOINT_FLAGS.map((f) => `judge-${f}`), 'judge-model', 'model', 'runs', 'concurrency', 'warmup', 'rate', 'timeout-ms', 'store', 'cache', 'server-metrics', 'prometheus', 'prometheus-selector', 'otlp-endpoint'],
    boolean: ['json', 'no-store', ...COST_PARAM_BOOLEAN],
    repeatable: [...COST_PARAM_REPEATABLE, ...RETRIEVAL_REPEATABLE],
  });
  if (args.positionals.length !== 1) throw new UsageError(`give exactly one prompt file\nusage: ${RUN_USAGE}`);
  const cache = stringFlag(args, 'cache') ?? 'cold';
  if (!(CACHE_MODES as readonly string[]).includes(cache)) throw new UsageError(`--cache must be one of ${CACHE_MODES.join(', ')}`);
  const metricsSource = metricsSourceOf(args);
  const otlpTarget = otlpTargetFlag(args);
  const runClock = new RunClock();
  const file = args.positionals[0]!;
  const transport = endpointTransport(args, '', RUN_USAGE)!;
  const judgeTransport = endpointTransport(args, 'judge-');
  const judgeModel = stringFlag(args, 'judge-model');
  if (judgeTransport && !judgeModel) throw new UsageError('--judge-endpoint needs --judge-model');
  const runs = numberFlag(args, 'runs', { min: 1, max: 100_000, integer: true }, 1);
  const concurrency = numberFlag(args, 'concurrency', { min: 1, max: 1024, integer: true }, 1);
  const warmup = numberFlag(args, 'warmup', { min: 0, max: 1000, integer: true }, 0);
  const rate = numberFlag(args, 'rate', { min: 0.001 });
  const timeoutMs = numberFlag(args, 'timeout-ms', { min: 1 }, 60_000);
  if (args.flags.has('store') && args.flags.has('no-store')) throw new UsageError('--store and --no-store exclude each other');
  const store = args.flags.has('no-store') ? undefined : new ResultsStore(stringFlag(args, 'store') ?? DEFAULT_STORE_PATH);
  try {
    store?.check(); // before any run: a store that cannot take the runs would lose them
  } catch (error) {
    io.stderr(`prompt-insight run: ${(error as Error).message}\n`);
    return 1;
  }

  let text: string;
  try {
    // A regular file inside its workspace, capped (core/files/workspaceFile.ts): what is sent is never a credentials file a link points at.
    const decoded = decodePromptBytes(await readPromptFile(file));
    if (!decoded.ok) throw new PlanError(`${file}: ${decoded.reason}`);
    text = decoded.text;
  } catch (error) {
    io.stderr(`prompt-insight run: ${error instanceof PlanError ? error.message : `${file}: ${describeReadError(error)}`}\n`);
    return 1;
  }
  const model = stringFlag(args, 'model');
  const promptName = stringFlag(args, 'prompt');
  // Before the query is even rendered: the URL the file names is the user's to allow.
  refuseUnallowedRetrieval(args, declaredRetrievalIn(file, text).step?.url, `${file}`);
  const planOptions = { ...(promptName !== undefined ? { promptName } : {}), ...(model ? { modelOverride: model } : {}), references: { filePath: resolve(file) } };
  let plan;
  try {
    plan = await planPromptRun(file, text, planOptions);
  } catch (error) {
    io.stderr(`prompt-insight run: ${(error as Error).message}\n`);
    return 1;
  }
  // The sidecar is read as every file a repository names (core/files/workspaceFile.ts); a refused one is a reason, not a crash.
  const suite = loadTestSuite(resolve(file), text, detectFormat(file, text), plan.prompt);
  // --case: that one case's inputs (or production turns) are sent, and its answers checked against it alone.
  const caseSelector = stringFlag(args, 'case');
  let selected: SelectedCase | undefined;
  if (caseSelector !== undefined) {
    try {
      selected = selectCase(suite, caseSelector);
    } catch (error) {
      if (error instanceof CaseSelectError) throw new UsageError(`--case ${caseSelector}: ${error.message}`);
      throw error;
    }
    try {
      plan = await planPromptRun(file, text, { ...planOptions, vars: selected.testCase.vars, ...(selected.testCase.turns ? { turns: selected.testCase.turns } : {}) });
    } catch (error) {
      io.stderr(`prompt-insight run: ${(error as Error).message}\n`);
      return 1;
    }
  }
  refuseUnallowedCostParams(args, plan.request.params, `Prompt '${plan.prompt.name}' in ${file}`);
  if (plan.unresolved.length > 0) io.stderr(`prompt-insight run: warning: no value for ${plan.unresolved.map((v) => `'${v}'`).join(', ')}; the placeholder text is sent as written.\n`);
  const baseUrl = transport.endpoint.baseUrl;
  const signal = io.interrupted();
  // A malformed assertion is skipped, and said: the run must not look checked by what it never checked.
  if (!suite.absent) for (const problem of suite.problems) io.stderr(`prompt-insight run: warning: ${problem}\n`);
  const checkPlan: RunCheckPlan = selected ? { cases: [selected.testCase] } : runCheckPlan(suite, sampleCaseVars(plan.prompt));
  const caseLabel = selected ? `test case #${(selected.testCase.position ?? selected.index) + 1} “${selected.testCase.description}”` : undefined;
  const judge = judgeTransport && judgeModel ? transportJudge(judgeTransport, judgeModel, timeoutMs, signal) : undefined;
  const json = args.flags.get('json') === true;
  const checked = new Map<RunOutcome, Promise<RunCheck | undefined>>();
  const checkOnce = (outcome: RunOutcome): Promise<RunCheck | undefined> => {
    let check = checked.get(outcome);
    if (!check) {
      const { error } = outcome.record;
      check = checkRun(checkPlan, { ...scoredRunOf(outcome), ...(error ? { errorMessage: `${error.kind}: ${error.message}` } : {}) }, judge);
      checked.set(outcome, check);
    }
    return check;
  };
  if (!json) io.stderr(`Running '${plan.prompt.name}' on ${safeUrl(baseUrl)} (${plan.request.model}): ${runs} run${runs === 1 ? '' : 's'}, concurrency ${concurrency}${warmup ? `, ${warmup} warm-up` : ''}${rate ? `, ${rate}/s Poisson` : ''}${caseLabel ? `, ${caseLabel}` : ''}\n`);
  const { outcomes, startedAt, summary, summaryWarm, serverKind, serverMetrics } = await executePromptRuns(transport, plan, {
    cache: cache as CacheMode,
    ...(metricsSource ? { metricsSource } : {}),
    runs,
    concurrency,
    warmup,
    ...(rate !== undefined ? { ratePerSec: rate } : {}),
    timeoutMs,
    signal,
    ...(selected ? { testCase: selected.index } : {}),
    ...(store ? { store } : {}),
    onRun: (outcome, finished) => {
      runClock.note(outcome);
      if (!json && process.stderr.isTTY) io.stderr(`\r  ${finished}/${runs} runs`);
    },
    // Runs judged for hallucination are stored with their verdict: checked before they are stored, once.
    ...(store && hasClaimsChecks(checkPlan.cases) ? { groundedOf: async (outcome: RunOutcome) => (await checkOnce(outcome))?.grounded } : {}),
  });
  const records = outcomes.map((o) => o.record);
  const simulated = records.some((r) => r.simulated);
  const checks: (RunCheck | undefined)[] = [];
  for (const outcome of outcomes) checks.push(await checkOnce(outcome));
  const adherence = summarizeRunChecks(checkPlan, checks);
  const hints = [
    ...attributionHints(summary, fitLatency(records), concurrency),
    ...serverEvidenceHints(summary, { records, ...(serverMetrics ? { samples: serverMetrics.samples } : {}), summaryWarm }),
  ];
  if (json) {
    io.stdout(`${terminalJson({ prompt: plan.prompt.name, endpoint: safeUrl(baseUrl), model: plan.request.model, ...(selected ? { testCase: { number: (selected.testCase.position ?? selected.index) + 1, description: selected.testCase.description } } : {}), simulated, cache, server: { kind: serverKind, ...(serverMetrics ? { metricsUrl: safeUrl(serverMetrics.source.url), ...(serverMetrics.source.kind === 'promql' ? { promqlSelector: serverMetrics.source.selector } : {}), metrics: serverMetrics.samples, metricsGaps: serverMetrics.gaps } : {}) }, runs: records.map((r, i) => ({ ...r, startedAtMs: startedAt[i], ...(checks[i] ? { check: checks[i] } : {}) })), summary, summaryWarm, adherence, hints: hints.map((h) => h.message) })}\n`);
  } else {
    if (process.stderr.isTTY) io.stderr('\n');
    io.stdout(renderSummary(summary, simulated, 'cold'));
    if (summary.chain) io.stdout(`${chainLine(summary.chain)}\n`);
    if (summaryWarm) io.stdout(renderSummary(summaryWarm, simulated, 'warm'));
    if (serverMetrics) io.stdout(`${serverMetricsLine(serverKind, serverMetrics)}\n`);
    io.stdout(runChecksText(adherence, checks));
    for (const hint of hints) io.stdout(`hint: ${hint.message}\n`);
    for (const record of records) if (record.error && record.error.kind !== 'cancelled') io.stderr(`run failed (${record.error.kind}): ${record.error.message}\n`);
    records.forEach((record, i) => {
      if (record.overlappedLeftover) io.stderr(`run ${i + 1} is left out of the figures: ${record.overlappedLeftover}\n`);
    });
  }
  if (store && !json) io.stderr(`Runs kept in ${store.path}\n`);
  if (otlpTarget) {
    // The prompt's version: its commit when the file is committed and unchanged, else the content hash.
    const revision = await committedRevisionOf(file);
    await exportToOtlp('run', otlpTarget, telemetryRunsOf(transport, runClock, outcomes.map((outcome, i) => ({ outcome, plan, ...(revision ? { revision } : {}), ...(checks[i] ? { check: checks[i] } : {}) }))), io);
  }
  if (signal.aborted) return 130;
  return records.some((r) => !r.ok) ? 1 : 0;
}

/** `--server-metrics URL` (Prometheus text) or `--prometheus URL [--prometheus-selector 'job="llama"']` (a Prometheus server's API). */
export function metricsSourceOf(args: ParsedArgs): MetricsSource | undefined {
  const text = stringFlag(args, 'server-metrics');
  const prometheus = stringFlag(args, 'prometheus');
  const selector = stringFlag(args, 'prometheus-selector') ?? '';
  if (text && prometheus) throw new UsageError('give --server-metrics or --prometheus, not both');
  if (selector && !prometheus) throw new UsageError('--prometheus-selector needs --prometheus URL');
  if (selector && !isSafeSelector(selector)) throw new UsageError(`--prometheus-selector takes label matchers such as job="llama", instance=~"gpu-.*"`);
  if (prometheus) return { kind: 'promql', url: prometheus, selector };
  return text ? { kind: 'text', url: text } : undefined;
}

/** What the server's own metrics said during the batch, in one line. */
function serverMetricsLine(kind: string, metrics: { samples: { requestsRunning?: number; requestsWaiting?: number; kvCacheUsage?: number; rawDropped?: number }[]; gaps: { error: string }[] }): string {
  const most = (field: 'requestsRunning' | 'requestsWaiting' | 'kvCacheUsage'): string => {
    const values = metrics.samples.map((s) => s[field]).filter((v): v is number => v !== undefined);
    return values.length ? String(Math.round(Math.max(...values) * 100) / 100) : 'n/a';
  };
  const gaps = metrics.gaps.length ? ` · ${metrics.gaps.length} sample${metrics.gaps.length === 1 ? '' : 's'} missing (${metrics.gaps[0]!.error})` : '';
  const dropped = Math.max(0, ...metrics.samples.map((s) => s.rawDropped ?? 0));
  const capped = dropped ? ` · up to ${dropped} other metric families per sample not kept (bounded)` : '';
  return `server (${kind}) metrics: ${metrics.samples.length} samples · max running ${most('requestsRunning')} · max waiting ${most('requestsWaiting')} · max KV cache ${most('kvCacheUsage')}${gaps}${capped}`;
}

/** One table per cache state: runs served from the prefix cache are never mixed with cold ones. */
function renderSummary(summary: RunSummary, simulated: boolean, state: 'cold' | 'warm'): string {
  const rows: [string, MetricSummary, (v: number) => string][] = [
    ['TTFT', summary.ttftMs, formatMs],
    ['E2E', summary.e2eMs, formatMs],
    ['TPOT', summary.tpotMs, (v) => `${v.toFixed(1)} ms`],
    ['out/E2E tok/s', summary.outputTokensPerSec, (v) => v.toFixed(1)],
    ['decode tok/s', summary.decodeTokensPerSec, (v) => v.toFixed(1)],
  ];
  const cell = (value: number | null, format: (v: number) => string): string => (value === null ? 'n/a' : format(value));
  const { cold, warm, unknown } = summary.cache;
  const heading =
    state === 'warm'
      ? `warm runs (prompt partly served from the server's prefix cache): ${warm}`
      : `${summary.ok}/${summary.runs} runs ok${simulated ? ' · SIMULATED endpoint' : ''} · cache: ${cold} cold, ${unknown} unknown${warm ? `, ${warm} warm (apart, below)` : ''}`;
  const lines = [heading, `${'metric'.padEnd(13)}${['n', 'mean', 'p50', 'p90', 'p99', 'p99.9', 'min', 'max'].map((h) => h.padStart(10)).join('')}`];
  for (const [name, m, format] of rows) {
    lines.push(`${name.padEnd(13)}${[String(m.n), cell(m.mean, format), cell(m.p50, format), cell(m.p90, format), cell(m.p99, format), cell(m.p999, format), cell(m.min, format), cell(m.max, format)].map((c) => c.padStart(10)).join('')}`);
  }
  const tooFew = summary.ttftMs.tooFewFor.map((p) => p.replace('p999', 'p99.9'));
  if (tooFew.length > 0 && summary.ttftMs.n > 0) lines.push(`(${tooFew.join(', ')} n/a: ${summary.ttftMs.n} runs are too few — p90 needs 10, p99 100, p99.9 1000)`);
  const errors = Object.entries(summary.errors);
  if (state === 'cold' && errors.length > 0) lines.push(`errors: ${errors.map(([kind, n]) => `${kind} ×${n}`).join(', ')}`);
  if (state === 'cold') lines.push('TPOT = (E2E − TTFT) / (output tokens − 1); out/E2E tok/s = output tokens / E2E; decode tok/s = 1000 / TPOT (vLLM bench serve).');
  return `${lines.join('\n')}\n`;
}
