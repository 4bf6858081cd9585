/**
 * `compare` in CI: what it prints (`--format text|json|markdown`), the job summary it appends to when
 * GitHub Actions gives one ($GITHUB_STEP_SUMMARY), the JUnit XML report (`--junit FILE`), and whether
 * it may fetch a revision a shallow clone lacks (`--fetch [--remote NAME]`). `--out FILE` puts what would
 * be printed into FILE instead: a shell's `> file` follows a link the checkout committed at that name.
 */
import type { ComparisonResult } from '../core/compare/compare';
import { comparisonJunit } from '../core/compare/junitReport';
import { comparisonMarkdown } from '../core/compare/markdownReport';
import type { RevisionSourceOptions } from '../core/compare/revisionSources';
import { stringFlag, UsageError, type ParsedArgs } from './args';
import { scrubSecrets } from '../core/endpoint/secrets';
import type { CliIO } from './io';
import { terminalText } from './terminalText';
import { appendOutput, checkOutputFiles, outputFlag, writeOutput } from './outputFiles';

export const CI_VALUED_FLAGS = ['format', 'junit', 'remote', 'out'];
export const CI_BOOLEAN_FLAGS = ['fetch'];
/** What each file is, in messages: one wording for the check before the runs and the write after them. */
const JUNIT = 'the JUnit report (--junit)';
const OUT = 'the output (--out)';
const SUMMARY = 'the job summary ($GITHUB_STEP_SUMMARY)';
const FORMATS = ['text', 'json', 'markdown'] as const;

export interface CiOutputs {
  format: (typeof FORMATS)[number];
  junit?: string;
  /** `--out FILE`: the printed output goes there instead of stdout. */
  out?: string;
  /** GitHub Actions' job summary file: the Markdown is appended to it. */
  stepSummary?: string;
}

export function ciOutputFlags(args: ParsedArgs, env: NodeJS.ProcessEnv = process.env): CiOutputs {
  const given = stringFlag(args, 'format');
  if (given !== undefined && !(FORMATS as readonly string[]).includes(given)) throw new UsageError(`--format must be one of ${FORMATS.join(', ')}`);
  if (args.flags.get('json') === true && given !== undefined && given !== 'json') throw new UsageError(`--json and --format ${given} exclude each other`);
  const format = args.flags.get('json') === true ? 'json' : ((given ?? 'text') as CiOutputs['format']);
  const junit = stringFlag(args, 'junit');
  const out = stringFlag(args, 'out');
  const stepSummary = env.GITHUB_STEP_SUMMARY?.trim();
  return { format, ...(junit ? { junit } : {}), ...(out ? { out } : {}), ...(stepSummary ? { stepSummary } : {}) };
}

/** Refuses, before any run, a JUnit report or job summary that would be written through a link or into something not a file. */
export function checkCiOutputs(outputs: CiOutputs): void {
  checkOutputFiles([outputFlag(outputs.junit, JUNIT), outputFlag(outputs.out, OUT), outputFlag(outputs.stepSummary, SUMMARY)]);
}

/** With `--out FILE`, an io whose stdout is kept and written to FILE by `flush` (stderr still goes to the terminal). */
export function printedOutput(io: CliIO, outputs: CiOutputs): { io: CliIO; flush(): void } {
  const out = outputs.out;
  if (!out) return { io, flush: () => {} };
  const kept: string[] = [];
  return {
    io: { ...io, stdout: (text) => kept.push(text) },
    flush: () => {
      // The same text the terminal would have shown: the action prints this file into the job log.
      writeOutput({ path: out, what: OUT }, terminalText(scrubSecrets(kept.join(''))));
      if (outputs.format !== 'json') io.stderr(`Output written to ${out}\n`);
    },
  };
}

export function revisionFetchFlags(args: ParsedArgs): Pick<RevisionSourceOptions, 'fetchMissing'> {
  const remote = stringFlag(args, 'remote');
  if (args.flags.get('fetch') !== true) {
    if (remote !== undefined) throw new UsageError('--remote names where --fetch fetches a missing revision from: give it with --fetch');
    return {};
  }
  return { fetchMissing: { remote: remote ?? 'origin' } };
}

/** The Markdown (stdout and/or the job summary) and the JUnit report; says where files went unless the output is JSON. */
export async function writeCiOutputs(result: ComparisonResult, outputs: CiOutputs, timing: { startedAt: Date; elapsedMs: number; extraLines?: readonly string[] }, io: CliIO): Promise<void> {
  const needsMarkdown = outputs.format === 'markdown' || outputs.stepSummary !== undefined;
  const markdown = needsMarkdown ? comparisonMarkdown(result, timing.extraLines ? { extraLines: timing.extraLines } : {}) : '';
  if (outputs.format === 'markdown') io.stdout(markdown);
  const say = (line: string) => outputs.format !== 'json' && io.stderr(`${line}\n`);
  if (outputs.stepSummary) {
    appendOutput({ path: outputs.stepSummary, what: SUMMARY }, `${markdown}\n`);
    say('Summary appended to $GITHUB_STEP_SUMMARY');
  }
  if (outputs.junit) {
    writeOutput({ path: outputs.junit, what: JUNIT }, comparisonJunit(result, timing));
    say(`JUnit report written to ${outputs.junit}`);
  }
}
