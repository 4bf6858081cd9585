import { CACHE_MODES, type CacheMode } from '../core/endpoint/serverKind';
import type { RunCheck } from '../core/adherence/runChecks';
import { compareRevisions, type CompareOptions, type ComparisonResult } from '../core/compare/compare';
import { batchLine, compareUntilDecided, DEFAULT_MAX_RUNS_PER_CASE, untilDecidedLine, type UntilDecidedProgress } from '../core/compare/untilDecided';
import { transportJudge } from '../core/run/transportJudge';
import { renderReportHtml } from '../core/compare/report';
import { comparisonView } from '../core/compare/view';
import { policyText } from '../core/rollout/scenario';
import { SloError } from '../core/rollout/slo';
import { loadRevisionSources } from '../core/compare/revisionSources';
import { loadGatePolicy, POLICY_ORIGINS, type GatePolicy, type PolicyOrigin } from '../core/compare/gatePolicy';
import { unscoredSummary } from '../core/compare/compareAssess';
import { chainLine } from '../core/metrics/chain';
import { GitError } from '../core/history/git';
import { LoadResultsStore, loadResultsPath } from '../core/load/loadResults';
import { judgedChecks } from '../core/adherence/trustCard';
import { DEFAULT_TRUST_BAR } from '../core/stats/judgeTrust';
import { safeUrl } from '../core/store/runKey';
import { judgeVerdictStoreBeside } from '../core/store/verdictStore';
import { ResultsStore } from '../core/store/resultsStore';
import { numberFlag, parseArgs, stringFlag, UsageError } from './args';
import { checkKey, exportToOtlp, otlpTargetFlag, storedRunsSince } from './otlpExportFlag';
import { COST_PARAM_BOOLEAN, COST_PARAM_REPEATABLE, endpointTransport, ENDPOINT_FLAGS, refuseUnallowedCostParams } from './endpointArgs';
import { revisionRequestParams } from '../core/compare/revisionDeclarations';
import type { CliIO } from './io';
import { terminalJson } from './terminalText';
import { refuseUnallowedRetrieval, RETRIEVAL_REPEATABLE } from './retrievalConsent';
import { reportAssets } from './reportAssets';
import { DEFAULT_STORE_PATH } from './runCommand';
import { COMPARE_USAGE } from './help/usage';
import { CI_BOOLEAN_FLAGS, CI_VALUED_FLAGS, checkCiOutputs, ciOutputFlags, printedOutput, revisionFetchFlags, writeCiOutputs } from './compareOutputs';
import { checkOutputFiles, outputFlag, writeOutput } from './outputFiles';
import { DECISION_HEADLINES } from '../core/compare/markdownReport';
import { capacityComparisonLines, hasLatencySlo, withCapacity, type CapacityComparison } from '../core/compare/capacityCompare';

/** `prompt-insight compare`: base vs head on the file's test cases; exit 1 on a significant worsening with --fail-on-regression. */
export async function compareCommand(argv: string[], terminal: CliIO): Promise<number> {
  const args = parseArgs(argv, {
    valued: ['base', 'head', 'prompt', 'runs', ...ENDPOINT_FLAGS, 'model', ...ENDPOINT_FLAGS.map((f) => `judge-${f}`), 'judge-model', 'concurrency', 'timeout-ms', 'store', 'report', 'cache', 'scenario', 'policy', 'max-age-hours', 'otlp-endpoint', 'capacity-limit', 'capacity-requests', 'attainment', 'max-runs', 'judge-min-lower-bound', 'judge-min-labels', ...CI_VALUED_FLAGS],
    boolean: ['json', 'capacity', 'fresh', 'until-decided', 'reuse-stored', 'no-store', 'fail-on-regression', ...COST_PARAM_BOOLEAN, ...CI_BOOLEAN_FLAGS],
    repeatable: ['slo', 'accept-judge', ...COST_PARAM_REPEATABLE, ...RETRIEVAL_REPEATABLE],
  });
  if (args.positionals.length !== 1) throw new UsageError(`give exactly one prompt file\nusage: ${COMPARE_USAGE}`);
  const file = args.positionals[0]!;
  const base = stringFlag(args, 'base');
  const head = stringFlag(args, 'head');
  if (!base || !head) throw new UsageError(`--base and --head are required (commit ids, branches, HEAD~1, or 'working')\nusage: ${COMPARE_USAGE}`);
  const transport = endpointTransport(args, '', COMPARE_USAGE)!;
  const judgeTransport = endpointTransport(args, 'judge-');
  const judgeModel = stringFlag(args, 'judge-model');
  if (judgeTransport && !judgeModel) throw new UsageError('--judge-endpoint needs --judge-model');
  const acceptedJudges = new Set(args.lists.get('accept-judge') ?? []);
  const trustBar = {
    minLowerBound: numberFlag(args, 'judge-min-lower-bound', { min: 0, max: 1 }, DEFAULT_TRUST_BAR.minLowerBound),
    minEach: numberFlag(args, 'judge-min-labels', { min: 1, max: 1_000_000, integer: true }, DEFAULT_TRUST_BAR.minEach),
  };
  if (!judgeTransport && (acceptedJudges.size > 0 || args.flags.has('judge-min-lower-bound') || args.flags.has('judge-min-labels'))) throw new UsageError('--accept-judge, --judge-min-lower-bound and --judge-min-labels go with --judge-endpoint');
  const runsPerCase = numberFlag(args, 'runs', { min: 1, max: 10_000, integer: true }, 10);
  const untilDecided = untilDecidedFlags(args, runsPerCase);
  const concurrency = numberFlag(args, 'concurrency', { min: 1, max: 256, integer: true }, 4);
  const timeoutMs = numberFlag(args, 'timeout-ms', { min: 1 }, 60_000);
  const cache = stringFlag(args, 'cache') ?? 'cold';
  if (!(CACHE_MODES as readonly string[]).includes(cache)) throw new UsageError(`--cache must be one of ${CACHE_MODES.join(', ')}`);
  if (args.flags.has('store') && args.flags.has('no-store')) throw new UsageError('--store and --no-store exclude each other');
  const store = args.flags.has('no-store') ? undefined : new ResultsStore(stringFlag(args, 'store') ?? DEFAULT_STORE_PATH);
  const otlpTarget = otlpTargetFlag(args);
  if (otlpTarget && !store) throw new UsageError('--otlp-endpoint sends the runs compare stores: it needs the results store (drop --no-store)');
  const outputs = ciOutputFlags(args);
  const printed = printedOutput(terminal, outputs);
  const io = printed.io;
  const report = outputFlag(stringFlag(args, 'report'), 'the HTML report (--report)');
  // Before any run: the files CI keeps are refused now if they would be, not after the runs are spent.
  checkCiOutputs(outputs);
  checkOutputFiles([report]);
  const fetchMissing = revisionFetchFlags(args);
  const json = outputs.format === 'json';
  const scenario = stringFlag(args, 'scenario');
  const slo = args.lists.get('slo') ?? [];
  const policyFrom = stringFlag(args, 'policy') ?? 'base';
  if (!(POLICY_ORIGINS as readonly string[]).includes(policyFrom)) throw new UsageError(`--policy must be one of ${POLICY_ORIGINS.join(', ')} (base: the base revision's scenario, SLOs and test cases judge the change)`);
  const capacity = capacityFlags(args);
  const maxAgeHours = numberFlag(args, 'max-age-hours', { min: 0 }, 24);
  if (args.flags.has('fresh') && args.flags.has('reuse-stored')) throw new UsageError('--fresh and --reuse-stored exclude each other');
  // A gate decides on runs made now, unless told to trust this machine's stored runs.
  const fresh = args.flags.get('fresh') === true || (args.flags.get('fail-on-regression') === true && args.flags.get('reuse-stored') !== true);
  try {
    store?.check();
  } catch (error) {
    io.stderr(`prompt-insight compare: ${(error as Error).message}\n`);
    return 1;
  }
  const signal = io.interrupted();

  let sources;
  let history;
  try {
    ({ sources, history } = await loadRevisionSources(file, [base, head], { signal, ...fetchMissing }));
  } catch (error) {
    io.stderr(`prompt-insight compare: ${error instanceof GitError ? error.message : (error as Error).message}\n`);
    return 1;
  }
  // The change is judged by the base revision's scenario, SLOs and test cases (or the command line's):
  // the head — in CI, the pull request itself — cannot relax the gate that judges it.
  const promptName = stringFlag(args, 'prompt');
  let gate: GatePolicy;
  try {
    gate = await loadGatePolicy(sources, { file, ...(promptName ? { promptName } : {}), ...(history ? { repoRoot: history.repoRoot } : {}), signal }, { from: policyFrom as PolicyOrigin, ...(scenario !== undefined ? { cliScenario: scenario } : {}), cliSlo: slo });
  } catch (error) {
    if (error instanceof SloError) throw new UsageError(error.message);
    throw error;
  }
  // The judging revision's retrieval step runs for every revision: its URL is the user's to allow.
  const judgingLabel = gate.origin === 'head' ? sources[sources.length - 1]!.label : sources[0]!.label;
  refuseUnallowedRetrieval(args, gate.retrieval.step?.url, `${file} at ${judgingLabel} (whose retrieval step judges the change)`);
  if (capacity && !hasLatencySlo(gate.policy)) throw new UsageError(`--capacity searches the largest concurrency meeting a latency SLO, and the ${gate.policy.scenario} scenario sets none: give one with --slo ttftMs.p90<=1000`);
  const suite = gate.suite;
  for (const problem of suite.problems) io.stderr(`prompt-insight compare: ${problem}\n`);
  for (const problem of gate.labels?.problems ?? []) io.stderr(`prompt-insight compare: ${problem}\n`);
  for (const name of acceptedJudges) if (!judgedChecks(suite).some((a) => a.label === name)) throw new UsageError(`--accept-judge '${name}': the judging tests have no judged check of that name (${judgedChecks(suite).map((a) => a.label).join(', ') || 'none'})`);
  // The judge's verdicts on labelled answers are kept beside the run store, sealed to this machine.
  const verdicts = judgeTransport && store ? judgeVerdictStoreBeside(store.path) : undefined;
  if (verdicts?.problem) io.stderr(`prompt-insight compare: ${verdicts.problem}\n`);
  if (suite.cases.length === 0) {
    io.stderr(`prompt-insight compare: no test cases to score (from ${suite.source}), so adherence cannot be compared.\n`);
    return 1;
  }
  const model = stringFlag(args, 'model');
  // Parameters that change what the endpoint charges or keeps, at any revision, are refused before any run unless allowed.
  for (const source of sources) {
    for (const found of revisionRequestParams(file, source.text, promptName)) refuseUnallowedCostParams(args, found.params, `Prompt '${found.name}' at ${source.label}`);
  }
  const labelled = judgeTransport && gate.labels ? gate.labels.labels.filter((l) => l.source === 'HUMAN' && judgedChecks(suite).some((a) => a.label === l.check)).length : 0;
  if (!json && labelled > 0) io.stderr(`Setting the judge against ${labelled} labelled answer${labelled === 1 ? '' : 's'} (${gate.labels!.where}) before the runs…\n`);
  if (!json) io.stderr(`Comparing ${sources[0]!.label} → ${sources[1]!.label}: ${suite.cases.length} test case(s) × ${untilDecided ? `${runsPerCase} runs each, then more until decided (at most ${untilDecided.maxRunsPerCase})` : `${runsPerCase} runs each`} on ${transport.endpoint.name}\n`);
  let result: ComparisonResult;
  const comparisonStartMs = Date.now();
  // Each run's check, for its span's evaluation events (--otlp-endpoint).
  const checks = new Map<string, RunCheck>();
  try {
    const compareOptions: CompareOptions = {
    file, ...(promptName ? { promptName } : {}), revisions: sources, gate, runsPerCase, transport, ...(model ? { modelOverride: model } : {}),
    ...(store ? { store } : {}), fresh, timeoutMs, concurrency, signal, cache: cache as CacheMode,
    freshnessMs: maxAgeHours * 3_600_000,
    ...(judgeTransport && judgeModel ? {
      judge: transportJudge(judgeTransport, judgeModel, timeoutMs, signal),
      judgeTrust: { bar: trustBar, judgeId: `${judgeModel} at ${safeUrl(stringFlag(args, 'judge-endpoint')!)}`, accepted: acceptedJudges, signal, ...(verdicts ? { store: verdicts } : {}) },
    } : {}),
    onProgress: (done, total) => !json && process.stderr.isTTY && io.stderr(`\r  ${done}/${total} runs`),
    ...(otlpTarget ? { onScored: (record, check) => checks.set(checkKey(record), check) } : {}),
    };
    // Each batch's decision and the runs spent, as it goes (stderr; the JSON carries the summary).
    const onBatch = (p: UntilDecidedProgress) => !json && io.stderr(`${process.stderr.isTTY ? '\n' : ''}${batchLine(p)}\n`);
    result = untilDecided ? await compareUntilDecided(compareOptions, { maxRunsPerCase: untilDecided.maxRunsPerCase, onBatch }) : await compareRevisions(compareOptions);
  } catch (error) {
    if (error instanceof SloError) throw new UsageError(error.message);
    throw error;
  }
  if (!json && process.stderr.isTTY) io.stderr('\n');
  const notKept = verdicts?.saveOrSay();
  if (notKept) io.stderr(`prompt-insight compare: the judge's verdicts were not kept: ${notKept}\n`);
  let capacityResult: CapacityComparison | undefined;
  if (capacity && !result.cancelled) {
    // The same endpoint, under the judging policy's SLOs; the batch scenario's decision gates on it.
    ({ result, capacity: capacityResult } = await withCapacity(result, { file, ...(promptName ? { promptName } : {}), ...(model ? { modelOverride: model } : {}), revisions: sources, transport, retrieval: gate.retrieval, ...capacity, timeoutMs, cache: cache as CacheMode, signal,
      // Each side's levels kept as load points beside the run store, as `load` keeps them.
      ...(store ? { store: new LoadResultsStore(loadResultsPath(store.path)) } : {}),
      onLevel: (label, c) => !json && io.stderr(`  capacity ${label}: concurrency ${c}, ${capacity.requests} requests…\n`) }));
    for (const side of [capacityResult.base, capacityResult.head]) {
      if (side.kept && !side.kept.stored) io.stderr(`prompt-insight compare: capacity of ${side.label}: ${side.kept.message}\n`);
      else if (side.kept && !json) io.stderr(`  capacity of ${side.label}: ${side.kept.message}\n`);
    }
  }
  if (json) io.stdout(`${terminalJson({ ...comparisonView(result), ...(capacityResult ? { capacity: capacityResult } : {}) })}\n`);
  else if (outputs.format === 'text') io.stdout(renderText(result, capacityResult));
  await writeCiOutputs(result, outputs, { startedAt: new Date(comparisonStartMs), elapsedMs: Date.now() - comparisonStartMs, ...(capacityResult ? { extraLines: capacityComparisonLines(capacityResult) } : {}) }, io);
  printed.flush();
  if (report) {
    writeOutput(report, renderReportHtml(result, reportAssets(), capacityResult ? { capacityLines: capacityComparisonLines(capacityResult) } : {}));
    if (!json) io.stderr(`Report written to ${report.path}\n`);
  }
  if (otlpTarget && store) await exportToOtlp('compare', otlpTarget, storedRunsSince(store, file, comparisonStartMs, checks), io);
  if (result.cancelled || capacityResult?.cancelled) return 130;
  if (!args.flags.get('fail-on-regression')) return 0;
  // The gate fails closed: hold, or no evidence either way (insufficient), stops the pipeline. A
  // revision that sends the same requests as its base changes nothing and passes.
  const decision = result.rollout?.decision ?? 'insufficient';
  const passes = decision === 'ship' || decision === 'no-change';
  if (!passes && !json) io.stderr(`prompt-insight compare: --fail-on-regression: ${DECISION_HEADLINES[decision]}: ${(result.rollout?.reasons ?? result.evidence.reasons).slice(0, 2).join('; ')}\n`);
  return passes ? 0 : 1;
}

/** `hallucination 3/40 runs 7.5% [2.6%–19.9%] (+2 undetermined)`: small rates keep a decimal. */
function hallucinationText(h: NonNullable<ComparisonResult['revisions'][number]['hallucination']>): string {
  const pct = (v: number) => `${(v * 100).toFixed(1)}%`;
  const rate = h.rate === null ? 'n/a' : pct(h.rate);
  const ci = h.ci95 ? ` [${pct(h.ci95[0])}–${pct(h.ci95[1])}]` : '';
  return `hallucination ${h.hallucinated}/${h.judged} runs ${rate}${ci}${h.undetermined ? ` (+${h.undetermined} undetermined)` : ''}`;
}


/** --until-decided [--max-runs N]: runs per test case start at --runs and grow in batches up to N (default 200). */
function untilDecidedFlags(args: ReturnType<typeof parseArgs>, runsPerCase: number): { maxRunsPerCase: number } | undefined {
  const maxRunsPerCase = numberFlag(args, 'max-runs', { min: 1, max: 10_000, integer: true }, Math.max(DEFAULT_MAX_RUNS_PER_CASE, runsPerCase));
  if (args.flags.get('until-decided') !== true) {
    if (args.flags.has('max-runs')) throw new UsageError('--max-runs caps run-until-decided: give it with --until-decided');
    return undefined;
  }
  if (maxRunsPerCase < runsPerCase) throw new UsageError(`--max-runs (${maxRunsPerCase}) is below --runs (${runsPerCase}): the first batch already makes --runs runs per test case`);
  return { maxRunsPerCase };
}

/** --capacity [--capacity-limit 64] [--capacity-requests 40] [--attainment 0.95], as `load --search max-concurrency` takes them. */
function capacityFlags(args: ReturnType<typeof parseArgs>): { limit: number; requests: number; target: number | null } | undefined {
  const limit = numberFlag(args, 'capacity-limit', { min: 1, max: 4096, integer: true }, 64);
  const requests = numberFlag(args, 'capacity-requests', { min: 1, max: 100_000, integer: true }, 40);
  const target = numberFlag(args, 'attainment', { min: 0.01, max: 1 }) ?? null;
  if (args.flags.get('capacity') === true) return { limit, requests, target };
  const stray = ['capacity-limit', 'capacity-requests', 'attainment'].find((f) => args.flags.has(f));
  if (stray) throw new UsageError(`--${stray} shapes the capacity search: give it with --capacity`);
  return undefined;
}

function renderText(result: ComparisonResult, capacity?: CapacityComparison): string {
  const pct = (v: number | null) => (v === null ? 'n/a' : `${Math.round(v * 100)}%`);
  const ms = (v: number | null) => (v === null ? 'n/a' : `${Math.round(v)} ms`);
  const lines = [`${result.prompt} on ${result.endpoint} (${result.model})${result.simulated ? ' · SIMULATED endpoint' : ''}`];
  for (const r of result.revisions) {
    const ci = r.adherence.ci95 ? ` [${pct(r.adherence.ci95[0])}–${pct(r.adherence.ci95[1])}]` : '';
    lines.push(`  ${r.label.padEnd(14)} adherence ${r.adherence.passed}/${r.adherence.total} ${pct(r.adherence.rate)}${ci}${r.adherence.unscored ? ` (+${r.adherence.unscored} unscored)` : ''} · TTFT p50 ${ms(r.ttftMs.p50)} · E2E p50 ${ms(r.e2eMs.p50)} · ${r.tokens ?? '?'} tokens${r.runsReused ? ` · ${r.runsReused} runs reused` : ''}${r.error ? ` · ${r.error}` : ''}`);
    if (r.adherence.unscored) lines.push(`  ${''.padEnd(14)} ${unscoredSummary(r)}`);
    if (r.hallucination) lines.push(`  ${''.padEnd(14)} ${hallucinationText(r.hallucination)}`);
    if (r.chain) lines.push(`  ${''.padEnd(14)} ${chainLine(r.chain)}`);
    for (const c of r.perCase) {
      const failures = failureLines(c);
      if (failures.length > 0) lines.push(`  ${''.padEnd(14)} ${c.description}: ${c.passed}/${c.total} passed${c.unscored ? `, ${c.unscored} unscored` : ''}`, ...failures.map((f) => `  ${''.padEnd(16)} ${f}`));
    }
  }
  for (const v of result.verdicts) lines.push(`  ${v.verdict.toUpperCase().padEnd(13)} ${v.summary}`);
  for (const c of result.correctedRates ?? []) {
    const interval = (ci: [number, number] | null) => (ci ? ` [${pct(ci[0])}–${pct(ci[1])}]` : '');
    lines.push(`  ${c.label.padEnd(14)} ${c.check}: ${c.passed}/${c.judged} passed by the judge ${pct(c.raw.value)}${interval(c.raw.ci95)} · corrected for its error ${c.corrected ? `${pct(c.corrected.value)}${interval(c.corrected.ci95)}` : 'n/a (the judge does no better than chance on the labels)'}`);
  }
  lines.push(`Scenario: ${policyText(result.policy)} — the ${result.policyOrigin} revision's policy judges the change`);
  if (result.policyRetrieval) lines.push(`  retrieval: ${result.policyRetrieval} — the ${result.policyOrigin} revision's step, run for every revision`);
  for (const change of result.policyChanges) lines.push(`  policy change: ${change.text} (${change.why})`);
  const reused = result.revisions.filter((r) => r.runsReused > 0);
  if (reused.length > 0) lines.push(`Reused stored runs: ${reused.map((r) => `${r.label} ${r.runsReused} (since ${r.reusedSince})`).join(', ')}`);
  if (capacity) lines.push(...capacityComparisonLines(capacity));
  if (result.untilDecided && result.rollout) lines.push(untilDecidedLine(result.untilDecided, result.rollout.decision));
  const rollout = result.rollout;
  if (rollout) {
    const headline = DECISION_HEADLINES[rollout.decision];
    lines.push(`${headline}: ${result.revisions[result.revisions.length - 1]!.label} (vs ${result.revisions[0]!.label})`);
    for (const reason of rollout.reasons) lines.push(`  - ${reason}`);
  }
  return `${lines.join('\n')}\n`;
}

/** A case's failed assertions, each once with how many runs it failed in: `✗ contains "Lyon" (3 runs): expected …`. */
function failureLines(c: ComparisonResult['revisions'][number]['perCase'][number]): string[] {
  const counts = new Map<string, number>();
  for (const run of c.runs) {
    for (const a of run.assertions) if (a.outcome !== 'pass') {
      const key = `${a.outcome === 'undecided' ? '?' : '✗'} ${a.label}: ${a.reason}`.slice(0, 300);
      counts.set(key, (counts.get(key) ?? 0) + 1);
    }
  }
  return [...counts].slice(0, 5).map(([text, n]) => (n > 1 ? `${text} (${n} runs)` : text));
}
