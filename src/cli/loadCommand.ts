/**
 * `prompt-insight load`: how much load a prompt takes within its SLOs. Load levels (closed-loop
 * concurrencies or open-loop Poisson rates), or a search for the largest concurrency whose SLO
 * attainment reaches the target. Each level: N requests, cold prefix cache by default, figures over
 * the steady window (core/load/loadPoint.ts says how), attainment with a Wilson interval.
 */
import { serverViewLines } from '../core/load/serverViewLines';
import { inFlightCapLines } from '../core/load/inFlightCapLines';
import { resolve } from 'node:path';
import { CACHE_MODES, type CacheMode } from '../core/endpoint/serverKind';
import { describeReadError, readPromptFile } from '../core/files/workspaceFile';
import { decodePromptBytes } from '../core/formats/decode';
import { searchMaxConcurrency, type CapacityResult } from '../core/load/capacitySearch';
import { saturation, throughputKnee } from '../core/load/knee';
import { runLoadPoint } from '../core/load/loadPoint';
import { type LoadLevel, type LoadPoint } from '../core/load/loadPointRecord';
import { sweep } from '../core/load/sweep';
import { LoadInputsError, readInputsFile } from '../core/load/loadInputs';
import type { CaseTurn } from '../core/adherence/caseTurns';
import { loadTestSuite } from '../core/adherence/testCases';
import { detectFormat } from '../core/formats/detect';
import { formatMs } from '../core/metrics/format';
import { policyText, type RolloutPolicy } from '../core/rollout/scenario';
import { promptPolicy } from '../core/load/promptPolicy';
import { objectiveText, SloError } from '../core/rollout/slo';
import { standaloneReportHtml } from '../core/compare/report';
import { capacityView, type CapacityConclusions } from '../core/load/capacityView';
import { reportAssets } from './reportAssets';
import { planPromptRun, PlanError, type PromptRunPlan } from '../core/run/promptRun';
import { declaredRetrievalIn } from '../core/retrieval/retrievalStep';
import { seededRandom } from '../core/stats/random';
import { numberFlag, parseArgs, stringFlag, UsageError } from './args';
import { COST_PARAM_BOOLEAN, COST_PARAM_REPEATABLE, endpointTransport, ENDPOINT_FLAGS, refuseUnallowedCostParams } from './endpointArgs';
import type { CliIO } from './io';
import { terminalJson } from './terminalText';
import { refuseUnallowedRetrieval, RETRIEVAL_REPEATABLE } from './retrievalConsent';
import type { RunOutcome } from '../core/run/runOnce';
import type { TelemetryRun } from '../core/telemetry/runSpans';
import { exportToOtlp, otlpTargetFlag, RunClock, telemetryRunsOf } from './otlpExportFlag';
import { LOAD_USAGE } from './help/usage';
import { capacityConclusionLines } from '../core/load/conclusions';
import { targetText } from '../core/load/attainment';
import { ARRIVALS, arrivalText, type Arrival, type ArrivalKind } from '../core/load/arrivals';
import { searchMaxRate, type RateCapacity } from '../core/load/rateSearch';
import { prefixCacheSource } from '../core/load/prefixCacheCounters';
import { LoadResultsStore, loadResultsPath } from '../core/load/loadResults';
import { runKeyOf } from '../core/store/runKey';
import { StoreError } from '../core/store/storeFile';
import { checkOutputFiles, outputFlag, writeOutput } from './outputFiles';
import { DEFAULT_STORE_PATH, metricsSourceOf } from './runCommand';

export async function loadCommand(argv: string[], io: CliIO): Promise<number> {
  const args = parseArgs(argv, {
    valued: ['prompt', ...ENDPOINT_FLAGS, 'model', 'inputs', 'report', 'concurrency', 'rate', 'max-concurrency', 'search', 'sweep', 'limit', 'requests', 'duration', 'arrival', 'burstiness', 'attainment', 'timeout-ms', 'cache', 'scenario', 'seed', 'otlp-endpoint', 'server-metrics', 'prometheus', 'prometheus-selector', 'store'],
    boolean: ['json', 'no-store', ...COST_PARAM_BOOLEAN],
    repeatable: ['slo', ...COST_PARAM_REPEATABLE, ...RETRIEVAL_REPEATABLE],
  });
  if (args.positionals.length !== 1) throw new UsageError(`give exactly one prompt file\nusage: ${LOAD_USAGE}`);
  const file = args.positionals[0]!;
  const transport = endpointTransport(args, '', LOAD_USAGE)!;
  const levels = loadLevels(args);
  const search = stringFlag(args, 'search');
  if (search !== undefined && search !== 'max-concurrency' && search !== 'max-rate') throw new UsageError('--search takes max-concurrency or max-rate (which also finds max-concurrency, to start from and to show beside)');
  const sweepLevels = numberFlag(args, 'sweep', { min: 3, max: 50, integer: true });
  if ([search !== undefined, sweepLevels !== undefined, levels.length > 0].filter(Boolean).length > 1) throw new UsageError('give one of: load levels (--concurrency, --rate), --sweep N, or --search max-concurrency');
  if (!search && sweepLevels === undefined && levels.length === 0) throw new UsageError(`give load levels (--concurrency 1,2,4 or --rate 0.5,1), --sweep N or --search max-concurrency\nusage: ${LOAD_USAGE}`);
  const durationS = numberFlag(args, 'duration', { min: 0.1, max: 86_400 });
  // --duration alone bounds a point by time only (100,000 requests at most); with --requests, whichever comes first.
  const requests = numberFlag(args, 'requests', { min: 1, max: 100_000, integer: true }, durationS !== undefined ? 100_000 : 40);
  const arrival = arrivalFlags(args, levels.some((l) => l.kind === 'rate') || sweepLevels !== undefined || search === 'max-rate');
  // Each SLO's percentile is its target unless --attainment overrides them all.
  const target = numberFlag(args, 'attainment', { min: 0.01, max: 1 }) ?? null;
  const limit = numberFlag(args, 'limit', { min: 1, max: 4096, integer: true }, 64);
  const timeoutMs = numberFlag(args, 'timeout-ms', { min: 1 }, 60_000);
  const cache = stringFlag(args, 'cache') ?? 'cold';
  if (!(CACHE_MODES as readonly string[]).includes(cache)) throw new UsageError(`--cache must be one of ${CACHE_MODES.join(', ')}`);
  const json = args.flags.get('json') === true;
  const report = outputFlag(stringFlag(args, 'report'), 'the HTML report (--report)');
  checkOutputFiles([report]);
  const otlpTarget = otlpTargetFlag(args);
  const runClock = new RunClock();
  const exported: TelemetryRun[] = [];

  let plan: PromptRunPlan;
  let plans: PromptRunPlan[];
  let promptText = '';
  let inputsText = 'the sample inputs';
  try {
    const decoded = decodePromptBytes(await readPromptFile(file));
    if (!decoded.ok) throw new PlanError(`${file}: ${decoded.reason}`);
    promptText = decoded.text;
    const promptName = stringFlag(args, 'prompt');
    const model = stringFlag(args, 'model');
    // Before the query is even rendered: the URL the file names is the user's to allow.
    refuseUnallowedRetrieval(args, declaredRetrievalIn(file, decoded.text).step?.url, file);
    const planWith = (vars?: Record<string, unknown>, turns?: readonly CaseTurn[]) => planPromptRun(file, decoded.text, { ...(promptName !== undefined ? { promptName } : {}), ...(model ? { modelOverride: model } : {}), references: { filePath: resolve(file) }, ...(vars ? { vars } : {}), ...(turns ? { turns } : {}) });
    plan = await planWith();
    const inputs = stringFlag(args, 'inputs');
    if (inputs === 'tests') {
      const suite = loadTestSuite(resolve(file), decoded.text, detectFormat(file, decoded.text), plan.prompt);
      if (suite.cases.length === 0) throw new PlanError(`--inputs tests: ${suite.problems[0] ?? 'no test cases'}`);
      plans = await Promise.all(suite.cases.map((c) => planWith(c.vars, c.turns)));
      inputsText = `the ${suite.cases.length} test cases' inputs, cycled`;
    } else if (inputs !== undefined) {
      const rows = await readInputsFile(inputs);
      plans = await Promise.all(rows.map((vars) => planWith(vars)));
      inputsText = `${rows.length} inputs from ${inputs}, cycled`;
    } else plans = [plan];
  } catch (error) {
    if (error instanceof UsageError) throw error;
    io.stderr(`prompt-insight load: ${error instanceof PlanError || error instanceof LoadInputsError ? error.message : `${file}: ${describeReadError(error)}`}\n`);
    return 1;
  }
  for (const p of plans) refuseUnallowedCostParams(args, p.request.params, `Prompt '${p.prompt.name}' in ${file}`);
  let policy: RolloutPolicy;
  try {
    const scenario = stringFlag(args, 'scenario');
    // The prompt's own policy, as compare reads it: front matter, then its tests file's scenario and SLOs.
    policy = promptPolicy(resolve(file), promptText, plan, { ...(scenario !== undefined ? { cliScenario: scenario } : {}), cliSlo: args.lists.get('slo') ?? [] }, file);
  } catch (error) {
    if (error instanceof SloError) throw new UsageError(error.message);
    throw error;
  }
  if (!policy.objectives.some((o) => o.metric !== 'adherence')) throw new UsageError(`the ${policy.scenario} scenario sets no latency SLO to attain: give one with --slo ttftMs.p90<=1000`);

  // Points are kept beside the run store (runs.jsonl → runs.load.jsonl), checked before the first request.
  if (args.flags.has('store') && args.flags.has('no-store')) throw new UsageError('--store and --no-store exclude each other');
  const store = args.flags.has('no-store') ? undefined : new LoadResultsStore(loadResultsPath(stringFlag(args, 'store') ?? DEFAULT_STORE_PATH));
  try {
    store?.check();
  } catch (error) {
    if (error instanceof StoreError) {
      io.stderr(`prompt-insight load: ${error.message}\n`);
      return 1;
    }
    throw error;
  }
  const signal = io.interrupted();
  // The server's metrics (its /metrics, or a Prometheus server scraping it): sampled during each
  // point, and its prefix-cache counters read before and after it.
  const serverMetrics = metricsSourceOf(args);
  if (serverMetrics && !/^https?:\/\//i.test(serverMetrics.url)) throw new UsageError(serverMetrics.kind === 'text' ? "--server-metrics takes the http(s) URL of the server's Prometheus /metrics" : '--prometheus takes the http(s) URL of a Prometheus server');
  const counterSource = await prefixCacheSource(transport, serverMetrics);
  const seed = numberFlag(args, 'seed', { min: 0, integer: true });
  const measure = (level: LoadLevel): Promise<LoadPoint> => {
    if (!json) io.stderr(`  ${level.kind === 'concurrency' ? `concurrency ${level.concurrency}` : `${level.ratePerSec}/s`}: ${durationS === undefined ? `${requests} requests` : args.flags.has('requests') ? `${requests} requests or ${durationS} s` : `${durationS} s`}…\n`);
    return runLoadPoint(level, { transport, plans, requests, arrival, ...(durationS !== undefined ? { durationMs: durationS * 1000 } : {}), timeoutMs, cache: cache as CacheMode, ...(counterSource ? { prefixCacheSource: counterSource } : {}), ...(serverMetrics ? { metricsSource: serverMetrics } : {}), objectives: policy.objectives, target, signal, ...(seed !== undefined ? { random: seededRandom(seed) } : {}),
      ...(otlpTarget ? { onRequest: (_f: number, _t: number, outcome: RunOutcome, runPlan: PromptRunPlan) => {
        runClock.note(outcome);
        exported.push(...telemetryRunsOf(transport, runClock, [{ outcome, plan: runPlan }]));
      } } : {}) });
  };
  if (!json) io.stderr(`Load on ${transport.endpoint.name}: ${plan.prompt.name} · ${policyText(policy)} · attainment target ${targetText(target)} · sending ${inputsText}\n`);
  let points: LoadPoint[] = [];
  let capacity: CapacityResult | undefined;
  let rateCapacity: RateCapacity | undefined;
  let stoppedEarly: string | undefined;
  if (sweepLevels !== undefined) {
    const swept = await sweep(sweepLevels, limit, requests, measure, signal);
    points = swept.points;
    stoppedEarly = swept.stoppedEarly;
  } else if (search) {
    capacity = await searchMaxConcurrency((c) => measure({ kind: 'concurrency', concurrency: c }), { limit, requests, signal });
    points = capacity.points;
    if (search === 'max-rate' && !signal.aborted) {
      // From what the closed loop sustained within the SLOs (else one request at a time), in the chosen arrivals.
      const sustained = points.find((p) => p.level.kind === 'concurrency' && p.level.concurrency === Math.max(1, capacity!.maxConcurrency))?.requestsPerSec ?? 1;
      rateCapacity = await searchMaxRate((ratePerSec) => measure({ kind: 'rate', ratePerSec, maxConcurrency: limit }), { startRatePerSec: sustained, signal });
      points = [...points, ...rateCapacity.points];
    }
  } else {
    for (const level of levels) {
      if (signal.aborted) break;
      const point = await measure(level);
      points.push(point);
      if (point.sent > 0 && point.failed === point.sent) {
        stoppedEarly = `the endpoint stopped answering at ${point.label} (every request failed: ${Object.entries(point.errors).map(([kind, n]) => `${n} × ${kind}`).join(', ')}); the points before it are kept`;
        break;
      }
    }
  }
  const simulated = transport.endpoint.simulated === true || points.some((p) => p.simulated);
  const conclusions = {
    ...(capacity ? { maxConcurrencyMeetingSlo: capacity.maxConcurrency, atLimit: capacity.atLimit, resolved: capacity.resolved, requestsToResolve: capacity.requestsToResolve } : {}),
    ...(rateCapacity ? { maxRate: { ratePerSec: rateCapacity.maxRatePerSec, arrival: arrivalText(arrival), resolved: rateCapacity.resolved, requestsToResolve: rateCapacity.requestsToResolve } } : {}),
    knee: throughputKnee(points),
    saturation: saturation(points),
    ...(stoppedEarly ? { stoppedEarly } : {}),
  };
  const input = { file, prompt: plan.prompt.name, endpoint: transport.endpoint.name, policy: { scenario: policy.scenario, scenarioSource: policy.scenarioSource, slo: policy.objectives.map(objectiveText) }, target, requestsPerLevel: requests, inputs: inputsText, points, capacity: conclusions, cancelled: signal.aborted, simulated };
  if (store && points.length > 0) {
    // Partial results too (a cancel, an endpoint that died): what was measured is kept.
    const kept = store.keepPoints(points, { key: runKeyOf(transport.endpoint, plan.request, plan.retrieval), file, prompt: plan.prompt.name, endpointName: transport.endpoint.name, simulated, slo: input.policy.slo, target, inputs: inputsText });
    if (!kept.stored) io.stderr(`prompt-insight load: ${kept.message}\n`);
    else if (!json) io.stderr(`${kept.message}\n`);
  }
  if (json) io.stdout(`${terminalJson(capacityView(input, { withRequests: true }))}\n`);
  else io.stdout(loadText(points, conclusions));
  if (otlpTarget) await exportToOtlp('load', otlpTarget, exported, io);
  if (report) {
    writeOutput(report, standaloneReportHtml(`Prompt Insight capacity: ${plan.prompt.name}`, capacityView(input, { withRequests: false }), reportAssets()));
    if (!json) io.stderr(`Report written to ${report.path}\n`);
  }
  if (signal.aborted) return 130;
  return points.some((p) => p.failed === p.sent && p.sent > 0) ? 1 : 0;
}

/** --arrival constant|poisson|gamma and --burstiness B (the gamma shape): open-loop points only. */
function arrivalFlags(args: ReturnType<typeof parseArgs>, openLoop: boolean): Arrival {
  const kind = stringFlag(args, 'arrival');
  const burstiness = numberFlag(args, 'burstiness', { min: 0.01, max: 1000 });
  if (kind !== undefined && !(ARRIVALS as readonly string[]).includes(kind)) throw new UsageError(`--arrival must be one of ${ARRIVALS.join(', ')}`);
  if ((kind !== undefined || burstiness !== undefined) && !openLoop) throw new UsageError('--arrival and --burstiness shape open-loop arrivals: give them with --rate (or --sweep)');
  if (burstiness !== undefined && kind !== 'gamma') throw new UsageError('--burstiness is the shape of gamma arrivals: give it with --arrival gamma');
  if (kind === 'gamma' && burstiness === undefined) throw new UsageError('--arrival gamma needs --burstiness B (the gamma shape: below 1 burstier than Poisson, 1 is Poisson, above 1 steadier)');
  return { kind: (kind ?? 'poisson') as ArrivalKind, burstiness: burstiness ?? 1 };
}

function loadLevels(args: ReturnType<typeof parseArgs>): LoadLevel[] {
  const list = (name: string, integer: boolean): number[] => {
    const text = stringFlag(args, name);
    if (text === undefined) return [];
    return text.split(',').map((part) => {
      const value = Number(part.trim());
      if (!Number.isFinite(value) || value <= 0 || (integer && !Number.isInteger(value)) || value > 100_000) throw new UsageError(`--${name}: '${part}' is not a ${integer ? 'positive whole number' : 'positive number'}`);
      return value;
    });
  };
  const maxConcurrency = numberFlag(args, 'max-concurrency', { min: 1, max: 100_000, integer: true }, Number.POSITIVE_INFINITY);
  return [
    ...list('concurrency', true).map((concurrency): LoadLevel => ({ kind: 'concurrency', concurrency })),
    ...list('rate', false).map((ratePerSec): LoadLevel => ({ kind: 'rate', ratePerSec, maxConcurrency })),
  ];
}

function loadText(points: readonly LoadPoint[], conclusions: CapacityConclusions): string {
  const ms = (v: number | null) => (v === null ? 'n/a' : formatMs(v));
  const pct = (v: number | null) => (v === null ? 'n/a' : `${Math.round(v * 100)}%`);
  const notesOut: string[] = [];
  const lines = ['level             req/s   out tok/s  TTFT p50 / p90      E2E p90     attain (95% CI)        ISL/OSL   failed'];
  for (const p of points) {
    const a = p.attainment;
    const attain = `${pct(a.share)} (${a.ci95 ? `${pct(a.ci95[0])}–${pct(a.ci95[1])}` : 'n/a'})${a.resolved === null ? ' ?' : a.resolved === 'meets' ? ' ✓' : ' ✗'}`;
    for (const note of p.notes) notesOut.push(`${p.label}: ${note}`);
    if ('source' in p.phases) notesOut.push(`${p.label}: median queue ${ms(p.phases.queueMs)} · prefill ${ms(p.phases.prefillMs)} · decode ${ms(p.phases.decodeMs)} (${p.phases.source})`);
    for (const hint of p.hints) notesOut.push(`${p.label}: ${hint.message.replace(/\.$/, '')}`);
    lines.push(`${p.label.padEnd(17)} ${(p.requestsPerSec?.toFixed(2) ?? 'n/a').padStart(6)}  ${(p.outputTokensPerSec?.toFixed(1) ?? 'n/a').padStart(9)}  ${`${ms(p.ttftMs.p50)} / ${ms(p.ttftMs.p90)}`.padEnd(18)} ${ms(p.e2eMs.p90).padEnd(11)} ${attain.padEnd(22)} ${`${p.inputTokens ?? '?'}/${p.outputTokens ?? '?'}`.padEnd(9)} ${p.failed}/${p.sent}${p.cache.warm > 0 || p.cache.counters.warm ? ' · WARM (prefix cache hits)' : ''}`);
  }
  const first = points[0];
  if (first) lines.push(`Attainment: share of requests meeting ${first.attainment.limits.join(' and ')} (failed requests count as missing); target: ${targetText(first.attainment.target)}; ✓/✗ when the one-sided 95% bound of each share settles it, ? when more requests are needed. Steady window: ${first.window.how}.`);
  lines.push(...capacityConclusionLines(conclusions));
  lines.push(...prefixCacheLines(points));
  lines.push(...serverViewLines(points));
  lines.push(...inFlightCapLines(points));
  lines.push(...notesOut.map((n) => `Note — ${n}.`));
  const failures = points.filter((p) => p.failed > 0).map((p) => `${p.label}: ${Object.entries(p.errors).map(([kind, n]) => `${n} × ${kind}`).join(', ')}`);
  if (failures.length > 0) lines.push(`Failed requests (not in the latency figures): ${failures.join('; ')}.`);
  return `${lines.join('\n')}\n`;
}

/** The server's prefix-cache hit rate per point, or why it could not be read (said once when the same for every point). */
function prefixCacheLines(points: readonly LoadPoint[]): string[] {
  const read = points.filter((p) => p.cache.counters.source === 'server-counters');
  if (read.length === 0) {
    const reasons = [...new Set(points.map((p) => (p.cache.counters.source === 'none' ? p.cache.counters.reason : '')))];
    return points.length > 0 ? [`Prefix cache: not known from the server's counters — ${reasons.join('; ')}.`] : [];
  }
  return [`Prefix cache (the server's counters, before and after each point): ${points.map((p) => `${p.label} ${p.cache.counters.source === 'server-counters' ? (p.cache.counters.hitRate === null ? 'no queries' : `${(p.cache.counters.hitRate * 100).toFixed(1)}%${p.cache.counters.warm ? ' WARM' : ''}`) : 'not read'}`).join(' · ')}.`];
}
