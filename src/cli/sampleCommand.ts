/**
 * `prompt-insight sample FILE --traces PATH… --n 50 --strategy random|slowest|errors|stratified
 * [--since T] [--until T] [--version V]`: production requests whose input was captured become test
 * cases in the prompt's tests file (core/sampling/sampleIntoTests.ts, as the editor's *Sample into
 * tests…* does). Prints what was added, how the inputs were kept, what was redacted and what was left out.
 */
import { basename } from 'node:path';
import { sidecarPathFor } from '../core/adherence/testCases';
import { formatMs } from '../core/metrics/format';
import { MAX_CAPTURED_CHARS } from '../core/telemetry/capturedContent';
import { SAMPLED_INPUT_BUDGET_CHARS, STRATEGIES, type Strategy } from '../core/sampling/productionSample';
import { planSample, SampleError, writeSample, type SamplePlan } from '../core/sampling/sampleIntoTests';
import { SECRET_RULES_SOURCE } from '../core/sampling/secretRules';
import { failureWords } from '../core/sampling/testsFileAppend';
import { nowFlag, parseArgs, stringFlag, UsageError } from './args';
import type { CliIO } from './io';
import { terminalJson } from './terminalText';
import { promptsOf } from '../core/formats/promptFile';
import { SAMPLE_USAGE } from './help/usage';
import { parseSince } from './prodCommand';

export async function sampleCommand(argv: string[], io: CliIO): Promise<number> {
  const args = parseArgs(argv, { valued: ['prompt', 'n', 'strategy', 'seed', 'out', 'since', 'until', 'version', 'now'], boolean: ['json', 'dry-run'], repeatable: ['traces', 'redact'] });
  if (args.positionals.length < 1) throw new UsageError(`give the prompt file\nusage: ${SAMPLE_USAGE}`);
  const [file, ...extra] = args.positionals as [string, ...string[]];
  const traces = [...(args.lists.get('traces') ?? []), ...(args.lists.has('traces') ? extra : [])];
  if (!args.lists.has('traces') && extra.length) throw new UsageError(`give exactly one prompt file (got ${args.positionals.length} paths); trace files follow --traces`);
  if (traces.length === 0) throw new UsageError(`give production traces: --traces FILE (OTLP JSON Lines, gzip accepted)\nusage: ${SAMPLE_USAGE}`);
  const n = Number(stringFlag(args, 'n') ?? 50);
  if (!Number.isInteger(n) || n < 1 || n > 10_000) throw new UsageError('--n takes a whole number from 1 to 10000');
  const strategy = (stringFlag(args, 'strategy') ?? 'random') as Strategy;
  if (!STRATEGIES.includes(strategy)) throw new UsageError(`--strategy is one of ${STRATEGIES.join(', ')}`);
  const seed = Number(stringFlag(args, 'seed') ?? 1);
  if (!Number.isInteger(seed)) throw new UsageError('--seed takes a whole number');
  if (/\.prompt\.ya?ml$/i.test(file) && !args.flags.has('out')) throw new UsageError(`${basename(file)} keeps its cases in testData; give --out NAME.tests.yaml to write the sampled cases to a tests file`);
  // --since and --until as prod and watch read them: a duration before now (30m, 24h, 7d) or an ISO date.
  const nowMs = nowFlag(args);
  const since = stringFlag(args, 'since');
  const until = stringFlag(args, 'until');
  const sinceMs = since !== undefined ? parseSince(since, nowMs, 'since') : undefined;
  const untilMs = until !== undefined ? parseSince(until, nowMs, 'until') : undefined;
  if (sinceMs !== undefined && untilMs !== undefined && untilMs < sinceMs) throw new UsageError(`--until ${until} is before --since ${since}`);
  const version = stringFlag(args, 'version');
  if (version !== undefined && !version.trim()) throw new UsageError('--version takes a version: a commit, a registry label or a content hash (sha256:…)');
  const found = await promptsOf(file, stringFlag(args, 'prompt'));
  if ('error' in found) {
    io.stderr(`prompt-insight sample: ${found.error}\n`);
    return 1;
  }
  if (found.prompts.length > 1) throw new UsageError(`${file} has ${found.prompts.length} prompts: name one with --prompt (${found.prompts.map((p) => p.name).join(', ')})`);
  const prompt = found.prompts[0]!;
  const out = stringFlag(args, 'out') ?? sidecarPathFor(file);
  const dryRun = args.flags.get('dry-run') === true;
  const signal = io.interrupted();
  io.stderr(`Reading ${traces.length} trace file${traces.length === 1 ? '' : 's'} for ${prompt.name}…\n`);
  let plan: SamplePlan;
  try {
    plan = await planSample({ file, prompt, traces, out, n, strategy, seed, redact: args.lists.get('redact') ?? [], ...(sinceMs !== undefined ? { sinceMs } : {}), ...(untilMs !== undefined ? { untilMs } : {}), ...(version !== undefined ? { version } : {}), nowMs, willWrite: !dryRun, signal });
    if (!dryRun) writeSample(plan);
  } catch (error) {
    if (signal.aborted) return 130;
    if (error instanceof SampleError && error.kind === 'usage') throw new UsageError(error.message);
    io.stderr(`prompt-insight sample: ${(error as Error).message}\n`);
    return 1;
  }
  const { sink, result, testsFile, redactions } = plan;
  const mapped = result.cases.filter((c) => c.inputs === 'template-variables').length;
  const skipped = Object.fromEntries(sink.skipped);
  const summary = {
    file,
    prompt: prompt.name,
    out,
    written: !dryRun && result.cases.length > 0,
    strategy,
    seed,
    ...(sinceMs !== undefined ? { since: new Date(sinceMs).toISOString() } : {}),
    ...(untilMs !== undefined ? { until: new Date(untilMs).toISOString() } : {}),
    ...(plan.version ? { version: { asked: plan.version.asked, revision: plan.version.revision, labels: [...plan.version.labels], seen: plan.version.seen } } : {}),
    added: result.cases.map((c) => ({ description: `production ${c.endTime}`, traceId: c.traceId, spanId: c.spanId, endTime: c.endTime, version: c.version, e2eMs: Math.round(c.e2eMs), errorType: c.errorType, ...(c.noAnswer ? { noAnswer: true } : {}), inputs: c.inputs, ...(c.inputs === 'template-variables' ? { vars: Object.keys(c.vars) } : { turns: c.turns!.length }) })),
    requests: sink.matched,
    outsideRange: sink.outsideRange,
    otherVersions: sink.otherVersion,
    ...(strategy === 'slowest' ? { failedNotSlowest: sink.failedNotSlowest } : {}),
    withoutCapturedInput: sink.withoutInput,
    unreadableInput: result.unreadableInput,
    inputTooLarge: result.inputTooLarge,
    ...(result.cutForSize ? { cutForSize: true } : {}),
    ...(result.countsApproximate ? { countsApproximate: true } : {}),
    eligible: result.eligible,
    duplicates: result.duplicates,
    alreadyInFile: result.alreadyInFile,
    redactions,
    skipped,
    existingCases: testsFile.existingCases,
    redactionRules: `${SECRET_RULES_SOURCE.name} ${SECRET_RULES_SOURCE.version} and personal data`,
  };
  if (args.flags.get('json') === true) {
    io.stdout(`${terminalJson(summary)}\n`);
    return 0;
  }
  const lines = [`${sink.matched} production requests of ${prompt.name}${scopeWords(plan)}; ${sink.matched - sink.withoutInput} with captured input (gen_ai.input.messages).`];
  const left = [sink.outsideRange ? `${sink.outsideRange} outside the range` : '', sink.otherVersion ? `${sink.otherVersion} of other versions` : ''].filter(Boolean);
  if (left.length) lines.push(`Left out: ${left.join(', ')}.`);
  if (plan.version && plan.version.labels.size === 0) lines.push(`No call of version ${plan.version.asked} in these traces${sinceMs !== undefined || untilMs !== undefined ? ' in that range' : ''}; versions seen: ${plan.version.seen.map((v) => `${v.version} (${v.calls})`).join(', ') || 'none'}.`);
  for (const problem of plan.version?.problems ?? []) lines.push(`note: ${problem}`);
  if (strategy === 'slowest' && sink.failedNotSlowest) lines.push(`slowest takes calls that answered: ${sink.failedNotSlowest} failed call${sink.failedNotSlowest === 1 ? '' : 's'} (timeouts, rate limits, server errors, empty answers) skipped; --strategy errors samples them.`);
  if (result.cases.length === 0) lines.push(`Nothing to add to ${out}${result.alreadyInFile ? ` (${result.alreadyInFile} inputs are already cases there)` : ''}.`);
  else lines.push(`${dryRun ? 'Would append' : 'Appended'} ${result.cases.length} case${result.cases.length === 1 ? '' : 's'} (strategy ${strategy}, seed ${seed}) to ${out} after its ${testsFile.existingCases} existing case${testsFile.existingCases === 1 ? '' : 's'}:`);
  for (const c of result.cases) lines.push(`  + ${c.endTime} trace ${c.traceId} span ${c.spanId} · version ${c.version} · ${formatMs(c.e2eMs)}${failureWords(c) ? ` · ${failureWords(c)}` : ''} · ${c.inputs === 'template-variables' ? `vars ${Object.keys(c.vars).join(', ')}` : `production's ${c.turns!.length === 1 ? 'user turn' : `${c.turns!.length} turns`}`}`);
  if (result.cases.length > 0) lines.push(`Inputs: ${mapped} mapped to the template's variables, ${result.cases.length - mapped} kept as production's turns (their messages did not match the template's text; they run after the current prompt's system text, never the one they were sent with).`);
  lines.push(Object.keys(redactions).length ? `Redacted before writing: ${Object.entries(redactions).sort(([a], [b]) => (a < b ? -1 : 1)).map(([k, v]) => `${v} ${k}`).join(', ')}.` : 'Redacted before writing: nothing matched the rules.');
  const notes = [
    result.duplicates ? `${result.duplicates} duplicate inputs` : '',
    result.alreadyInFile ? `${result.alreadyInFile} already in the file` : '',
    sink.withoutInput ? `${sink.withoutInput} without captured input` : '',
    result.unreadableInput ? `${result.unreadableInput} with input that is not the conventions' messages` : '',
    result.inputTooLarge ? `${result.inputTooLarge} with input over ${MAX_CAPTURED_CHARS / 1024} KiB` : '',
    result.cutForSize ? `more inputs than fit in ${SAMPLED_INPUT_BUDGET_CHARS / (1024 * 1024)} MiB` : '',
    ...Object.entries(skipped).map(([r, k]) => `${k} ${r === 'future-end' ? 'ending in the future (clock skew)' : r}`),
    result.countsApproximate ? 'counts of distinct inputs are lower bounds (too many to remember)' : '',
  ].filter(Boolean);
  if (notes.length) lines.push(`Not sampled: ${notes.join(', ')}.`);
  if (!testsFile.hasDefaultAssertions && result.cases.length > 0) lines.push('Each case asserts latency ≤ 1.5× production\'s (edit or add assertions; a defaultTest.assert in the file is used instead).');
  io.stdout(`${lines.join('\n')}\n`);
  return 0;
}

/** ` of version V (revision abc1234) ending 2026-11-30T00:00Z–2026-12-01T00:00Z`: what was asked for. */
function scopeWords(plan: SamplePlan): string {
  const { sinceMs, untilMs } = plan.request;
  const at = (ms: number) => new Date(ms).toISOString().slice(0, 16) + 'Z';
  const v = plan.version;
  const version = v ? ` of version ${v.asked}${v.revision && !v.revision.startsWith(v.asked) ? ` (revision ${v.revision.slice(0, 7)})` : ''}` : '';
  const range = sinceMs !== undefined || untilMs !== undefined ? ` ending ${sinceMs !== undefined ? at(sinceMs) : '…'}–${untilMs !== undefined ? at(untilMs) : 'now'}` : '';
  return version + range;
}
