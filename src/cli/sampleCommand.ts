/**
 * `prompt-insight sample FILE --traces PATH… --n 50 --strategy random|slowest|errors|stratified`:
 * production requests whose input was captured become test cases in the prompt's tests file, with
 * provenance, deduplicated (also against the file's cases), redacted before anything is written, and
 * appended — never overwriting. Prints what was added, how the inputs were mapped and what was redacted.
 */
import { basename, resolve } from 'node:path';
import { sidecarPathFor } from '../core/adherence/testCases';
import { findWorkspaceRoot, readTestsFileSync, TESTS_FILE_MAX_BYTES } from '../core/files/workspaceFile';
import { checkWritableTarget, replaceWorkspaceFile } from '../core/files/workspaceWrite';
import { formatMs } from '../core/metrics/format';
import { MAX_CAPTURED_CHARS } from '../core/telemetry/capturedContent';
import { SAMPLED_INPUT_BUDGET_CHARS, SampleSink, STRATEGIES, type Strategy } from '../core/sampling/productionSample';
import { createRedactor } from '../core/sampling/redact';
import { SECRET_RULES_SOURCE } from '../core/sampling/secretRules';
import { appendCases, readTestsFile } from '../core/sampling/testsFileAppend';
import { readTraceFiles } from '../core/telemetry/importOtlp';
import { parseArgs, stringFlag, UsageError } from './args';
import type { CliIO } from './io';
import { terminalJson } from './terminalText';
import { promptsOf } from './promptFile';
import { SAMPLE_USAGE } from './help/usage';

export async function sampleCommand(argv: string[], io: CliIO): Promise<number> {
  const args = parseArgs(argv, { valued: ['prompt', 'n', 'strategy', 'seed', 'out'], boolean: ['json', 'dry-run'], repeatable: ['traces', 'redact'] });
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
  let redactor;
  try {
    redactor = createRedactor(args.lists.get('redact') ?? []);
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
  const found = await promptsOf(file, stringFlag(args, 'prompt'));
  if ('error' in found) {
    io.stderr(`prompt-insight sample: ${found.error}\n`);
    return 1;
  }
  if (found.prompts.length > 1) throw new UsageError(`${file} has ${found.prompts.length} prompts: name one with --prompt (${found.prompts.map((p) => p.name).join(', ')})`);
  const prompt = found.prompts[0]!;
  const out = stringFlag(args, 'out') ?? sidecarPathFor(file);
  const dryRun = args.flags.get('dry-run') === true;
  // The tests file's place is the repository's to name: the workspace-file rules, checked before any work.
  const writeRules = { root: findWorkspaceRoot(out), what: 'tests files' };
  let testsFile;
  try {
    if (!dryRun) checkWritableTarget(out, writeRules);
    testsFile = readTestsFile(readTestsFileSync(resolve(out)), out);
  } catch (error) {
    io.stderr(`prompt-insight sample: ${(error as Error).message}\n`);
    return 1;
  }
  const sink = new SampleSink(prompt, { n, strategy, seed, redactor, existingKeys: testsFile.existingKeys, nowMs: Date.now() });
  const signal = io.interrupted();
  io.stderr(`Reading ${traces.length} trace file${traces.length === 1 ? '' : 's'} for ${prompt.name}…\n`);
  try {
    await readTraceFiles(traces, sink, { signal, keepContent: true });
  } catch (error) {
    if (signal.aborted) return 130;
    io.stderr(`prompt-insight sample: ${(error as Error).message}\n`);
    return 1;
  }
  const result = sink.result();
  const redactions: Record<string, number> = {};
  for (const c of result.cases) for (const [kind, count] of c.redactions) redactions[kind] = (redactions[kind] ?? 0) + count;
  if (result.cases.length > 0 && !dryRun) {
    const text = appendCases(testsFile, result.cases, strategy);
    if (Buffer.byteLength(text) > TESTS_FILE_MAX_BYTES) {
      io.stderr(`prompt-insight sample: ${out} would be ${Buffer.byteLength(text)} bytes, over the ${TESTS_FILE_MAX_BYTES}-byte limit for tests files; nothing is written. Sample fewer cases (--n).\n`);
      return 1;
    }
    try {
      replaceWorkspaceFile(out, text, writeRules);
    } catch (error) {
      io.stderr(`prompt-insight sample: ${(error as Error).message}\n`);
      return 1;
    }
  }
  const mapped = result.cases.filter((c) => c.inputs === 'template-variables').length;
  const skipped = Object.fromEntries(sink.skipped);
  const summary = {
    file,
    prompt: prompt.name,
    out,
    written: !dryRun && result.cases.length > 0,
    strategy,
    seed,
    added: result.cases.map((c) => ({ description: `production ${c.endTime}`, traceId: c.traceId, spanId: c.spanId, endTime: c.endTime, version: c.version, e2eMs: Math.round(c.e2eMs), errorType: c.errorType, inputs: c.inputs, ...(c.inputs === 'template-variables' ? { vars: Object.keys(c.vars) } : {}) })),
    requests: sink.matched,
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
  const lines = [`${sink.matched} production requests of ${prompt.name}; ${sink.matched - sink.withoutInput} with captured input (gen_ai.input.messages).`];
  if (result.cases.length === 0) lines.push(`Nothing to add to ${out}${result.alreadyInFile ? ` (${result.alreadyInFile} inputs are already cases there)` : ''}.`);
  else lines.push(`${dryRun ? 'Would append' : 'Appended'} ${result.cases.length} case${result.cases.length === 1 ? '' : 's'} (strategy ${strategy}, seed ${seed}) to ${out} after its ${testsFile.existingCases} existing case${testsFile.existingCases === 1 ? '' : 's'}:`);
  for (const c of result.cases) lines.push(`  + ${c.endTime} trace ${c.traceId} span ${c.spanId} · version ${c.version} · ${formatMs(c.e2eMs)}${c.errorType ? ` · failed (${c.errorType})` : ''} · ${c.inputs === 'template-variables' ? `vars ${Object.keys(c.vars).join(', ')}` : 'the captured messages'}`);
  if (result.cases.length > 0) lines.push(`Inputs: ${mapped} mapped to the template's variables, ${result.cases.length - mapped} kept as the captured messages (they did not match the template's text).`);
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
