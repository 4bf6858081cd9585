import { CACHE_MODES, type CacheMode } from '../core/endpoint/serverKind';
import { existsSync, readFileSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { basename } from 'node:path';
import { compareRevisions, type ComparisonResult } from '../core/compare/compare';
import { transportJudge } from '../core/compare/judge';
import { renderReportHtml } from '../core/compare/report';
import { comparisonView } from '../core/compare/view';
import { policyText } from '../core/rollout/scenario';
import { SloError } from '../core/rollout/slo';
import { loadRevisionSources } from '../core/compare/revisionSources';
import { loadTestSuite } from '../core/adherence/testCases';
import { detectFormat, parsePromptFile } from '../core/formats/detect';
import { GitError } from '../core/history/git';
import { ResultsStore } from '../core/store/resultsStore';
import { numberFlag, parseArgs, stringFlag, UsageError } from './args';
import { endpointTransport, ENDPOINT_FLAGS } from './endpointArgs';
import type { CliIO } from './io';
import { reportAssets } from './reportAssets';
import { DEFAULT_STORE_PATH } from './runCommand';
import { COMPARE_USAGE } from './usage';

/** `prompt-insight compare`: base vs head on the file's test cases; exit 1 on a significant worsening with --fail-on-regression. */
export async function compareCommand(argv: string[], io: CliIO): Promise<number> {
  const args = parseArgs(argv, {
    valued: ['base', 'head', 'prompt', 'runs', ...ENDPOINT_FLAGS, 'model', ...ENDPOINT_FLAGS.map((f) => `judge-${f}`), 'judge-model', 'concurrency', 'timeout-ms', 'store', 'report', 'cache', 'scenario', 'max-age-hours'],
    boolean: ['json', 'fresh', 'reuse-stored', 'no-store', 'fail-on-regression'],
    repeatable: ['slo'],
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
  const runsPerCase = numberFlag(args, 'runs', { min: 1, max: 10_000, integer: true }, 10);
  const concurrency = numberFlag(args, 'concurrency', { min: 1, max: 256, integer: true }, 4);
  const timeoutMs = numberFlag(args, 'timeout-ms', { min: 1 }, 60_000);
  const cache = stringFlag(args, 'cache') ?? 'cold';
  if (!(CACHE_MODES as readonly string[]).includes(cache)) throw new UsageError(`--cache must be one of ${CACHE_MODES.join(', ')}`);
  if (args.flags.has('store') && args.flags.has('no-store')) throw new UsageError('--store and --no-store exclude each other');
  const store = args.flags.has('no-store') ? undefined : new ResultsStore(stringFlag(args, 'store') ?? DEFAULT_STORE_PATH);
  const json = args.flags.get('json') === true;
  const scenario = stringFlag(args, 'scenario');
  const slo = args.lists.get('slo') ?? [];
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
  try {
    sources = (await loadRevisionSources(file, [base, head], { signal })).sources;
  } catch (error) {
    io.stderr(`prompt-insight compare: ${error instanceof GitError ? error.message : (error as Error).message}\n`);
    return 1;
  }
  // Every revision is scored by the current test cases (the working copy's), so the rules are the same for all.
  const currentText = existsSync(file) ? readFileSync(file, 'utf8') : sources[sources.length - 1]!.text;
  const format = detectFormat(file, currentText);
  const promptName = stringFlag(args, 'prompt');
  const doc = parsePromptFile(file, currentText, format);
  const prompt = (promptName ? doc.prompts.find((p) => p.name === promptName) : doc.prompts[0]) ?? undefined;
  if (!prompt) {
    io.stderr(`prompt-insight compare: ${file} has no prompt${promptName ? ` named '${promptName}'` : ''} in its current version.\n`);
    return 1;
  }
  const suite = loadTestSuite(file, currentText, format, prompt, (path) => (existsSync(path) ? readFileSync(path, 'utf8') : undefined));
  for (const problem of suite.problems) io.stderr(`prompt-insight compare: ${problem}\n`);
  if (suite.cases.length === 0) {
    io.stderr('prompt-insight compare: no test cases to score, so adherence cannot be compared.\n');
    return 1;
  }
  const model = stringFlag(args, 'model');
  if (!json) io.stderr(`Comparing ${sources[0]!.label} → ${sources[1]!.label}: ${suite.cases.length} test case(s) × ${runsPerCase} runs each on ${transport.endpoint.name}\n`);
  let result: ComparisonResult;
  try {
    result = await compareRevisions({
    file, ...(promptName ? { promptName } : {}), revisions: sources, suite, runsPerCase, transport, ...(model ? { modelOverride: model } : {}),
    ...(store ? { store } : {}), fresh, timeoutMs, concurrency, signal, cache: cache as CacheMode,
    policy: { ...(scenario !== undefined ? { cliScenario: scenario } : {}), cliSlo: slo, ...(prompt.rollout ? { prompt: { where: basename(file), ...prompt.rollout } } : {}) },
    freshnessMs: maxAgeHours * 3_600_000,
    ...(judgeTransport && judgeModel ? { judge: transportJudge(judgeTransport, judgeModel, timeoutMs, signal) } : {}),
    onProgress: (done, total) => !json && process.stderr.isTTY && io.stderr(`\r  ${done}/${total} runs`),
    });
  } catch (error) {
    if (error instanceof SloError) throw new UsageError(error.message);
    throw error;
  }
  if (!json && process.stderr.isTTY) io.stderr('\n');
  if (json) io.stdout(`${JSON.stringify(comparisonView(result), null, 2)}\n`);
  else io.stdout(renderText(result));
  const report = stringFlag(args, 'report');
  if (report) {
    await writeFile(report, renderReportHtml(result, reportAssets()));
    if (!json) io.stderr(`Report written to ${report}\n`);
  }
  if (result.cancelled) return 130;
  if (!args.flags.get('fail-on-regression')) return 0;
  // The gate fails closed: hold, or no evidence either way (insufficient), stops the pipeline.
  const decision = result.rollout?.decision ?? 'insufficient';
  if (decision !== 'ship' && !json) io.stderr(`prompt-insight compare: --fail-on-regression: ${decision.toUpperCase()}: ${(result.rollout?.reasons ?? result.evidence.reasons).slice(0, 2).join('; ')}\n`);
  return decision === 'ship' ? 0 : 1;
}

function renderText(result: ComparisonResult): string {
  const pct = (v: number | null) => (v === null ? 'n/a' : `${Math.round(v * 100)}%`);
  const ms = (v: number | null) => (v === null ? 'n/a' : `${Math.round(v)} ms`);
  const lines = [`${result.prompt} on ${result.endpoint} (${result.model})${result.simulated ? ' · SIMULATED endpoint' : ''}`];
  for (const r of result.revisions) {
    const ci = r.adherence.ci95 ? ` [${pct(r.adherence.ci95[0])}–${pct(r.adherence.ci95[1])}]` : '';
    lines.push(`  ${r.label.padEnd(14)} adherence ${r.adherence.passed}/${r.adherence.total} ${pct(r.adherence.rate)}${ci} · TTFT p50 ${ms(r.ttftMs.p50)} · E2E p50 ${ms(r.e2eMs.p50)} · ${r.tokens ?? '?'} tokens${r.runsReused ? ` · ${r.runsReused} runs reused` : ''}${r.error ? ` · ${r.error}` : ''}`);
  }
  for (const v of result.verdicts) lines.push(`  ${v.verdict.toUpperCase().padEnd(13)} ${v.summary}`);
  lines.push(`Scenario: ${policyText(result.policy)}`);
  const reused = result.revisions.filter((r) => r.runsReused > 0);
  if (reused.length > 0) lines.push(`Reused stored runs: ${reused.map((r) => `${r.label} ${r.runsReused} (since ${r.reusedSince})`).join(', ')}`);
  const rollout = result.rollout;
  if (rollout) {
    const headline = { ship: 'SHIP', hold: 'HOLD', insufficient: 'INSUFFICIENT EVIDENCE' }[rollout.decision];
    lines.push(`${headline}: ${result.revisions[result.revisions.length - 1]!.label} (vs ${result.revisions[0]!.label})`);
    for (const reason of rollout.reasons) lines.push(`  - ${reason}`);
  }
  return `${lines.join('\n')}\n`;
}
