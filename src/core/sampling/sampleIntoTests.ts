/**
 * Production requests into a prompt's tests file, for every face: the CLI's `sample` and the editor's
 * *Sample into tests…* call planSample with plain options, show the plan (the redacted cases, what was
 * left out and why), and writeSample writes it. Nothing is written by planSample.
 */
import { resolve } from 'node:path';
import { findWorkspaceRoot, readTestsFileSync, TESTS_FILE_MAX_BYTES } from '../files/workspaceFile';
import { checkWritableTarget, replaceWorkspaceFile } from '../files/workspaceWrite';
import type { Prompt } from '../formats/model';
import { readTraceFiles, type ImportOptions } from '../telemetry/importOtlp';
import { loadFileVersions } from '../telemetry/prodVersions';
import { contentMatcher } from '../telemetry/versionResolver';
import { SampleSink, type SampleResult, type Strategy } from './productionSample';
import { createRedactor } from './redact';
import { chooseVersion, VersionLabels, type VersionChoice } from './sampleVersion';
import { appendCases, readTestsFile, type TestsFile } from './testsFileAppend';

export interface SampleRequest {
  /** The prompt file, and the prompt of it sampled. */
  file: string;
  prompt: Prompt;
  traces: readonly string[];
  /** The tests file appended to. */
  out: string;
  n: number;
  strategy: Strategy;
  seed: number;
  /** Extra redaction patterns (RE2). */
  redact?: readonly string[];
  /** Only calls that ended in [sinceMs, untilMs]. */
  sinceMs?: number;
  untilMs?: number;
  /** Only calls of this version: a commit, a registry label or a content hash, as prod accepts. */
  version?: string;
  nowMs: number;
  /** Check the tests file can be written before reading anything (not for a preview). */
  willWrite: boolean;
  signal?: AbortSignal;
  /** How trace files are opened (the editor's workspace rules); the command line's by default. */
  open?: ImportOptions['open'];
}

export interface SamplePlan {
  request: SampleRequest;
  sink: SampleSink;
  result: SampleResult;
  testsFile: TestsFile;
  /** The tests file's text with the cases appended; null when there is nothing to add. */
  text: string | null;
  version?: VersionChoice;
  /** Redactions per kind over the cases. */
  redactions: Record<string, number>;
}

/** A request that cannot be done: `usage` (a bad option, an unknown version) or `unreadable` (a file). */
export class SampleError extends Error {
  constructor(
    message: string,
    readonly kind: 'usage' | 'unreadable',
  ) {
    super(message);
  }
}

export async function planSample(request: SampleRequest): Promise<SamplePlan> {
  const { out, prompt } = request;
  let redactor;
  try {
    redactor = createRedactor(request.redact ?? []);
  } catch (error) {
    throw new SampleError((error as Error).message, 'usage');
  }
  // The tests file's place is the repository's to name: the workspace-file rules, checked before any work.
  let testsFile: TestsFile;
  try {
    if (request.willWrite) checkWritableTarget(out, writeRulesFor(out));
    testsFile = readTestsFile(readTestsFileSync(resolve(out)), out);
  } catch (error) {
    throw new SampleError((error as Error).message, 'unreadable');
  }
  const range = { ...(request.sinceMs !== undefined ? { sinceMs: request.sinceMs } : {}), ...(request.untilMs !== undefined ? { untilMs: request.untilMs } : {}) };
  const read = { ...(request.signal ? { signal: request.signal } : {}), ...(request.open ? { open: request.open } : {}), keepContent: true };
  let version: VersionChoice | undefined;
  let matchContent;
  if (request.version !== undefined) {
    // Versions as prod names them: calls without one matched by content; two passes, the labels first.
    const versions = await loadFileVersions(request.file, request.signal ? { signal: request.signal } : {});
    matchContent = contentMatcher(versions, new Set([prompt.name]));
    const labels = new VersionLabels(prompt.name, range);
    await readTraces(request.traces, labels, { ...read, keepContent: false, matchContent });
    version = await chooseVersion(request.file, prompt.name, request.version, versions, labels.counts, request.signal);
    if (version.revision === null && version.labels.size === 0) {
      const seen = version.seen.map((v) => `${v.version} (${v.calls} call${v.calls === 1 ? '' : 's'})`).join(', ');
      throw new SampleError(`--version ${request.version} is not a version of ${prompt.name} in these traces or in ${request.file}'s history${seen ? `; versions seen: ${seen}` : '; no call of it was seen'}`, 'usage');
    }
  }
  const sink = new SampleSink(prompt, { n: request.n, strategy: request.strategy, seed: request.seed, redactor, existingKeys: testsFile.existingKeys, nowMs: request.nowMs, ...range, ...(version ? { versions: version.labels } : {}) });
  await readTraces(request.traces, sink, { ...read, ...(matchContent ? { matchContent } : {}) });
  const result = sink.result();
  const redactions: Record<string, number> = {};
  for (const c of result.cases) for (const [kind, count] of c.redactions) redactions[kind] = (redactions[kind] ?? 0) + count;
  const text = result.cases.length > 0 ? appendCases(testsFile, result.cases, request.strategy) : null;
  return { request, sink, result, testsFile, text, redactions, ...(version ? { version } : {}) };
}

/** Writes the plan's cases (through the workspace-file rules); refuses a tests file over its size limit. */
export function writeSample(plan: SamplePlan): void {
  if (plan.text === null) return;
  const bytes = Buffer.byteLength(plan.text);
  if (bytes > TESTS_FILE_MAX_BYTES) throw new SampleError(`${plan.request.out} would be ${bytes} bytes, over the ${TESTS_FILE_MAX_BYTES}-byte limit for tests files; nothing is written. Sample fewer cases (--n).`, 'unreadable');
  replaceWorkspaceFile(plan.request.out, plan.text, writeRulesFor(plan.request.out));
}

const writeRulesFor = (out: string) => ({ root: findWorkspaceRoot(out), what: 'tests files' });

async function readTraces(paths: readonly string[], sink: Parameters<typeof readTraceFiles>[1], options: Parameters<typeof readTraceFiles>[2]): Promise<void> {
  try {
    await readTraceFiles(paths, sink, options);
  } catch (error) {
    if (options?.signal?.aborted) throw error;
    throw new SampleError((error as Error).message, 'unreadable');
  }
}
