/**
 * What one revision of a prompt file declares about how it is judged: its scenario and SLOs (in the
 * prompt file and in its tests file) and its test cases — each read as of that revision, so that a
 * gate can take them from the base and see what the head changes. A committed tests file is read
 * from git as a regular file under the tests-file cap (a committed link is not followed); the
 * working copy's and the buffer's through the workspace file boundary.
 */
import { basename } from 'node:path';
import { LABELS_FILE_MAX_BYTES, labelsPathFor, parseLabels, readLabelsFileSync, type Label } from '../adherence/labelsFile';
import { loadTestSuite, sidecarPathFor, type TestSuite } from '../adherence/testCases';
import { readTestsFileSync, TESTS_FILE_MAX_BYTES } from '../files/workspaceFile';
import { detectFormat, parsePromptFile } from '../formats/detect';
import type { Prompt } from '../formats/model';
import { BUFFER_REVISION, regularFileAt, WORKING_REVISION } from '../history/fileHistory';
import { normalizeParams } from '../endpoint/params';
import { declaredRetrieval, type DeclaredRetrieval } from '../retrieval/retrievalStep';
import type { RevisionSource } from './revisionSources';

export interface Declaration {
  where: string;
  scenario?: unknown;
  slo?: unknown;
}

/** People's labels beside the prompt as of a revision (the judge is trusted against these). */
export interface LabelsAt {
  labels: Label[];
  /** `homes.labels.jsonl at 1a2b3c4`. */
  where: string;
  /** Bad lines, or why the file was not read. */
  problems: string[];
}

export interface RevisionDeclarations {
  label: string;
  /** People's labels as of this revision; absent when the revision has no labels file. */
  labels?: LabelsAt;
  prompt?: Declaration;
  tests?: Declaration;
  suite: TestSuite;
  /** The retrieval step the revision's prompt file declares (or why it cannot be read). */
  retrieval: DeclaredRetrieval;
}

export interface DeclarationContext {
  /** The prompt file as the user names it (for messages and the working copy's sidecar). */
  file: string;
  promptName?: string;
  /** The repository root, for committed revisions (`source.path` is relative to it). */
  repoRoot?: string;
  workspaceFolders?: readonly string[];
  signal?: AbortSignal;
}

export async function declarationsAt(source: RevisionSource, context: DeclarationContext): Promise<RevisionDeclarations> {
  const format = detectFormat(context.file, source.text);
  const doc = parsePromptFile(context.file, source.text, format);
  const prompt: Prompt | undefined = context.promptName ? doc.prompts.find((p) => p.name === context.promptName) : doc.prompts[0];
  const where = `${basename(context.file)} at ${source.label}`;
  const retrieval = declaredRetrieval(source.text, format === 'github-prompt-yaml');
  if (!prompt) return { label: source.label, retrieval, suite: { cases: [], source: where, problems: [`${where} has no prompt${context.promptName ? ` named '${context.promptName}'` : ''}.`] } };
  const sidecarText = await sidecarAt(source, context);
  const suite = loadTestSuite(context.file, source.text, format, prompt, () => {
    if (sidecarText instanceof Error) throw sidecarText;
    return sidecarText;
  });
  const labels = await labelsAt(source, context);
  return {
    label: source.label,
    retrieval,
    ...(labels ? { labels } : {}),
    ...(prompt.rollout ? { prompt: { where, ...prompt.rollout } } : {}),
    ...(suite.rollout ? { tests: { where: `${suite.source} at ${source.label}`, ...suite.rollout } } : {}),
    suite,
  };
}

/** The tests file beside the prompt as of this revision: its text, undefined when there is none, or why it is not read. */
async function sidecarAt(source: RevisionSource, context: DeclarationContext): Promise<string | undefined | Error> {
  try {
    if (source.rev === WORKING_REVISION || source.rev === BUFFER_REVISION) {
      return readTestsFileSync(sidecarPathFor(context.file), context.workspaceFolders ? { workspaceFolders: context.workspaceFolders } : {});
    }
    if (!context.repoRoot) return undefined;
    const content = await regularFileAt(context.repoRoot, source.rev, sidecarPathFor(source.path), TESTS_FILE_MAX_BYTES, context.signal ? { signal: context.signal } : {});
    if (!content) return undefined;
    return content.ok ? content.text : new Error(content.reason);
  } catch (error) {
    return error as Error;
  }
}

/**
 * The labels file beside the prompt as of this revision, by the same rules as its tests file: a committed
 * one as a regular file under its cap (a link is not followed), the working copy's through the workspace
 * boundary. A file that cannot be read is a problem, and no labels.
 */
async function labelsAt(source: RevisionSource, context: DeclarationContext): Promise<LabelsAt | undefined> {
  const name = basename(labelsPathFor(context.file));
  const where = `${name} at ${source.label}`;
  try {
    if (source.rev === WORKING_REVISION || source.rev === BUFFER_REVISION) {
      const read = readLabelsFileSync(labelsPathFor(context.file), context.workspaceFolders ? { workspaceFolders: context.workspaceFolders } : {});
      return read ? { labels: read.labels, where, problems: read.problems } : undefined;
    }
    if (!context.repoRoot) return undefined;
    const content = await regularFileAt(context.repoRoot, source.rev, labelsPathFor(source.path), LABELS_FILE_MAX_BYTES, context.signal ? { signal: context.signal } : {});
    if (!content) return undefined;
    if (!content.ok) return { labels: [], where, problems: [content.reason] };
    const read = parseLabels(content.text, name);
    return { labels: read.labels, where, problems: read.problems };
  } catch (error) {
    return { labels: [], where, problems: [`${where} is not read: ${(error as Error).message}`] };
  }
}

/**
 * The request parameters a revision's prompt declares (front matter needs no rendering), for the
 * cost-and-retention check before any run: a revision whose prompt cannot be planned is still checked.
 */
export function revisionRequestParams(file: string, text: string, promptName?: string): { name: string; params: Record<string, unknown> }[] {
  const doc = parsePromptFile(file, text, detectFormat(file, text));
  const prompts = promptName ? doc.prompts.filter((p) => p.name === promptName) : doc.prompts.slice(0, 1);
  return prompts.map((p) => ({ name: p.name, params: normalizeParams(p.params) }));
}
